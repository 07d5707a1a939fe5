/* Writes a self-contained generated project: the pipeline sources, a
 * meson.build, the app's kernel sources and a copy of the runtime. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "btc_config.h"
#include "util/paths.h"
#include "gen/gen.h"
#include "gen/sections.h"
#include "util/str.h"

static char *real(const char *path)
{
	char buf[PATH_MAX];
	return realpath(path, buf) ? btc_xstrdup(buf) : btc_xstrdup(path);
}

/* Longest common directory of a and b (both absolute). */
static void common_dir(char *a, const char *b)
{
	size_t n = 0, last = 0;
	while (a[n] && a[n] == b[n]) {
		if (a[n] == '/')
			last = n;
		n++;
	}
	if ((a[n] == '\0' || a[n] == '/') && (b[n] == '\0' || b[n] == '/'))
		last = n;
	a[last ? last : 1] = '\0';
}

/* Path of `to` relative to directory `from` (both absolute, normalised). */
static char *relative(const char *from, const char *to)
{
	size_t i = 0, last = 0;
	while (from[i] && from[i] == to[i]) {
		if (from[i] == '/')
			last = i;
		i++;
	}
	if (!from[i] && (to[i] == '/' || !to[i]))
		last = i;
	struct btc_out o;
	btc_out_init(&o);
	for (const char *p = from + last; *p; p++)
		if (*p == '/')
			btc_out_puts(&o, "../");
	const char *rest = to + last + (to[last] == '/');
	btc_out_puts(&o, *rest ? rest : ".");
	return o.buf;
}

static void collect(struct btc_gen_files *f, const struct btc_app *app, const char *out_abs)
{
	char *all[1024];
	int n = 0;
	for (int i = 0; i < app->n_cpu_sources && n < 1024; i++)
		all[n++] = real(app->cpu_sources[i]);
	for (int i = 0; i < app->n_cuda_sources && n < 1024; i++)
		all[n++] = real(app->cuda_sources[i]);
	for (int i = 0; i < app->n_includes && n < 1024; i++)
		all[n++] = real(app->includes[i]);
	f->root = n ? btc_dir_name(all[0]) : real(app->dir);
	for (int i = 0; i < n; i++) {
		char *d = i < app->n_cpu_sources + app->n_cuda_sources ? btc_dir_name(all[i])
								       : btc_xstrdup(all[i]);
		common_dir(f->root, d);
		free(d);
	}
	size_t rl = strlen(f->root);
	int k = 0;
	f->rel_sources = btc_xcalloc((size_t)app->n_cpu_sources + 1, sizeof(char *));
	f->rel_cuda = btc_xcalloc((size_t)app->n_cuda_sources + 1, sizeof(char *));
	f->rel_includes = btc_xcalloc((size_t)app->n_includes + 1, sizeof(char *));
	for (int i = 0; i < app->n_cpu_sources; i++, k++)
		f->rel_sources[i] = btc_xstrdup(all[k] + rl + (all[k][rl] == '/'));
	for (int i = 0; i < app->n_cuda_sources; i++, k++)
		f->rel_cuda[i] = btc_xstrdup(all[k] + rl + (all[k][rl] == '/'));
	for (int i = 0; i < app->n_includes; i++, k++)
		f->rel_includes[i] = btc_xstrdup(all[k][rl] ? all[k] + rl + 1 : ".");
	for (int i = 0; i < n; i++)
		free(all[i]);
	if (app->input) {
		/* An input the YAML names by an absolute path stays absolute (it
		 * must not break when the output folder moves); one relative to
		 * the YAML (resolved under its folder) becomes relative to the
		 * output folder. */
		size_t dl = strlen(app->dir);
		bool absolute = app->input[0] == '/' &&
				!(app->dir[0] == '/' && !strncmp(app->input, app->dir, dl) &&
				  app->input[dl] == '/');
		char *in = real(app->input);
		f->rel_input = absolute ? btc_xstrdup(in) : relative(out_abs, in);
		free(in);
	}
}

static void free_files(struct btc_gen_files *f, const struct btc_app *app)
{
	for (int i = 0; i < app->n_cpu_sources; i++)
		free(f->rel_sources[i]);
	for (int i = 0; i < app->n_cuda_sources; i++)
		free(f->rel_cuda[i]);
	for (int i = 0; i < app->n_includes; i++)
		free(f->rel_includes[i]);
	free(f->rel_sources);
	free(f->rel_cuda);
	free(f->rel_includes);
	free(f->rel_input);
	free(f->root);
}

/* Copies file src to dst through the output context (so unchanged files
 * keep their timestamps). */
static bool copy_file(const char *src, const char *dst, struct btc_diag *d)
{
	size_t len;
	char *text = btc_read_file(src, &len);
	if (!text) {
		btc_error(d, (struct btc_loc){src, 0, 0}, "cannot read: %s", strerror(errno));
		return false;
	}
	struct btc_out o = {.buf = text, .len = len, .cap = len + 1};
	char *dir = btc_dir_name(dst);
	bool ok = btc_mkdirs(dir, d) && btc_out_write_file(&o, dst, d);
	free(dir);
	free(text);
	return ok;
}

/* Copies the regular files of directory src (not recursive) whose names
 * end in one of the NULL-terminated `exts` (NULL: all) into dst. */
static bool copy_dir(const char *src, const char *dst, const char *const *exts, struct btc_diag *d)
{
	DIR *dir = opendir(src);
	if (!dir) {
		btc_error(d, (struct btc_loc){src, 0, 0}, "cannot open directory: %s",
			  strerror(errno));
		return false;
	}
	char *names[512];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dir)) && n < 512) {
		if (e->d_name[0] == '.')
			continue;
		bool want = !exts;
		size_t len = strlen(e->d_name);
		for (const char *const *x = exts; x && *x; x++) {
			size_t xl = strlen(*x);
			want |= len >= xl && !strcmp(e->d_name + len - xl, *x);
		}
		if (want)
			names[n++] = btc_xstrdup(e->d_name);
	}
	closedir(dir);
	qsort(names, (size_t)n, sizeof(char *), btc_str_qsort_cmp);
	bool ok = true;
	for (int i = 0; i < n; i++) {
		char *s = btc_xasprintf("%s/%s", src, names[i]);
		char *t = btc_xasprintf("%s/%s", dst, names[i]);
		struct stat st;
		if (stat(s, &st) == 0 && S_ISREG(st.st_mode))
			ok &= copy_file(s, t, d);
		free(s);
		free(t);
		free(names[i]);
	}
	return ok;
}

static bool write_out(struct btc_out *o, const char *dir, const char *name, struct btc_diag *d)
{
	char *path = btc_xasprintf("%s/%s", dir, name);
	bool ok = btc_out_write_file(o, path, d);
	free(path);
	btc_out_free(o);
	return ok;
}

bool btc_gen_project(const struct btc_gen_ctx *ctx, const char *out_dir, struct btc_diag *d)
{
	const struct btc_app *app = ctx->app;
	if (!btc_mkdirs(out_dir, d))
		return false;
	char *out_abs = real(out_dir);
	struct btc_gen_files files = {0};
	collect(&files, app, out_abs);
	int before = d->errors;
	struct btc_out o;
	char *name;

	btc_out_init(&o);
	btc_gen_task_header(&o, app);
	name = btc_xasprintf("%s_task.h", app->name);
	write_out(&o, out_dir, name, d);
	free(name);

	btc_out_init(&o);
	btc_gen_spirv_header(&o, ctx);
	name = btc_xasprintf("%s_spirv.h", app->name);
	write_out(&o, out_dir, name, d);
	free(name);

	btc_out_init(&o);
	if (btc_gen_pipeline_c(&o, ctx, d))
		write_out(&o, out_dir, "pipeline.c", d);
	else
		btc_out_free(&o);

	btc_out_init(&o);
	if (btc_gen_profiler_c(&o, ctx, d))
		write_out(&o, out_dir, "profiler.c", d);
	else
		btc_out_free(&o);

	btc_out_init(&o);
	btc_gen_schedule_yaml(&o, ctx);
	write_out(&o, out_dir, "schedule.yaml", d);

	btc_out_init(&o);
	if (btc_gen_meson_build(&o, ctx, &files, d))
		write_out(&o, out_dir, "meson.build", d);
	else
		btc_out_free(&o);

	btc_out_init(&o);
	if (btc_gen_meson_options(&o, ctx, &files, d))
		write_out(&o, out_dir, "meson_options.txt", d);
	else
		btc_out_free(&o);

	/* The app's kernel sources, keeping their layout under app/. */
	for (int i = 0; i < app->n_cpu_sources; i++) {
		char *dst = btc_xasprintf("%s/app/%s", out_dir, files.rel_sources[i]);
		copy_file(app->cpu_sources[i], dst, d);
		free(dst);
	}
	for (int i = 0; i < app->n_cuda_sources; i++) {
		char *dst = btc_xasprintf("%s/app/%s", out_dir, files.rel_cuda[i]);
		copy_file(app->cuda_sources[i], dst, d);
		free(dst);
	}
	static const char *const header_exts[] = {".h", ".cuh", NULL};
	for (int i = 0; i < app->n_includes; i++) {
		char *dst = btc_xasprintf("%s/app/%s", out_dir, files.rel_includes[i]);
		copy_dir(app->includes[i], dst, header_exts, d);
		free(dst);
	}

	/* The runtime: headers, sources and their meson.build. */
	char *rt = btc_xasprintf("%s/runtime", btc_source_root());
	char *src = btc_xasprintf("%s/include", rt),
	     *dst = btc_xasprintf("%s/btrt/include", out_dir);
	static const char *const rt_exts[] = {".h", NULL};
	copy_dir(src, dst, rt_exts, d);
	free(src);
	free(dst);
	src = btc_xasprintf("%s/src", rt);
	dst = btc_xasprintf("%s/btrt/src", out_dir);
	static const char *const rt_src_exts[] = {".c", ".cu", ".h", "meson.build", NULL};
	copy_dir(src, dst, rt_src_exts, d);
	free(src);
	free(dst);
	btc_out_init(&o);
	btc_outl(&o, "# Generated by btc %s: the runtime (btrt %d.%d) copied from btc's runtime/.",
		 BTC_VERSION_SHORT, BTC_RUNTIME_MAJOR, BTC_RUNTIME_MINOR);
	btc_outl(&o, "btrt_inc = include_directories('include')");
	btc_outl(&o, "subdir('src')");
	dst = btc_xasprintf("%s/btrt", out_dir);
	write_out(&o, dst, "meson.build", d);
	free(dst);
	free(rt);

	free_files(&files, app);
	free(out_abs);
	return d->errors == before;
}

bool btc_gen_write_project(struct btc_gen_ctx *ctx, const char *out_dir, struct btc_diag *d)
{
	if (btc_gen_device_has(ctx->dev, BTC_BACKEND_VULKAN) && !btc_gen_compile_shaders(ctx, d))
		return false;
	return btc_gen_project(ctx, out_dir, d);
}
