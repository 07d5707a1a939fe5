#include "gen/shader.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shaderc/shaderc.h>

#include "util/out.h"
#include "util/num.h"

struct include_ctx {
	const char *virtual_name;
	const char *virtual_text;
};

/* One resolved include: the result shaderc reads plus what we must free. */
struct include_item {
	shaderc_include_result result;
	char *name;
	char *text;
};

static shaderc_include_result *resolve(void *user, const char *requested, int type,
				       const char *requesting, size_t depth)
{
	(void)type;
	(void)depth;
	struct include_ctx *ctx = user;
	struct include_item *it = btc_xcalloc(1, sizeof(*it));
	if (ctx->virtual_name && !strcmp(requested, ctx->virtual_name)) {
		it->name = btc_xstrdup(requested);
		it->text = btc_xstrdup(ctx->virtual_text);
	} else {
		const char *slash = strrchr(requesting, '/');
		it->name = slash ? btc_xasprintf("%.*s/%s", (int)(slash - requesting), requesting,
						 requested)
				 : btc_xstrdup(requested);
		it->text = btc_read_file(it->name, NULL);
		if (!it->text) {
			/* shaderc reports an empty source name as a failed include,
			 * with the message in the content. */
			it->text = btc_xasprintf("cannot read included file '%s': %s", it->name,
						 strerror(errno));
			free(it->name);
			it->name = btc_xstrdup("");
		}
	}
	it->result.source_name = it->name;
	it->result.source_name_length = strlen(it->name);
	it->result.content = it->text;
	it->result.content_length = strlen(it->text);
	it->result.user_data = it;
	return &it->result;
}

static void release(void *user, shaderc_include_result *r)
{
	(void)user;
	struct include_item *it = r->user_data;
	free(it->name);
	free(it->text);
	free(it);
}

/* The column of glslang's message `msg` on line `lineno` of `file`: where
 * the message's first quoted token ('BINDING_x' : undeclared identifier)
 * starts on that line; 1 when it cannot be found. */
static int message_col(const char *file, int lineno, const char *msg)
{
	const char *q = strchr(msg, '\'');
	const char *e = q ? strchr(q + 1, '\'') : NULL;
	if (!e || e == q + 1 || lineno < 1)
		return 1;
	char *text = btc_read_file(file, NULL);
	if (!text)
		return 1;
	const char *line = text;
	for (int i = 1; i < lineno && line; i++) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	int col = 1;
	if (line) {
		size_t len = strcspn(line, "\n");
		char *tok = btc_xasprintf("%.*s", (int)(e - q - 1), q + 1);
		char *l = btc_xasprintf("%.*s", (int)len, line);
		char *at = strstr(l, tok);
		if (at)
			col = (int)(at - l) + 1;
		free(tok);
		free(l);
	}
	free(text);
	return col;
}

/* shaderc's log has lines "file:line: error: msg"; report each one, with
 * the column where the message's token can be found (else 1). */
static void report_log(const char *path, const char *log, struct btc_diag *d)
{
	int reported = 0, follow_on = 0, prev_line = -1;
	char *prev_file = NULL;
	for (const char *p = log; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = btc_xasprintf("%.*s", (int)len, p);
		char *e = strstr(line, ": error: ");
		if (e) {
			/* Keep "file:line" as the location, the rest as the message. */
			*e = '\0';
			char *colon = strrchr(line, ':');
			long ln = 0; /* glslang's "file:LINE"; 0 when not a number */
			if (colon && !btc_parse_int(colon + 1, 1, INT_MAX, &ln))
				ln = 0;
			int lineno = (int)ln;
			if (colon)
				*colon = '\0';
			if (lineno > 0 && lineno == prev_line && prev_file &&
			    !strcmp(prev_file, line)) {
				/* glslang's cascade after the first error of a line */
				follow_on++;
			} else {
				int col = lineno > 0 ? message_col(line, lineno, e + 9) : 0;
				btc_error(d, (struct btc_loc){line, lineno, col}, "%s", e + 9);
				reported++;
				free(prev_file);
				prev_file = btc_xstrdup(line);
				prev_line = lineno;
			}
		}
		free(line);
		p += len + (nl != NULL);
	}
	if (follow_on)
		btc_note(d, (struct btc_loc){0},
			 "%d more error%s on the same line follow from the first", follow_on,
			 follow_on == 1 ? "" : "s");
	free(prev_file);
	if (!reported)
		btc_error(d, (struct btc_loc){path, 0, 0}, "shader compilation failed: %s", log);
}

/* glslang prints some failures (a shader without #version: its whole
 * built-ins text, ~4,500 lines) to stdout itself. Its stdout goes to a
 * temporary file while shaderc runs; this starts that (returns the saved
 * stdout fd, or -1 when stdout is left as it is). */
static int capture_stdout(FILE **tmp)
{
	fflush(stdout);
	*tmp = tmpfile();
	int saved = *tmp ? dup(STDOUT_FILENO) : -1;
	if (saved < 0 || dup2(fileno(*tmp), STDOUT_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		if (*tmp)
			fclose(*tmp);
		*tmp = NULL;
		return -1;
	}
	return saved;
}

/* Ends capture_stdout; reports what glslang printed as notes on stderr
 * (the diagnostics stream), trimmed to its first lines and a count. */
static void release_stdout(int saved, FILE *tmp, const char *path, struct btc_diag *d)
{
	if (saved < 0)
		return;
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	char *line = NULL;
	size_t cap = 0;
	int n = 0, shown = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, tmp)) >= 0) {
		n++;
		line[strcspn(line, "\r\n")] = '\0';
		if (shown < 3 && line[0]) {
			btc_note(d, (struct btc_loc){path, 0, 0}, "glslang: %s", line);
			shown++;
		}
	}
	if (n > shown)
		btc_note(d, (struct btc_loc){path, 0, 0},
			 "glslang printed %d more line%s of its own text (not shown)", n - shown,
			 n - shown == 1 ? "" : "s");
	free(line);
	fclose(tmp);
}

bool btc_shader_compile(const char *path, const char *virtual_name, const char *virtual_text,
			uint32_t **words, size_t *n_words, struct btc_diag *d)
{
	size_t len;
	char *src = btc_read_file(path, &len);
	if (!src) {
		btc_error(d, (struct btc_loc){path, 0, 0}, "cannot read shader: %s",
			  strerror(errno));
		return false;
	}
	shaderc_compiler_t compiler = shaderc_compiler_initialize();
	shaderc_compile_options_t opts = shaderc_compile_options_initialize();
	if (!compiler || !opts)
		btc_panic("shaderc initialisation failed");
	struct include_ctx ctx = {virtual_name, virtual_text};
	shaderc_compile_options_set_include_callbacks(opts, resolve, release, &ctx);
	shaderc_compile_options_set_target_env(opts, shaderc_target_env_vulkan,
					       shaderc_env_version_vulkan_1_1);
	shaderc_compile_options_set_optimization_level(opts,
						       shaderc_optimization_level_performance);
	FILE *tmp;
	int saved = capture_stdout(&tmp);
	shaderc_compilation_result_t r = shaderc_compile_into_spv(
		compiler, src, len, shaderc_compute_shader, path, "main", opts);
	bool ok = shaderc_result_get_compilation_status(r) == shaderc_compilation_status_success;
	if (!ok) {
		report_log(path, shaderc_result_get_error_message(r), d);
	} else {
		size_t bytes = shaderc_result_get_length(r);
		*n_words = bytes / 4;
		*words = btc_xmalloc(bytes);
		memcpy(*words, shaderc_result_get_bytes(r), bytes);
	}
	release_stdout(saved, tmp, path, d); /* after the errors it explains */
	shaderc_result_release(r);
	shaderc_compile_options_release(opts);
	shaderc_compiler_release(compiler);
	free(src);
	return ok;
}
