#include "util/paths.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "btc_config.h"
#include "util/diag.h"

static bool is_source_root(const char *dir)
{
	char *p = btc_xasprintf("%s/templates/pipeline.c.in", dir);
	bool ok = access(p, R_OK) == 0;
	free(p);
	return ok;
}

const char *btc_source_root(void)
{
	static char root[4096];
	if (root[0])
		return root;
	const char *e = getenv("BTC_ROOT");
	if (e && *e) {
		snprintf(root, sizeof(root), "%s", e);
		return root;
	}
	if (is_source_root(BTC_SOURCE_ROOT)) {
		snprintf(root, sizeof(root), "%s", BTC_SOURCE_ROOT);
		return root;
	}
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		for (char *slash = strrchr(exe, '/'); slash && slash != exe;
		     slash = strrchr(exe, '/')) {
			*slash = '\0';
			if (is_source_root(exe)) {
				snprintf(root, sizeof(root), "%s", exe);
				return root;
			}
		}
	}
	snprintf(root, sizeof(root), "%s", BTC_SOURCE_ROOT);
	return root;
}

const char *btc_device_dir(void)
{
	static char dir[4200];
	const char *e = getenv("BTC_DEVICE_DIR");
	if (e && *e)
		return e;
	snprintf(dir, sizeof(dir), "%s/devices", btc_source_root());
	return dir;
}

const char *btc_template_dir(void)
{
	static char dir[4200];
	const char *e = getenv("BTC_TEMPLATE_DIR");
	if (e && *e)
		return e;
	snprintf(dir, sizeof(dir), "%s/templates", btc_source_root());
	return dir;
}

char *btc_template_path(const char *name)
{
	return btc_xasprintf("%s/%s", btc_template_dir(), name);
}
