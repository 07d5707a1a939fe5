/* Checked integer expressions for buffer counts, dispatch sizes and push
 * constants: int64 literals, names, + - * / %, unary -, parentheses,
 * ceil_div(a, b), min(a, b), max(a, b). Overflow and division by zero are
 * reported, never undefined. */
#ifndef BTC_EXPR_H
#define BTC_EXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "util/diag.h"

struct btc_expr;

/* Limits: an expression's text is at most BTC_EXPR_MAX_TEXT bytes and its
 * tree at most BTC_EXPR_MAX_DEPTH levels deep (parentheses, calls, unary
 * minus chains and operator chains all count), so that parsing, evaluation
 * and rendering never recurse past it. Longer or deeper text is an error. */
#define BTC_EXPR_MAX_TEXT 65536
#define BTC_EXPR_MAX_DEPTH 256

/* Parses `text`. `loc` is the position of text[0]; errors point at the
 * offending character; text beyond the limits above is an error. Returns a tree owned by the caller (btc_expr_free),
 * or NULL after reporting a syntax error. */
struct btc_expr *btc_expr_parse(const char *text, struct btc_loc loc, struct btc_diag *d);
void btc_expr_free(struct btc_expr *e);

/* Name lookup for evaluation: returns true and stores the value if `name`
 * is defined. */
typedef bool (*btc_expr_lookup)(void *env, const char *name, int64_t *value);

/* Evaluates e. Undefined names, division by zero and int64 overflow are
 * reported at their position and make it return false. */
bool btc_expr_eval(const struct btc_expr *e, btc_expr_lookup lookup, void *env, int64_t *value,
		   struct btc_diag *d);

/* Checks that every name in e is defined by `lookup` (values unused);
 * reports each undefined one. */
bool btc_expr_check_names(const struct btc_expr *e, btc_expr_lookup lookup, void *env,
			  struct btc_diag *d);

/* Renders e as a C expression of type int64_t into a new string (caller
 * frees). Each name n is written as `prefix` followed by n, except names
 * listed in `locals` (NULL-terminated; may be NULL), which are written
 * bare. ceil_div/min/max use the BTRT_ macros of btrt.h. */
char *btc_expr_to_c(const struct btc_expr *e, const char *prefix, const char *const *locals);

/* The original source text of e (borrowed). */
const char *btc_expr_text(const struct btc_expr *e);

#endif
