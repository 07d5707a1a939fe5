/* The output context every generator writes through: text accumulates in
 * memory and reaches the file system once, at the end (docs/conventions.md,
 * "Generated code"). Also used for any text built in pieces (the plan's
 * provenance, reports). */
#ifndef BTC_OUT_H
#define BTC_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/diag.h"

struct btc_out {
	char *buf; /* NUL-terminated text so far (owned) */
	size_t len, cap;
	int indent; /* tabs prepended to each line started by btc_outl */
};

void btc_out_init(struct btc_out *o);
void btc_out_free(struct btc_out *o);
/* Appends formatted text verbatim. */
void btc_outf(struct btc_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends one line: indent, formatted text, newline. */
void btc_outl(struct btc_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void btc_out_puts(struct btc_out *o, const char *s);
/* Appends an empty line. */
void btc_out_nl(struct btc_out *o);

/* Writes the buffer to path by btc_write_file_atomic (util/fsafe.h:
 * temporary file + rename, regular files only, no link followed, errors
 * name the file and the reason). When the file already holds identical
 * bytes it is left untouched (keeps build systems from rebuilding).
 * Reports errors to d and returns false. */
bool btc_out_write_file(const struct btc_out *o, const char *path, struct btc_diag *d);

/* Creates directory path and its parents (mode 0755). Reports errors. */
bool btc_mkdirs(const char *path, struct btc_diag *d);

/* Reads a whole file into a new NUL-terminated buffer (caller frees);
 * stores the size in *len when len is not NULL. NULL with errno on error
 * (EINVAL: not a regular file, util/infile.h). */
char *btc_read_file(const char *path, size_t *len);

#endif
