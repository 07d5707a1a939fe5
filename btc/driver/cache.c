/* The profiling-table cache key (FNV-1a over contents) and file name. */
#include "driver/cache.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btc_config.h"
#include "driver/files.h"
#include "util/out.h"
#include "util/fsafe.h"
#include "util/paths.h"
#include "util/str.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* A file by its last path component and contents: where it lies (and how
 * the path was spelt) does not change the key. */
static uint64_t hash_file(uint64_t h, const char *path)
{
	size_t len;
	char *text = btc_read_file(path, &len);
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	h = fnv(h, name, strlen(name) + 1);
	if (text)
		h = fnv(h, text, len);
	free(text);
	return h;
}

static uint64_t hash_dir(uint64_t h, const char *dir)
{
	DIR *dd = opendir(dir);
	if (!dd)
		return h;
	char *names[512];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dd)) && n < 512)
		if (e->d_name[0] != '.')
			names[n++] = btc_xstrdup(e->d_name);
	closedir(dd);
	qsort(names, (size_t)n, sizeof(char *), btc_str_qsort_cmp);
	for (int i = 0; i < n; i++) {
		char *p = btc_xasprintf("%s/%s", dir, names[i]);
		h = hash_file(h, p);
		free(p);
		free(names[i]);
	}
	return h;
}

uint64_t btc_cache_key(const struct btc_app *app, const struct btc_device *dev)
{
	uint64_t h = 14695981039346656037ULL;
	h = fnv(h, BTC_VERSION, strlen(BTC_VERSION));
	h = hash_file(h, app->path);
	for (int i = 0; i < app->n_params; i++)
		h = fnv(h, &app->params[i].value, sizeof(int64_t));
	for (int i = 0; i < app->n_cpu_sources; i++)
		h = hash_file(h, app->cpu_sources[i]);
	for (int i = 0; i < app->n_cuda_sources; i++)
		h = hash_file(h, app->cuda_sources[i]);
	for (int i = 0; i < app->n_includes; i++)
		h = hash_dir(h, app->includes[i]);
	for (int s = 0; s < app->n_stages; s++)
		for (int k = 0; k < app->stages[s].n_vk; k++)
			h = hash_file(h, app->stages[s].vk[k].shader_path);
	char *rt = btc_xasprintf("%s/runtime/src", btc_source_root());
	char *prof = btc_template_path("profiler.c.in");
	h = hash_dir(h, rt);
	h = hash_file(h, prof);
	free(rt);
	free(prof);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	btc_device_write_yaml(dev, f);
	fclose(f);
	/* The whole description, machine name included: a table measured on
	 * one box is not reused on another with the same PUs. */
	h = fnv(h, text, len);
	free(text);
	return h;
}

char *btc_cache_table_path(const char *cache_dir, const struct btc_app *app,
			   const struct btc_device *dev, struct btc_diag *d)
{
	if (!btc_files_check_name("app name", app->name, d) ||
	    !btc_files_check_name("device name", dev->name, d))
		return NULL;
	return btc_xasprintf("%s/%s-%s-%016llx.csv", cache_dir, app->name, dev->name,
			     (unsigned long long)btc_cache_key(app, dev));
}

bool btc_cache_fit_mode_read(const char *table_path, enum btc_mode *m)
{
	char *path = btc_xasprintf("%s.fit-mode", table_path);
	char *text = btc_read_file(path, NULL);
	free(path);
	if (!text)
		return false;
	text[strcspn(text, "\n")] = 0;
	bool ok = btc_mode_parse(text, m);
	free(text);
	return ok;
}

void btc_cache_fit_mode_write(const char *table_path, const char *mode, struct btc_diag *d)
{
	char *path = btc_xasprintf("%s.fit-mode", table_path);
	char *line = btc_xasprintf("%s\n", mode);
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	if (!btc_write_file_atomic(path, line, strlen(line), 0, &quiet))
		btc_warning(d, (struct btc_loc){0}, "%s: the fit mode not kept for the next job",
			    path);
	free(line);
	free(path);
}
