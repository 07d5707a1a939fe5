/* Diagnostics: user errors as `file:line:col: error: message`, counted,
 * reported all at once; internal bugs through btc_panic
 * (docs/conventions.md, "Errors and diagnostics"). */
#ifndef BTC_DIAG_H
#define BTC_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Status codes of btc-core functions that return one (the optimizer's
 * solvers), defined once with their text (X-macro); btc_strerror() gives
 * the text. Most functions report through struct btc_diag and return
 * bool instead. */
#define BTC_STATUS_LIST(X)                                        \
	X(BTC_OK, "success")                                      \
	X(BTC_ERR_TABLE, "invalid profiling table")               \
	X(BTC_ERR_UNSAT, "no schedule satisfies the constraints") \
	X(BTC_ERR_LIMIT, "problem too large")                     \
	X(BTC_ERR_USAGE, "invalid usage")

enum btc_status {
#define BTC_X_ENUM(code, text) code,
	BTC_STATUS_LIST(BTC_X_ENUM)
#undef BTC_X_ENUM
		BTC_STATUS_COUNT
};

/* Human-readable text of a status code (static storage; never NULL). */
const char *btc_strerror(enum btc_status status);

/* A source position, 1-based. line == 0 means "no position". */
struct btc_loc {
	const char *file; /* borrowed; must outlive the diagnostic call */
	int line;
	int col;
};

/* Sink for user diagnostics. Messages are formatted immediately and written
 * to `stream` (stderr by default); the last message is also kept in `last`
 * so tests can assert the exact text. Not thread-safe. */
struct btc_diag {
	FILE *stream; /* NULL: collect silently (count + last only) */
	int errors;   /* number of errors reported so far */
	int warnings;
	char first[512]; /* first formatted diagnostic, without newline */
	char last[512];  /* last formatted diagnostic, without newline */
	/* per-file cap: errors in one file past BTC_DIAG_MAX_PER_FILE are
	 * counted (and kept in `last`) but not printed; btc_diag_flush prints
	 * "FILE: ... and N more errors" */
	char cap_file[256];
	int cap_count, cap_hidden;
	int hiding; /* the last error was hidden: hide its notes too */
};

/* Errors printed per file before the rest are summed up in one line. */
#define BTC_DIAG_MAX_PER_FILE 20

/* Prints the "... and N more errors" line of the file whose errors were
 * capped, if any, and starts a new count. Call at the end of a file's
 * loader (btc_table_load, the YAML loaders); reporting an error in
 * another file calls it too. */
void btc_diag_flush(struct btc_diag *d);

/* Initialises d to write to stream (may be NULL for silent collection). */
void btc_diag_init(struct btc_diag *d, FILE *stream);

/* Reports `loc: error: fmt...` (positions omitted when loc.line == 0, and
 * the file omitted when loc.file == NULL). Always increments d->errors. */
void btc_error(struct btc_diag *d, struct btc_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void btc_verror(struct btc_diag *d, struct btc_loc loc, const char *fmt, va_list ap);
void btc_warning(struct btc_diag *d, struct btc_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reports `loc: note: fmt...`: where an error or warning just reported
 * comes from (e.g. the YAML stage of a shader error). Counts nothing. */
void btc_note(struct btc_diag *d, struct btc_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Internal invariant violated: prints file:line and aborts. */
_Noreturn void btc_panic_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define btc_panic(...) btc_panic_at(__FILE__, __LINE__, __VA_ARGS__)

/* Allocation that panics on failure (only for small bookkeeping objects:
 * btc is a compiler, an out-of-memory there is not a user error). */
void *btc_xmalloc(size_t n);
void *btc_xcalloc(size_t n, size_t size);
void *btc_xrealloc(void *p, size_t n);
char *btc_xstrdup(const char *s);
char *btc_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
