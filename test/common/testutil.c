/* testutil.c: see testutil.h. */
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btc_config.h"

/* Projects that build the tests without btc (the GPU machine's) may not
 * name a data folder: the working directory's data/ then. */
#ifndef BTC_DATA_DIR
#define BTC_DATA_DIR "data"
#endif

#if BTC_HAVE_VULKAN
#include <vulkan/vulkan.h>
#endif

/* The data paths handed out so far (interned: reachable until exit). */
enum { MAX_DATA_PATHS = 64 };
static struct {
	char *rel, *path;
} data_paths[MAX_DATA_PATHS];
static int n_data_paths;

static const char *data_dir(void)
{
	const char *d = getenv("BTC_DATA_DIR");
	return d && *d ? d : BTC_DATA_DIR;
}

const char *btc_test_data(const char *rel)
{
	for (int i = 0; i < n_data_paths; i++)
		if (!strcmp(data_paths[i].rel, rel))
			return data_paths[i].path;
	char buf[PATH_MAX];
	int n = snprintf(buf, sizeof buf, "%s/%s", data_dir(), rel);
	if (n < 0 || (size_t)n >= sizeof buf || n_data_paths == MAX_DATA_PATHS) {
		fprintf(stderr, "btc_test_data: path of '%s' too long or too many paths\n", rel);
		abort();
	}
	char *r = strdup(rel), *p = strdup(buf);
	if (!r || !p) {
		fprintf(stderr, "btc_test_data: out of memory\n");
		abort();
	}
	data_paths[n_data_paths].rel = r;
	data_paths[n_data_paths].path = p;
	n_data_paths++;
	return p;
}

int btc_test_need_data(const char *rel)
{
	const char *p = btc_test_data(rel);
	if (access(p, R_OK) == 0)
		return 0;
	fprintf(stderr, "missing test data: %s (%s; the data folder is %s, set BTC_DATA_DIR "
		"to use another)\n", p, strerror(errno), data_dir());
	return -1;
}

int btc_test_tmpfile(char *tmpl)
{
	char was[PATH_MAX];
	snprintf(was, sizeof was, "%s", tmpl);
	int fd = mkstemp(tmpl);
	if (fd < 0 || close(fd) != 0) {
		int e = errno;
		if (fd >= 0)
			unlink(tmpl);
		fprintf(stderr, "btc_test_tmpfile: cannot create a scratch file from %s: %s\n", was,
			strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}

int btc_test_write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int bad = fputs(text, f) == EOF;
	if (fclose(f) != 0 || bad)
		return -1;
	return 0;
}

static const char *const require_var[] = {
	[BTC_TEST_HW_VULKAN] = "BTC_REQUIRE_VULKAN",
	[BTC_TEST_HW_CUDA] = "BTC_REQUIRE_CUDA",
	[BTC_TEST_HW_CROSS] = "BTC_REQUIRE_CROSS",
};

static int env_on(const char *var)
{
	const char *v = getenv(var);
	return v && *v && strcmp(v, "0") != 0;
}

int btc_test_full(void)
{
	return env_on("BTC_TEST_FULL");
}

int btc_test_skip(enum btc_test_hw hw, const char *name, const char *fmt, ...)
{
	int required = env_on(require_var[hw]);
	va_list ap;
	fprintf(stderr, "%s: %s: ", name, required ? "FAIL" : "SKIP");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (required)
		fprintf(stderr, " (%s=%s: this hardware must be there)", require_var[hw],
			getenv(require_var[hw]));
	fputc('\n', stderr);
	return required ? 1 : BTC_TEST_SKIP;
}

int btc_test_check_vk_validation(const char *name)
{
	if (!env_on("BTRT_VK_VALIDATION"))
		return 0;
#if BTC_HAVE_VULKAN
	uint32_t n = 0;
	VkLayerProperties *props = NULL;
	int found = 0;
	if (vkEnumerateInstanceLayerProperties(&n, NULL) == VK_SUCCESS && n > 0 &&
	    (props = calloc(n, sizeof *props)) != NULL &&
	    vkEnumerateInstanceLayerProperties(&n, props) == VK_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			found |= !strcmp(props[i].layerName, "VK_LAYER_KHRONOS_validation");
	free(props);
	if (!found) {
		fprintf(stderr, "%s: FAIL: BTRT_VK_VALIDATION=%s but VK_LAYER_KHRONOS_validation "
			"is not installed (Debian: vulkan-validationlayers)\n", name,
			getenv("BTRT_VK_VALIDATION"));
		return -1;
	}
#endif
	return 0;
}
