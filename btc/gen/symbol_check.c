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
	char *log = btc_xasprintf("%s/log", tmp), *syms = btc_xasprintf("%s/nm", tmp);
	char *obj = btc_xasprintf("%s/src.o", tmp);
	char *runtime = btc_xasprintf("-I%s/runtime/include", btc_source_root());
	char *self = btc_xasprintf("-I%s", tmp);
	bool ok = true;
	for (int i = 0; ok && i < app->n_cpu_sources; i++) {
		char **argv = btc_xcalloc((size_t)app->n_includes + 16, sizeof(char *));
		char **inc = btc_xcalloc((size_t)app->n_includes + 1, sizeof(char *));
		int n = 0, n_inc = 0;
		argv[n++] = (char *)cc;
		argv[n++] = "-c";
		argv[n++] = "-w";
		argv[n++] = "-fopenmp";
		argv[n++] = "-D_GNU_SOURCE";
		argv[n++] = self;
		for (int k = 0; k < app->n_includes; k++)
			argv[n++] = inc[n_inc++] = btc_xasprintf("-I%s", app->includes[k]);
		argv[n++] = runtime;
		argv[n++] = "-o";
		argv[n++] = obj;
		argv[n++] = app->cpu_sources[i];
		argv[n] = NULL;
		struct btc_run_io io = {log, log, false};
		bool timed_out = false;
		int st = btc_run_bounded(argv, &io, 120, &timed_out);
		for (int k = 0; k < n_inc; k++)
			free(inc[k]);
		free(inc);
		free(argv);
		if (st) {
			char line[300];
			btc_note(d, (struct btc_loc){app->cpu_sources[i], 0, 0},
				 "cpu and io symbols not checked: this source does not compile "
				 "on its own (%s)",
				 timed_out ? "timed out" : first_line(log, line, sizeof(line)));
			ok = false;
			break;
		}
		char *nm_argv[] = {"nm", "-g", "--defined-only", obj, NULL};
		struct btc_run_io nm_io = {syms, log, false};
		if (btc_run_io(nm_argv, &nm_io)) {
			btc_note(d, (struct btc_loc){app->cpu_sources[i], 0, 0},
				 "cpu and io symbols not checked: nm failed");
			ok = false;
			break;
		}
		FILE *f = fopen(syms, "r");
		char buf[1024], type[8], name[512];
		while (f && fgets(buf, sizeof(buf), f)) {
			/* "ADDRESS TYPE NAME" */
			if (sscanf(buf, "%*s %7s %511s", type, name) == 2)
				names_add(defined, name);
		}
		if (f)
			fclose(f);
	}
	free(log);
	free(syms);
	free(obj);
	free(runtime);
	free(self);
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

static void check_cuda(const struct btc_app *app, struct btc_diag *d)
{
	char *text = joined_sources(app->cuda_sources, app->n_cuda_sources);
	char *list = source_list(app->cuda_sources, app->n_cuda_sources);
	for (int s = 0; s < app->n_stages; s++) {
		const struct btc_stage *st = &app->stages[s];
		if (!st->cuda)
			continue;
		if (!app->n_cuda_sources)
			btc_error(d, st->cuda_loc,
				  "stage '%s': cuda launcher '%s', but the app lists no cuda "
				  "sources (sources: cuda: [...])",
				  st->name, st->cuda);
		else if (!has_word(text, st->cuda))
			btc_error(d, st->cuda_loc,
				  "stage '%s': cuda launcher '%s' is not in the app's cuda sources "
				  "(%s)",
				  st->name, st->cuda, list);
	}
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
		const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		char *tmp = btc_xasprintf("%s/btc-symbols-XXXXXX", base);
		if (!mkdtemp(tmp)) {
			btc_note(d, (struct btc_loc){0}, "cpu and io symbols not checked (%s: %s)",
				 tmp, strerror(errno));
			known = false;
		} else {
			struct btc_out h;
			btc_out_init(&h);
			btc_gen_task_header(&h, app);
			char *hp = btc_xasprintf("%s/%s_task.h", tmp, app->name);
			known = btc_out_write_file(&h, hp, d) && c_symbols(app, tmp, &defined, d);
			btc_out_free(&h);
			free(hp);
			remove_tmp(tmp);
		}
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
