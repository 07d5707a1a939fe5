/* Workload files (front/workload.h). */
#include "front/workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front/yamldoc.h"

static char *resolve(const char *base, const char *rel)
{
	if (rel[0] == '/' || !base)
		return btc_xstrdup(rel);
	const char *slash = strrchr(base, '/');
	if (!slash)
		return btc_xstrdup(rel);
	size_t n = (size_t)(slash - base) + 1;
	char *out = btc_xmalloc(n + strlen(rel) + 1);
	memcpy(out, base, n);
	strcpy(out + n, rel);
	return out;
}

/* A positive number (integer or decimal scalar) at n. */
static bool number(struct btc_yaml *y, yaml_node_t *n, const char *what, double *out,
		   struct btc_diag *d)
{
	const char *s;
	if (!btc_yaml_str(y, n, what, &s, d))
		return false;
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end || !isfinite(v) || !(v > 0)) {
		btc_error(d, btc_yaml_loc(y, n), "%s must be a positive number, not '%s'", what, s);
		return false;
	}
	*out = v;
	return true;
}

static bool entry(struct btc_yaml *y, yaml_node_t *node, const char *path,
		  struct btc_workload_entry *e, struct btc_diag *d)
{
	static const char *const keys[] = {"!app", "streams", "weight", "rate", "table", NULL};
	yaml_node_t *v[5];
	if (!btc_yaml_map(y, node, "workload app", keys, v, d))
		return false;
	int errors = d->errors;
	const char *s;
	e->streams = 1;
	e->weight = 1;
	if (btc_yaml_str(y, v[0], "app", &s, d)) {
		e->path = resolve(path, s);
		e->loc = btc_yaml_loc(y, v[0]);
		e->loc.col += btc_yaml_value_offset(v[0]);
		if (access(e->path, R_OK))
			btc_error(d, e->loc, "app file '%s' not found", e->path);
	}
	if (v[1]) {
		int64_t k;
		e->streams_loc = btc_yaml_loc(y, v[1]);
		if (btc_yaml_int(y, v[1], "streams", 1, 64, &k, d))
			e->streams = (int)k;
	}
	if (v[2]) {
		e->weight_loc = btc_yaml_loc(y, v[2]);
		number(y, v[2], "weight", &e->weight, d);
	}
	if (v[3]) {
		e->rate_loc = btc_yaml_loc(y, v[3]);
		number(y, v[3], "rate", &e->rate_per_s, d);
	}
	if (v[4] && btc_yaml_str(y, v[4], "table", &s, d)) {
		e->table = resolve(path, s);
		if (access(e->table, R_OK))
			btc_error(d, btc_yaml_loc(y, v[4]), "table '%s' not found", e->table);
	}
	return d->errors == errors;
}

bool btc_workload_load(const char *path, const char *text, struct btc_workload *w,
		       struct btc_diag *d)
{
	memset(w, 0, sizeof(*w));
	w->file = btc_xstrdup(path);
	struct btc_yaml y;
	if (!btc_yaml_load(&y, path, text, d))
		return false;
	int errors = d->errors;
	static const char *const keys[] = {"!apps", NULL};
	yaml_node_t *v[1];
	int n = 0;
	if (btc_yaml_map(&y, btc_yaml_root(&y), "workload", keys, v, d) &&
	    btc_yaml_seq(&y, v[0], "apps", &n, d)) {
		if (n == 0)
			btc_error(d, btc_yaml_loc(&y, v[0]), "a workload lists at least one app");
		if (n > BTC_WORKLOAD_MAX_APPS)
			btc_error(d, btc_yaml_loc(&y, v[0]), "a workload lists at most %d apps, not %d",
				  BTC_WORKLOAD_MAX_APPS, n);
		for (int i = 0; i < n && i < BTC_WORKLOAD_MAX_APPS; i++)
			entry(&y, btc_yaml_item(&y, v[0], i), path, &w->apps[w->n_apps++], d);
	}
	/* locations borrow the file name: keep it alive in w */
	for (int i = 0; i < w->n_apps; i++) {
		struct btc_workload_entry *e = &w->apps[i];
		struct btc_loc *locs[] = {&e->loc, &e->streams_loc, &e->weight_loc, &e->rate_loc};
		for (size_t k = 0; k < 4; k++)
			if (locs[k]->file)
				locs[k]->file = w->file;
	}
	btc_yaml_free(&y);
	return d->errors == errors;
}

bool btc_workload_add(struct btc_workload *w, const char *path, struct btc_diag *d)
{
	if (w->n_apps == BTC_WORKLOAD_MAX_APPS) {
		btc_error(d, (struct btc_loc){0}, "a workload has at most %d apps",
			  BTC_WORKLOAD_MAX_APPS);
		return false;
	}
	struct btc_workload_entry *e = &w->apps[w->n_apps++];
	memset(e, 0, sizeof(*e));
	e->path = btc_xstrdup(path);
	e->loc = (struct btc_loc){e->path, 1, 1};
	e->streams = 1;
	e->weight = 1;
	return true;
}

void btc_workload_free(struct btc_workload *w)
{
	for (int i = 0; i < w->n_apps; i++) {
		free(w->apps[i].path);
		free(w->apps[i].table);
	}
	free(w->file);
	memset(w, 0, sizeof(*w));
}
