/* Loading an app from YAML (front/app.h): params, buffers, stages and
 * their dispatches, sources, checked as they are read. */
#include "front/app.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <btrt_fsafe.h> /* btrt_file_kind */

#include "front/yamldoc.h"
#include "util/str.h"

struct loader {
	struct btc_yaml y;
	struct btc_diag *d;
	struct btc_app *app;
	bool layout_only;     /* btc_app_load_layout: shader and source files need not exist */
	int64_t n_dispatches; /* repeats so far, summed over the app */
};

static char *resolve(const struct btc_app *app, const char *rel)
{
	if (rel[0] == '/' || !strcmp(app->dir, "."))
		return btc_xstrdup(rel);
	return btc_xasprintf("%s/%s", app->dir, rel);
}

static struct btc_expr *parse_expr(struct loader *l, yaml_node_t *n, const char *what)
{
	const char *text;
	if (!btc_yaml_str(&l->y, n, what, &text, l->d))
		return NULL;
	struct btc_loc loc = btc_yaml_loc(&l->y, n);
	loc.col += btc_yaml_value_offset(n);
	return btc_expr_parse(text, loc, l->d);
}

static void load_params(struct loader *l, yaml_node_t *n)
{
	struct btc_app *app = l->app;
	if (n->type != YAML_MAPPING_NODE) {
		btc_error(l->d, btc_yaml_loc(&l->y, n),
			  "params must be a mapping of name: integer");
		return;
	}
	int cap = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (cap > BTC_APP_MAX_PARAMS) {
		btc_error(l->d, btc_yaml_loc(&l->y, n), "too many params (%d; at most %d)", cap,
			  BTC_APP_MAX_PARAMS);
		return;
	}
	app->params = btc_xcalloc((size_t)cap, sizeof(*app->params));
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(&l->y.doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&l->y.doc, p->value);
		const char *name;
		int64_t value;
		if (!btc_yaml_ident(&l->y, k, "param name", &name, l->d))
			continue;
		if (!strcmp(name, "i")) {
			btc_error(l->d, btc_yaml_loc(&l->y, k),
				  "param name 'i' is reserved for repeat indices");
			continue;
		}
		if (btc_app_param_index(app, name) >= 0) {
			btc_error(l->d, btc_yaml_loc(&l->y, k), "duplicate param '%s'", name);
			continue;
		}
		if (!btc_yaml_int(&l->y, v, "param value", INT64_MIN, INT64_MAX, &value, l->d))
			continue;
		struct btc_param *pp = &app->params[app->n_params++];
		pp->name = btc_xstrdup(name);
		pp->value = value;
		pp->loc = btc_yaml_loc(&l->y, k);
	}
}

static void load_buffers(struct loader *l, yaml_node_t *n)
{
	static const char *const keys[] = {"!name",   "!type",       "!count", "placement",
					   "scratch", "description", NULL};
	struct btc_app *app = l->app;
	int len;
	if (!btc_yaml_seq(&l->y, n, "buffers", &len, l->d))
		return;
	if (len > BTC_APP_MAX_BUFFERS) {
		btc_error(l->d, btc_yaml_loc(&l->y, n), "too many buffers (%d; at most %d)", len,
			  BTC_APP_MAX_BUFFERS);
		return;
	}
	app->buffers = btc_xcalloc((size_t)len, sizeof(*app->buffers));
	for (int i = 0; i < len; i++) {
		yaml_node_t *item = btc_yaml_item(&l->y, n, i), *v[6];
		if (!btc_yaml_map(&l->y, item, "buffer", keys, v, l->d) && !v[0])
			continue;
		const char *name = NULL, *type = NULL;
		if (!v[0] ||
		    !btc_yaml_name(&l->y, v[0], "buffer name", BTC_NAME_C_BUFFER, &name, l->d))
			continue;
		if (btc_app_buffer_index(app, name) >= 0 || btc_app_param_index(app, name) >= 0) {
			btc_error(l->d, btc_yaml_loc(&l->y, v[0]),
				  "duplicate name '%s' (buffers and params share one namespace)",
				  name);
			continue;
		}
		int same = -1;
		for (int j = 0; j < app->n_buffers && same < 0; j++)
			if (!strcasecmp(app->buffers[j].name, name))
				same = j;
		if (same >= 0) {
			btc_error(
				l->d, btc_yaml_loc(&l->y, v[0]),
				"buffer name '%s' differs from '%s' only in case (the generated code upper-cases buffer names)",
				name, app->buffers[same].name);
			continue;
		}
		struct btc_buffer *b = &app->buffers[app->n_buffers++];
		b->name = btc_xstrdup(name);
		b->loc = btc_yaml_loc(&l->y, item);
		if (v[1] && btc_yaml_str(&l->y, v[1], "buffer type", &type, l->d)) {
			int e;
			for (e = 0; e < BTC_N_ELEMS; e++)
				if (!strcmp(type, btc_elem_name((enum btc_elem)e)))
					break;
			if (e == BTC_N_ELEMS)
				btc_error(
					l->d, btc_yaml_loc(&l->y, v[1]),
					"unknown element type '%s' (expected u8, i8, u16, i16, u32, i32, u64, i64, f32 or f64)",
					type);
			else
				b->elem = (enum btc_elem)e;
		}
		if (v[2]) {
			b->count = parse_expr(l, v[2], "buffer count");
			if (b->count) {
				int before = l->d->errors;
				if (btc_app_eval(app, b->count, -1, &b->count_value, l->d) &&
				    b->count_value <= 0)
					btc_error(
						l->d, btc_yaml_loc(&l->y, v[2]),
						"count of buffer '%s' is %lld; it must be at least 1",
						name, (long long)b->count_value);
				else if (l->d->errors == before && b->count_value > INT64_MAX / 8)
					btc_error(l->d, btc_yaml_loc(&l->y, v[2]),
						  "count of buffer '%s' is too large", name);
			}
		}
		if (v[3]) {
			const char *pl;
			if (btc_yaml_str(&l->y, v[3], "placement", &pl, l->d)) {
				int p;
				for (p = 0; p < 3; p++)
					if (!strcmp(pl, btc_placement_name((enum btc_placement)p)))
						break;
				if (p == 3)
					btc_error(
						l->d, btc_yaml_loc(&l->y, v[3]),
						"unknown placement '%s' (expected unified, host or device)",
						pl);
				else
					b->placement = (enum btc_placement)p;
			}
		}
		if (v[4] && btc_yaml_bool(&l->y, v[4], "scratch", &b->scratch, l->d))
			b->scratch_loc = btc_yaml_loc(&l->y, v[4]);
	}
}

/* A scratch buffer is one stage's working storage (docs/app-format.md):
 * some stage writes it, every stage that reads it writes it too (it carries
 * nothing from one stage to the next), and its placement follows the
 * schedule (unified). */
static void check_scratch(struct loader *l)
{
	const struct btc_app *app = l->app;
	for (int b = 0; b < app->n_buffers; b++) {
		const struct btc_buffer *buf = &app->buffers[b];
		if (!buf->scratch)
			continue;
		if (buf->placement != BTC_PLACE_UNIFIED) {
			btc_error(
				l->d, buf->scratch_loc,
				"scratch buffer '%s' has placement %s; a scratch buffer is unified (the schedule places it)",
				buf->name, btc_placement_name(buf->placement));
			continue;
		}
		bool written = false;
		for (int i = 0; i < app->n_stages; i++) {
			const struct btc_stage *s = &app->stages[i];
			bool w = btc_stage_writes(s, b);
			written |= w;
			if (!w && btc_stage_reads(s, b))
				btc_error(
					l->d, s->loc,
					"stage '%s' reads scratch buffer '%s' but does not write it: a scratch buffer carries nothing from one stage to the next",
					s->name, buf->name);
		}
		if (!written)
			btc_error(l->d, buf->scratch_loc,
				  "scratch buffer '%s' is written by no stage", buf->name);
	}
}

static int *load_buffer_list(struct loader *l, yaml_node_t *n, const char *what, int *count)
{
	int len;
	*count = 0;
	if (!btc_yaml_seq(&l->y, n, what, &len, l->d))
		return NULL;
	if (len > l->app->n_buffers) {
		btc_error(l->d, btc_yaml_loc(&l->y, n), "%s lists %d buffers; the app has %d", what,
			  len, l->app->n_buffers);
		return NULL;
	}
	int *idx = btc_xcalloc((size_t)len, sizeof(int));
	for (int i = 0; i < len; i++) {
		yaml_node_t *item = btc_yaml_item(&l->y, n, i);
		const char *name;
		if (!btc_yaml_str(&l->y, item, what, &name, l->d))
			continue;
		int b = btc_app_buffer_index(l->app, name);
		if (b < 0) {
			const char *near =
				NULL; /* "did you mean": within max(2, a third of the name) edits */
			int best = ((int)strlen(name) / 3 > 2 ? (int)strlen(name) / 3 : 2) + 1;
			for (int k = 0; k < l->app->n_buffers; k++) {
				int dist = btc_str_distance(name, l->app->buffers[k].name);
				if (dist < best)
					best = dist, near = l->app->buffers[k].name;
			}
			btc_error(l->d, btc_yaml_loc(&l->y, item),
				  "undefined buffer '%s' in %s%s%s%s", name, what,
				  near ? " (did you mean '" : "", near ? near : "",
				  near ? "'?)" : "");
			continue;
		}
		for (int j = 0; j < *count; j++)
			if (idx[j] == b) {
				btc_error(l->d, btc_yaml_loc(&l->y, item),
					  "buffer '%s' listed twice in %s", name, what);
				b = -1;
				break;
			}
		if (b >= 0)
			idx[(*count)++] = b;
	}
	return idx;
}

static void check_dispatch_values(struct loader *l, struct btc_vk_dispatch *v)
{
	for (int64_t r = 0; r < v->repeat; r++) {
		for (int j = 0; j < 3; j++) {
			int64_t g;
			if (!v->groups[j])
				continue;
			if (!btc_app_eval(l->app, v->groups[j], r, &g, l->d))
				return;
			if (g < 1 || g > 65535 * 1024) {
				btc_error(
					l->d, v->loc,
					"dispatch group count %lld (dimension %d, i = %lld) is out of range",
					(long long)g, j, (long long)r);
				return;
			}
		}
		for (int j = 0; j < v->n_push; j++) {
			int64_t p;
			if (!btc_app_eval(l->app, v->push[j], r, &p, l->d))
				return;
			if (p < INT32_MIN || p > (int64_t)UINT32_MAX) {
				btc_error(l->d, v->loc,
					  "push constant %d = %lld does not fit in 32 bits", j,
					  (long long)p);
				return;
			}
		}
	}
}

/* A file the app names (a source, a shader; an include directory when
 * dir): it must be there, readable, and a regular file (a directory):
 * a FIFO or device would block the hash and the compiler that read it. */
static void need_path(struct loader *l, struct btc_loc loc, const char *what, const char *path,
		      bool dir)
{
	struct stat st;
	if (stat(path, &st) != 0 || access(path, R_OK) != 0)
		btc_error(l->d, loc, "%s '%s' not found", what, path);
	else if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		btc_error(l->d, loc, "%s '%s' is %s, not a %s", what, path,
			  btrt_file_kind(st.st_mode), dir ? "directory" : "regular file");
}

static void load_vulkan(struct loader *l, struct btc_stage *s, yaml_node_t *n)
{
	static const char *const keys[] = {"!shader", "!groups", "push", "repeat", NULL};
	int len;
	if (!btc_yaml_seq(&l->y, n, "vulkan (a list of dispatches)", &len, l->d))
		return;
	if (len == 0) {
		btc_error(l->d, btc_yaml_loc(&l->y, n), "vulkan needs at least one dispatch");
		return;
	}
	s->vk = btc_xcalloc((size_t)len, sizeof(*s->vk));
	for (int i = 0; i < len; i++) {
		yaml_node_t *item = btc_yaml_item(&l->y, n, i), *v[4];
		struct btc_vk_dispatch *vd = &s->vk[s->n_vk++];
		vd->repeat = 1;
		vd->loc = btc_yaml_loc(&l->y, item);
		int before = l->d->errors;
		btc_yaml_map(&l->y, item, "vulkan dispatch", keys, v, l->d);
		const char *shader;
		if (v[0] && btc_yaml_str(&l->y, v[0], "shader", &shader, l->d)) {
			vd->shader = btc_xstrdup(shader);
			vd->shader_path = resolve(l->app, shader);
			vd->shader_loc = btc_yaml_loc(&l->y, v[0]);
			if (!l->layout_only)
				need_path(l, vd->shader_loc, "shader file", vd->shader_path, false);
		}
		if (v[3])
			btc_yaml_int(&l->y, v[3], "repeat", 1, 1 << 20, &vd->repeat, l->d);
		if (v[1]) {
			int ng;
			if (btc_yaml_seq(&l->y, v[1], "groups", &ng, l->d)) {
				if (ng < 1 || ng > 3)
					btc_error(l->d, btc_yaml_loc(&l->y, v[1]),
						  "groups needs 1 to 3 expressions, not %d", ng);
				else
					for (int j = 0; j < ng; j++)
						vd->groups[j] = parse_expr(
							l, btc_yaml_item(&l->y, v[1], j),
							"group count");
			}
		}
		if (v[2]) {
			int np = 0;
			bool is_list = btc_yaml_seq(&l->y, v[2], "push", &np, l->d);
			if (is_list && np > BTC_APP_MAX_PUSH)
				btc_error(l->d, btc_yaml_loc(&l->y, v[2]),
					  "push needs at most %d constants, not %d",
					  BTC_APP_MAX_PUSH, np);
			else if (is_list) {
				vd->push = btc_xcalloc((size_t)np, sizeof(*vd->push));
				for (int j = 0; j < np; j++)
					if ((vd->push[vd->n_push] = parse_expr(
						     l, btc_yaml_item(&l->y, v[2], j),
						     "push constant")))
						vd->n_push++;
			}
		}
		l->n_dispatches += vd->repeat;
		if (l->n_dispatches > BTC_APP_MAX_DISPATCHES) {
			btc_error(l->d, vd->loc,
				  "too many dispatches (repeats summed over the app exceed %d)",
				  BTC_APP_MAX_DISPATCHES);
			return;
		}
		if (l->d->errors == before)
			check_dispatch_values(l, vd);
	}
}

static void load_stages(struct loader *l, yaml_node_t *n)
{
	static const char *const keys[] = {"!name", "reads",  "writes",      "cpu",
					   "cuda",  "vulkan", "description", NULL};
	struct btc_app *app = l->app;
	int len;
	if (!btc_yaml_seq(&l->y, n, "stages", &len, l->d))
		return;
	if (len == 0) {
		btc_error(l->d, btc_yaml_loc(&l->y, n), "an app needs at least one stage");
		return;
	}
	if (len > BTC_APP_MAX_STAGES) {
		btc_error(l->d, btc_yaml_loc(&l->y, n), "too many stages (%d; at most %d)", len,
			  BTC_APP_MAX_STAGES);
		return;
	}
	app->stages = btc_xcalloc((size_t)len, sizeof(*app->stages));
	for (int i = 0; i < len; i++) {
		yaml_node_t *item = btc_yaml_item(&l->y, n, i), *v[7];
		if (!btc_yaml_map(&l->y, item, "stage", keys, v, l->d) && !v[0])
			continue;
		const char *name, *sym;
		if (!btc_yaml_name(&l->y, v[0], "stage name", BTC_NAME_C_LABEL, &name, l->d))
			continue;
		if (btc_app_stage_index(app, name) >= 0) {
			btc_error(l->d, btc_yaml_loc(&l->y, v[0]), "duplicate stage '%s'", name);
			continue;
		}
		struct btc_stage *s = &app->stages[app->n_stages++];
		s->name = btc_xstrdup(name);
		s->loc = btc_yaml_loc(&l->y, item);
		if (v[1])
			s->reads = load_buffer_list(l, v[1], "reads", &s->n_reads);
		if (v[2])
			s->writes = load_buffer_list(l, v[2], "writes", &s->n_writes);
		if (v[3] && btc_yaml_ident(&l->y, v[3], "cpu kernel symbol", &sym, l->d))
			s->cpu = btc_xstrdup(sym), s->cpu_loc = btc_yaml_loc(&l->y, v[3]);
		if (v[4] && btc_yaml_ident(&l->y, v[4], "cuda launcher symbol", &sym, l->d))
			s->cuda = btc_xstrdup(sym), s->cuda_loc = btc_yaml_loc(&l->y, v[4]);
		if (v[5])
			load_vulkan(l, s, v[5]);
		if (!v[3] && !v[4] && !v[5])
			btc_error(l->d, s->loc,
				  "stage '%s' has no kernel (needs cpu, cuda or vulkan)", name);
	}
}

static char **load_paths(struct loader *l, yaml_node_t *n, const char *what, int *count, bool dirs)
{
	int len;
	*count = 0;
	if (!btc_yaml_seq(&l->y, n, what, &len, l->d))
		return NULL;
	char **out = btc_xcalloc((size_t)len, sizeof(char *));
	for (int i = 0; i < len; i++) {
		yaml_node_t *item = btc_yaml_item(&l->y, n, i);
		const char *p;
		if (!btc_yaml_str(&l->y, item, what, &p, l->d))
			continue;
		char *path = resolve(l->app, p);
		if (!l->layout_only)
			need_path(l, btc_yaml_loc(&l->y, item),
				  dirs ? "include directory" : "source file", path, dirs);
		out[(*count)++] = path;
	}
	return out;
}

static void load_sources(struct loader *l, yaml_node_t *n)
{
	static const char *const keys[] = {"cpu", "cuda", "include", "libs", NULL};
	yaml_node_t *v[4];
	struct btc_app *app = l->app;
	btc_yaml_map(&l->y, n, "sources", keys, v, l->d);
	if (v[0])
		app->cpu_sources = load_paths(l, v[0], "cpu sources", &app->n_cpu_sources, false);
	if (v[1])
		app->cuda_sources = load_paths(l, v[1], "cuda sources", &app->n_cuda_sources,
					       false);
	if (v[2])
		app->includes = load_paths(l, v[2], "include", &app->n_includes, true);
	int len;
	if (v[3] && btc_yaml_seq(&l->y, v[3], "libs", &len, l->d)) {
		app->libs = btc_xcalloc((size_t)len, sizeof(char *));
		for (int i = 0; i < len; i++) {
			const char *lib;
			if (btc_yaml_name(&l->y, btc_yaml_item(&l->y, v[3], i), "library name",
					  BTC_NAME_FILE, &lib, l->d))
				app->libs[app->n_libs++] = btc_xstrdup(lib);
		}
	}
}

static void apply_overrides(struct loader *l, const struct btc_param_override *ov, int n)
{
	for (int i = 0; i < n; i++) {
		int p = btc_app_param_index(l->app, ov[i].name);
		if (p < 0)
			btc_error(l->d, (struct btc_loc){l->app->path, 0, 0},
				  "-D %s: the app has no param '%s'", ov[i].name, ov[i].name);
		else
			l->app->params[p].value = ov[i].value;
	}
}

static struct btc_app *load(const char *path, const char *text,
			    const struct btc_param_override *overrides, int n_overrides,
			    bool layout_only, struct btc_diag *d);

struct btc_app *btc_app_load(const char *path, const char *text,
			     const struct btc_param_override *overrides, int n_overrides,
			     struct btc_diag *d)
{
	struct btc_app *app = load(path, text, overrides, n_overrides, false, d);
	btc_diag_flush(d); /* "... and N more errors" */
	return app;
}

struct btc_app *btc_app_load_layout(const char *path, const struct btc_param_override *overrides,
				    int n_overrides, struct btc_diag *d)
{
	struct btc_app *app = load(path, NULL, overrides, n_overrides, true, d);
	btc_diag_flush(d); /* "... and N more errors" */
	return app;
}

static struct btc_app *load(const char *path, const char *text,
			    const struct btc_param_override *overrides, int n_overrides,
			    bool layout_only, struct btc_diag *d)
{
	static const char *const keys[] = {"!app",  "params",  "!buffers",    "!stages", "io",
					   "input", "sources", "description", NULL};
	struct loader l = {.d = d, .layout_only = layout_only};
	int before = d->errors;

	if (!btc_yaml_load(&l.y, path, text, d))
		return NULL;
	l.app = btc_xcalloc(1, sizeof(*l.app));
	l.app->path = btc_xstrdup(path);
	const char *slash = strrchr(path, '/');
	l.app->dir = slash ? strndup(path, (size_t)(slash - path)) : btc_xstrdup(".");
	if (slash == path) {
		free(l.app->dir);
		l.app->dir = btc_xstrdup("/");
	}

	yaml_node_t *v[8];
	btc_yaml_map(&l.y, btc_yaml_root(&l.y), "app description", keys, v, d);
	const char *s;
	if (v[0] && btc_yaml_name(&l.y, v[0], "app name", BTC_NAME_C_APP, &s, d))
		l.app->name = btc_xstrdup(s);
	if (v[1])
		load_params(&l, v[1]);
	apply_overrides(&l, overrides, n_overrides);
	if (v[2])
		load_buffers(&l, v[2]);
	if (v[3])
		load_stages(&l, v[3]);
	check_scratch(&l);
	if (v[4] && btc_yaml_ident(&l.y, v[4], "io symbol", &s, d))
		l.app->io = btc_xstrdup(s), l.app->io_loc = btc_yaml_loc(&l.y, v[4]);
	if (v[5] && btc_yaml_str(&l.y, v[5], "input", &s, d)) {
		/* The generated meson.build passes the path to C as a string
		 * macro (templates/project.meson.build.in). */
		bool bad = strpbrk(s, "\"\\") != NULL;
		for (const char *c = s; *c; c++)
			bad |= (unsigned char)*c < 0x20 || *c == 0x7f;
		if (bad)
			btc_error(d, btc_yaml_loc(&l.y, v[5]),
				  "input path must not contain '\"', '\\' or control characters");
		else
			l.app->input = resolve(l.app, s);
	}
	if (v[6])
		load_sources(&l, v[6]);

	btc_yaml_free(&l.y);
	if (d->errors != before) {
		btc_app_free(l.app);
		return NULL;
	}
	return l.app;
}
