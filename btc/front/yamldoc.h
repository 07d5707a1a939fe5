/* A thin layer over libyaml's document API for schema checking with
 * file:line:col diagnostics (libyaml marks are 0-based; we add 1). */
#ifndef BTC_YAML_H
#define BTC_YAML_H

#include <stdbool.h>
#include <stdint.h>
#include <yaml.h>

#include "front/names.h"
#include "util/diag.h"

/* Limits on what btc_yaml_load accepts: the size of the text and the
 * nesting of collections (both far beyond any real app or device file;
 * they keep hostile input from exhausting time or stack). */
#define BTC_YAML_MAX_BYTES (16 * 1024 * 1024)
#define BTC_YAML_MAX_DEPTH 64
#define BTC_YAML_MAX_ANCHORS 1024    /* aliases are looked up linearly */
#define BTC_YAML_MAX_NODES (1 << 20) /* about 100 MB of libyaml nodes */

struct btc_yaml {
	yaml_document_t doc;
	const char *file; /* borrowed name used in diagnostics */
	bool loaded;
};

/* Parses the YAML file at `path`, or the NUL-terminated `text` when it is
 * not NULL (then `path` only names it in diagnostics); only the first
 * document of a stream. Text over BTC_YAML_MAX_BYTES, collections nested
 * deeper than BTC_YAML_MAX_DEPTH and more than BTC_YAML_MAX_NODES nodes or
 * BTC_YAML_MAX_ANCHORS anchors are errors, found while parsing (at the
 * first node past the limit). On a syntax error reports it and returns false; on success returns true and the caller owns
 * y (free with btc_yaml_free). An empty document is an error. */
bool btc_yaml_load(struct btc_yaml *y, const char *path, const char *text, struct btc_diag *d);
void btc_yaml_free(struct btc_yaml *y);

yaml_node_t *btc_yaml_root(struct btc_yaml *y);
/* 1-based position of node n (the start of its text). */
struct btc_loc btc_yaml_loc(const struct btc_yaml *y, const yaml_node_t *n);

/* Checks that `map` is a mapping whose keys are all in `keys` (a NULL-
 * terminated list), each at most once, and stores each key's value node in
 * out[i] (NULL when absent). Keys marked with a leading '!' in `keys` are
 * required ("!name"): a missing one is reported at the mapping. `what`
 * names the mapping in messages ("stage", "buffer"). Reports every unknown,
 * duplicate and missing key; returns false if any error was reported. */
bool btc_yaml_map(struct btc_yaml *y, yaml_node_t *map, const char *what, const char *const keys[],
		  yaml_node_t *out[], struct btc_diag *d);

/* Scalar accessors. Each reports `what must be ...` at n and returns false
 * on a type error; on success stores the result (borrowed from the
 * document, valid until btc_yaml_free). */
bool btc_yaml_str(struct btc_yaml *y, yaml_node_t *n, const char *what, const char **out,
		  struct btc_diag *d);
/* A name of the given kind (front/names.h): reports "<what> '<s>' <why>"
 * at n when it is not one. btc_yaml_ident is kind BTC_NAME_C. */
bool btc_yaml_name(struct btc_yaml *y, yaml_node_t *n, const char *what, enum btc_name_kind kind,
		   const char **out, struct btc_diag *d);
bool btc_yaml_ident(struct btc_yaml *y, yaml_node_t *n, const char *what, const char **out,
		    struct btc_diag *d);
bool btc_yaml_int(struct btc_yaml *y, yaml_node_t *n, const char *what, int64_t min, int64_t max,
		  int64_t *out, struct btc_diag *d);
bool btc_yaml_bool(struct btc_yaml *y, yaml_node_t *n, const char *what, bool *out,
		   struct btc_diag *d);
/* A sequence: stores its length and returns true; false (error reported)
 * when n is not a sequence. Items via btc_yaml_item. */
bool btc_yaml_seq(struct btc_yaml *y, yaml_node_t *n, const char *what, int *len,
		  struct btc_diag *d);
yaml_node_t *btc_yaml_item(struct btc_yaml *y, yaml_node_t *seq, int i);

/* Column offset of the first character of a scalar's value relative to its
 * mark (1 for quoted scalars, 0 for plain ones). */
int btc_yaml_value_offset(const yaml_node_t *n);

bool btc_is_ident(const char *s);

#endif
