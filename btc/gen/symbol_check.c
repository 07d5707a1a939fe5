#include "gen/symbol_check.h"

#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/gen.h"
#include "util/out.h"
#include "util/paths.h"
#include "util/proc.h"
#include "util/str.h"

/* The names a set of objects defines (nm's third field). */
struct names {
	char **v;
	int n, cap;
};

static void names_add(struct names *s, const char *name)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = btc_xrealloc(s->v, sizeof(char *) * (size_t)s->cap);
	}
	s->v[s->n++] = btc_xstrdup(name);
}

static bool names_has(const struct names *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return true;
	return false;
}

/* Removes the temporary folder's files, then the folder. */
static void remove_tmp(const char *dir)
{
	DIR *dp = opendir(dir);
	if (dp) {
		struct dirent *e;
		while ((e = readdir(dp)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				char *p = btc_xasprintf("%s/%s", dir, e->d_name);
				unlink(p);
				free(p);
			}
		closedir(dp);
	}
	rmdir(dir);
}

/* The first line of file `path` into buf[n] ("" when none). */
static const char *first_line(const char *path, char *buf, int n)
{
	char *text = btc_read_file(path, NULL);
	snprintf(buf, (size_t)n, "%.*s", text ? (int)strcspn(text, "\n") : 0, text ? text : "");
	free(text);
	return buf;
}

/* Adds the external symbols object obj defines to *defined (nm's "ADDRESS
 * TYPE NAME" lines, written to syms; nm's errors to log). False when nm
 * fails. */
static bool nm_symbols(const char *obj, const char *syms, const char *log, struct names *defined)
{
	char *nm_argv[] = {"nm", "-g", "--defined-only", (char *)obj, NULL};
	struct btc_run_io nm_io = {syms, log, false};
	if (btc_run_io(nm_argv, &nm_io))
		return false;
	FILE *f = fopen(syms, "r");
	char buf[1024];
	while (f && fgets(buf, sizeof(buf), f)) {
		char *name = strrchr(buf, ' '); /* the last field */
		if (!name)
			continue;
		char *nl = strchr(name + 1, '\n');
		if (nl)
			*nl = '\0';
		if (name[1])
			names_add(defined, name + 1);
	}
	if (f)
		fclose(f);
	return f != NULL;
}

/* The files and flags one source's compile uses in the scratch folder tmp:
 * its log, nm's output, the object obj_name, -I of the runtime's headers
 * and -I of tmp (the generated APP_task.h). Free with scratch_free. */
struct scratch {
	char *log, *syms, *obj, *runtime, *self;
};

static struct scratch scratch_paths(const char *tmp, const char *obj_name)
{
	return (struct scratch){
		.log = btc_xasprintf("%s/log", tmp),
		.syms = btc_xasprintf("%s/nm", tmp),
		.obj = btc_xasprintf("%s/%s", tmp, obj_name),
		.runtime = btc_xasprintf("-I%s/runtime/include", btc_source_root()),
		.self = btc_xasprintf("-I%s", tmp),
	};
}

static void scratch_free(struct scratch *sc)
{
	free(sc->log);
	free(sc->syms);
	free(sc->obj);
	free(sc->runtime);
	free(sc->self);
}

/* Compiles src alone into obj: the command pre[0..n_pre), then -Iself
 * (the generated APP_task.h), the app's include folders, -Iruntime and
 * `-o obj src`, its output to log, killed after limit_s seconds. Returns
 * the command's status (0: compiled), *timed_out when it was killed. */
static int compile_alone(const char *const *pre, int n_pre, const struct btc_app *app,
			 const char *self, const char *runtime, const char *obj, const char *src,
			 const char *log, double limit_s, bool *timed_out)
{
	char **argv = btc_xcalloc((size_t)(n_pre + app->n_includes + 6), sizeof(char *));
	int n = 0;
	for (int k = 0; k < n_pre; k++)
		argv[n++] = (char *)pre[k];
	argv[n++] = (char *)self;
	for (int k = 0; k < app->n_includes; k++)
		argv[n++] = btc_xasprintf("-I%s", app->includes[k]);
	argv[n++] = (char *)runtime;
	argv[n++] = "-o";
	argv[n++] = (char *)obj;
	argv[n++] = (char *)src;
	argv[n] = NULL;
	struct btc_run_io io = {log, log, false};
	*timed_out = false;
	int st = btc_run_bounded(argv, &io, limit_s, timed_out);
	for (int k = 0; k < app->n_includes; k++)
		free(argv[n_pre + 1 + k]);
	free(argv);
	return st;
}

/* Compiles each C source to an object in tmp and adds the symbols nm says
 * it defines to *defined. False (after a note) when a source does not
 * compile on its own or a tool is missing: the symbols are then unknown. */
static bool c_symbols(const struct btc_app *app, const char *tmp, struct names *defined,
		      struct btc_diag *d)
{
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
	if (!btc_have_program(cc) || !btc_have_program("nm")) {
		btc_note(d, app->io ? app->io_loc : app->stages[0].loc,
			 "cpu and io symbols not checked (no %s)",
			 btc_have_program(cc) ? "nm" : cc);
		return false;
	}
	struct scratch sc = scratch_paths(tmp, "src.o");
	char *log = sc.log, *syms = sc.syms, *obj = sc.obj, *runtime = sc.runtime, *self = sc.self;
	bool ok = true;
	for (int i = 0; ok && i < app->n_cpu_sources; i++) {
		const char *pre[] = {cc, "-c", "-w", "-fopenmp", "-D_GNU_SOURCE"};
		bool timed_out;
		int st = compile_alone(pre, 5, app, self, runtime, obj, app->cpu_sources[i], log,
				       120, &timed_out);
		if (st) {
			char line[300];
			btc_note(d, (struct btc_loc){app->cpu_sources[i], 0, 0},
				 "cpu and io symbols not checked: this source does not compile "
				 "on its own (%s)",
				 timed_out ? "timed out" : first_line(log, line, sizeof(line)));
			ok = false;
			break;
		}
		if (!nm_symbols(obj, syms, log, defined)) {
			btc_note(d, (struct btc_loc){app->cpu_sources[i], 0, 0},
				 "cpu and io symbols not checked: nm failed");
			ok = false;
			break;
		}
	}
	scratch_free(&sc);
	return ok;
}

/* Is `word` a whole identifier somewhere in `text`? */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
		bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
		if (!before && !after)
			return true;
	}
	return false;
}

static char *joined_sources(char **paths, int n)
{
	struct btc_out o;
	btc_out_init(&o);
	for (int i = 0; i < n; i++) {
		char *text = btc_read_file(paths[i], NULL);
		if (text)
			btc_out_puts(&o, text);
		btc_out_nl(&o);
		free(text);
	}
	char *s = btc_xstrdup(o.buf ? o.buf : "");
	btc_out_free(&o);
	return s;
}

/* "a.c, b.c" of the sources' base names, into a new string. */
static char *source_list(char **paths, int n)
{
	struct btc_out o;
	btc_out_init(&o);
	for (int i = 0; i < n; i++)
		btc_outf(&o, "%s%s", i ? ", " : "", btc_base_name(paths[i]));
	char *s = btc_xstrdup(o.buf ? o.buf : "");
	btc_out_free(&o);
	return s;
}

/* A temporary folder holding the app's generated task header (the
 * sources include it), or NULL after a note naming `what`. Caller removes
 * it (remove_tmp) and frees the path. */
static char *make_tmp(const struct btc_app *app, const char *what, struct btc_diag *d)
{
	const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *tmp = btc_xasprintf("%s/btc-symbols-XXXXXX", base);
	if (!mkdtemp(tmp)) {
		btc_note(d, (struct btc_loc){0}, "%s not checked (%s: %s)", what, tmp,
			 strerror(errno));
		free(tmp);
		return NULL;
	}
	struct btc_out h;
	btc_out_init(&h);
	btc_gen_task_header(&h, app);
	char *hp = btc_xasprintf("%s/%s_task.h", tmp, app->name);
	bool ok = btc_out_write_file(&h, hp, d);
	btc_out_free(&h);
	free(hp);
	if (!ok) {
		remove_tmp(tmp);
		free(tmp);
		return NULL;
	}
	return tmp;
}

/* $NVCC when set (as meson reads it; NULL when it does not run), else
 * nvcc on PATH, else /usr/local/cuda/bin/nvcc; NULL when neither runs. */
static const char *find_nvcc(void)
{
	const char *env = getenv("NVCC");
	if (env && *env)
		return btc_have_program(env) ? env : NULL;
	if (btc_have_program("nvcc"))
		return "nvcc";
	return btc_have_program("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : NULL;
}

/* Compiles each CUDA source once with `nvcc -c` in tmp and adds the
 * symbols nm says it defines to *defined (a launcher has C linkage: its
 * name as the YAML writes it). False (after a note) when a source does not
 * compile on its own or nm fails. */
static bool cuda_symbols(const struct btc_app *app, const char *nvcc, const char *tmp,
			 struct names *defined, struct btc_diag *d)
{
	struct scratch sc = scratch_paths(tmp, "cu.o");
	char *log = sc.log, *syms = sc.syms, *obj = sc.obj, *runtime = sc.runtime, *self = sc.self;
	bool ok = btc_have_program("nm");
	if (!ok)
		btc_note(d, app->stages[0].loc, "cuda launchers checked by text only (no nm)");
	for (int i = 0; ok && i < app->n_cuda_sources; i++) {
		const char *pre[] = {nvcc, "-c", "-w"};
		bool timed_out;
		int st = compile_alone(pre, 3, app, self, runtime, obj, app->cuda_sources[i], log,
				       300, &timed_out);
		char line[300];
		if (st)
			btc_note(d, (struct btc_loc){app->cuda_sources[i], 0, 0},
				 "cuda launchers checked by text only: this source does not "
				 "compile on its own with %s (%s)",
				 nvcc, timed_out ? "timed out" : first_line(log, line, sizeof(line)));
		else if (!nm_symbols(obj, syms, log, defined))
			btc_note(d, (struct btc_loc){app->cuda_sources[i], 0, 0},
				 "cuda launchers checked by text only: nm failed");
		ok = !st && ok;
		unlink(obj);
	}
	scratch_free(&sc);
	return ok;
}

/* Every stage's cuda launcher against the app's CUDA sources. First as a
 * whole word in their text (fast); a launcher the text lacks is looked up
 * in the symbols of the sources compiled with nvcc (each source once,
 * only then: nvcc is slow), so that a name a macro builds is found and a
 * missing one is reported from the compiler's view. Without nvcc the text
 * decides, and one note says so. */
static void check_cuda(const struct btc_app *app, struct btc_diag *d)
{
	char *text = joined_sources(app->cuda_sources, app->n_cuda_sources);
	char *list = source_list(app->cuda_sources, app->n_cuda_sources);
	bool *missing = btc_xcalloc((size_t)app->n_stages + 1, sizeof(bool));
	bool any = false, any_missing = false;
	for (int s = 0; s < app->n_stages; s++) {
		const struct btc_stage *st = &app->stages[s];
		if (!st->cuda)
			continue;
		any = true;
		if (!app->n_cuda_sources)
			btc_error(d, st->cuda_loc,
				  "stage '%s': cuda launcher '%s', but the app lists no cuda "
				  "sources (sources: cuda: [...])",
				  st->name, st->cuda);
		else
			any_missing |= missing[s] = !has_word(text, st->cuda);
	}
	const char *nvcc = any && app->n_cuda_sources ? find_nvcc() : NULL;
	if (any && app->n_cuda_sources && !nvcc)
		btc_note(d, app->stages[0].loc,
			 "CUDA launchers checked by text only (no nvcc: $NVCC, PATH or "
			 "/usr/local/cuda/bin/nvcc)");
	struct names defined = {0};
	bool compiled = false;
	if (nvcc && any_missing) {
		char *tmp = make_tmp(app, "cuda launchers", d);
		if (tmp) {
			compiled = cuda_symbols(app, nvcc, tmp, &defined, d);
			remove_tmp(tmp);
			free(tmp);
		}
	}
	for (int s = 0; s < app->n_stages; s++) {
		const struct btc_stage *st = &app->stages[s];
		if (!missing[s] || (compiled && names_has(&defined, st->cuda)))
			continue;
		btc_error(d, st->cuda_loc,
			  "stage '%s': cuda launcher '%s' is not in the app's cuda sources (%s)",
			  st->name, st->cuda, list);
	}
	for (int i = 0; i < defined.n; i++)
		free(defined.v[i]);
	free(defined.v);
	free(missing);
	free(text);
	free(list);
}

bool btc_gen_check_symbols(const struct btc_app *app, struct btc_diag *d)
{
	int before = d->errors;
	check_cuda(app, d);
	bool any_c = app->io != NULL;
	for (int s = 0; s < app->n_stages; s++)
		any_c |= app->stages[s].cpu != NULL;
	if (!any_c)
		return d->errors == before;
	char *list = source_list(app->cpu_sources, app->n_cpu_sources);
	struct names defined = {0};
	bool known = true;
	if (app->n_cpu_sources) {
		char *tmp = make_tmp(app, "cpu and io symbols", d);
		known = tmp && c_symbols(app, tmp, &defined, d);
		if (tmp)
			remove_tmp(tmp);
		free(tmp);
	}
	for (int s = 0; known && s < app->n_stages; s++) {
		const struct btc_stage *st = &app->stages[s];
		if (!st->cpu || names_has(&defined, st->cpu))
			continue;
		if (!app->n_cpu_sources)
			btc_error(d, st->cpu_loc,
				  "stage '%s': cpu kernel '%s', but the app lists no cpu sources "
				  "(sources: cpu: [...])",
				  st->name, st->cpu);
		else
			btc_error(d, st->cpu_loc,
				  "stage '%s': cpu kernel '%s' is not defined in the app's cpu "
				  "sources (%s)",
				  st->name, st->cpu, list);
	}
	if (known && app->io && !names_has(&defined, app->io))
		btc_error(d, app->io_loc,
			  "io symbol '%s' is not defined in the app's cpu sources (%s%s)", app->io,
			  list, app->n_cpu_sources ? "" : "none");
	for (int i = 0; i < defined.n; i++)
		free(defined.v[i]);
	free(defined.v);
	free(list);
	return d->errors == before;
}
