/* Shaders against their stages (gen/shader_check.h). */
#include "gen/shader_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "gen/reflect.h"
#include "gen/shader.h"
#include "util/out.h"

/* One shader file: compiled once, reflected, its source kept to place
 * diagnostics. */
struct checked_shader {
	const char *path;
	bool compiled;
	struct btc_spirv_info info;
	char *src;
};

/* 1-based line:col of the first occurrence of `needle` in src, as a whole
 * word; {path, 1, 1} when it is not there. */
static struct btc_loc find_in_source(const char *path, const char *src, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = src ? strstr(src, needle) : NULL; p; p = strstr(p + 1, needle)) {
		char after = p[n], before = p > src ? p[-1] : ' ';
		if ((after == '_' || (after >= '0' && after <= '9') ||
		     ((after | 32) >= 'a' && (after | 32) <= 'z')) ||
		    (before == '_' || ((before | 32) >= 'a' && (before | 32) <= 'z')))
			continue;
		int line = 1, col = 1;
		for (const char *q = src; q < p; q++, col++)
			if (*q == '\n')
				line++, col = 0;
		return (struct btc_loc){path, line, col};
	}
	return (struct btc_loc){path, 1, 1};
}

/* Where binding b is declared: BINDING_<buffer>, else "binding = b". */
static struct btc_loc binding_loc(const struct btc_app *app, const struct checked_shader *sh,
				  uint32_t b)
{
	if (b < (uint32_t)app->n_buffers) {
		char *macro = btc_xasprintf("BINDING_%s", app->buffers[b].name);
		struct btc_loc l = find_in_source(sh->path, sh->src, macro);
		free(macro);
		if (l.line > 1 || l.col > 1)
			return l;
	}
	char lit[40];
	snprintf(lit, sizeof(lit), "binding = %u", b);
	struct btc_loc l = find_in_source(sh->path, sh->src, lit);
	if (l.line == 1 && l.col == 1) {
		snprintf(lit, sizeof(lit), "binding=%u", b);
		l = find_in_source(sh->path, sh->src, lit);
	}
	return l;
}

static bool in_list(const int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Checks dispatch k of stage s; per buffer, marks where it is bound
 * (at[b], file NULL: not bound) and whether any binding may write it. */
static void check_dispatch(const struct btc_app *app, const struct btc_stage *s, int k,
			   const struct checked_shader *sh, struct btc_loc *at, bool *writable,
			   struct btc_diag *d)
{
	const struct btc_vk_dispatch *vd = &s->vk[k];
	for (int i = 0; i < sh->info.n_bindings; i++) {
		const struct btc_spirv_binding *bi = &sh->info.bindings[i];
		struct btc_loc l = binding_loc(app, sh, bi->binding);
		if (bi->set != 0) {
			btc_error(d, l, "binding %u is in descriptor set %u; btc binds set 0 only",
				  bi->binding, bi->set);
			continue;
		}
		if (bi->binding >= (uint32_t)app->n_buffers) {
			btc_error(d, l, "binding %u is not a buffer of app '%s' (bindings 0..%d)",
				  bi->binding, app->name, app->n_buffers - 1);
			continue;
		}
		int b = (int)bi->binding;
		if (!in_list(s->reads, s->n_reads, b) && !in_list(s->writes, s->n_writes, b)) {
			btc_error(
				d, l,
				"shader binds buffer '%s' (BINDING_%s), which stage '%s' does not "
				"declare: add it to the stage's reads or writes (the runtime "
				"synchronises only declared buffers)",
				app->buffers[b].name, app->buffers[b].name, s->name);
			continue;
		}
		if (!at[b].file || (!bi->writable && writable[b]))
			at[b] = l;
		writable[b] |= bi->writable;
	}
	if (sh->info.push_members >= 0 && sh->info.push_members != vd->n_push)
		btc_error(d, find_in_source(sh->path, sh->src, "push_constant"),
			  "push-constant block has %d member%s, but dispatch %d of stage '%s' "
			  "pushes %d value%s (push: in the YAML; one uint member per value)",
			  sh->info.push_members, sh->info.push_members == 1 ? "" : "s", k, s->name,
			  vd->n_push, vd->n_push == 1 ? "" : "s");
	else if (sh->info.push_members < 0 && vd->n_push > 0)
		btc_warning(d, (struct btc_loc){sh->path, 1, 1},
			    "shader uses no push-constant block, but dispatch %d of stage '%s' "
			    "pushes %d value%s",
			    k, s->name, vd->n_push, vd->n_push == 1 ? "" : "s");
}

/* The stage-wide rules on readonly: written buffers must be writable,
 * buffers only read should be readonly. */
static void check_access(const struct btc_app *app, const struct btc_stage *s,
			 const struct btc_loc *at, const bool *writable, struct btc_diag *d)
{
	for (int b = 0; b < app->n_buffers; b++) {
		if (!at[b].file)
			continue;
		const char *name = app->buffers[b].name;
		struct btc_loc l = at[b];
		if (in_list(s->writes, s->n_writes, b) && !writable[b])
			btc_error(d, l,
				  "buffer '%s' is declared readonly in the shader, but stage '%s' "
				  "writes it",
				  name, s->name);
		else if (!in_list(s->writes, s->n_writes, b) && writable[b])
			btc_warning(d, l,
				    "stage '%s' only reads buffer '%s': declare it readonly in the "
				    "shader (or add it to the stage's writes)",
				    s->name, name);
	}
}

static struct checked_shader *compile_once(struct checked_shader *shs, int *n, const char *path,
					   const char *layout_name, const char *layout,
					   struct btc_diag *d)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(shs[i].path, path))
			return &shs[i];
	struct checked_shader *sh = &shs[(*n)++];
	sh->path = path;
	sh->info.push_members = -1;
	sh->src = btc_read_file(path, NULL);
	uint32_t *words = NULL;
	size_t n_words = 0;
	sh->compiled = btc_shader_compile(path, layout_name, layout, &words, &n_words, d);
	if (sh->compiled && !btc_spirv_reflect(words, n_words, &sh->info)) {
		btc_error(d, (struct btc_loc){path, 0, 0}, "shaderc produced malformed SPIR-V");
		sh->compiled = false;
	}
	free(words);
	return sh;
}

bool btc_gen_check_shaders(const struct btc_app *app, struct btc_diag *d)
{
	int cap = 0;
	for (int s = 0; s < app->n_stages; s++)
		cap += app->stages[s].n_vk;
	if (!cap)
		return true;
	struct checked_shader *shs = btc_xcalloc((size_t)cap, sizeof(*shs));
	int n = 0;
	struct btc_out layout;
	btc_out_init(&layout);
	btc_gen_layout_glsl(&layout, app);
	char *layout_name = btc_xasprintf("%s_layout.glsl", app->name);
	int before = d->errors;
	struct btc_loc *at = btc_xcalloc((size_t)app->n_buffers + 1, sizeof(*at));
	bool *writable = btc_xcalloc((size_t)app->n_buffers + 1, sizeof(bool));
	for (int si = 0; si < app->n_stages; si++) {
		const struct btc_stage *s = &app->stages[si];
		if (!s->n_vk)
			continue;
		memset(at, 0, (size_t)app->n_buffers * sizeof(*at));
		memset(writable, 0, (size_t)app->n_buffers * sizeof(bool));
		int reported = d->errors + d->warnings;
		bool all = true;
		for (int k = 0; k < s->n_vk; k++) {
			int had = n;
			struct checked_shader *sh = compile_once(shs, &n, s->vk[k].shader_path,
								 layout_name, layout.buf, d);
			if (!sh->compiled) {
				if (n > had || d->errors + d->warnings > reported)
					btc_note(d, s->loc,
						 "in the shader of stage '%s' (vulkan dispatch %d)",
						 s->name, k);
				reported = d->errors + d->warnings;
				all = false;
				continue;
			}
			check_dispatch(app, s, k, sh, at, writable, d);
		}
		if (all)
			check_access(app, s, at, writable, d);
		if (d->errors + d->warnings > reported)
			btc_note(d, s->loc, "in the shader%s of stage '%s'", s->n_vk > 1 ? "s" : "",
				 s->name);
	}
	for (int i = 0; i < n; i++) {
		btc_spirv_info_free(&shs[i].info);
		free(shs[i].src);
	}
	free(shs);
	free(at);
	free(writable);
	free(layout_name);
	btc_out_free(&layout);
	return d->errors == before;
}
