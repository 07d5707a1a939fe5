/* Skeleton files with named insertion points (docs/conventions.md,
 * "Generated code"; lemon's tplt_xfer). A template line whose only content is a C comment holding
 * `@ NAME @` (slash, star, at ... at, star, slash), or `#@ NAME @` in meson
 * and YAML templates, is replaced by the section NAME between matching
 * Begin/End banner comments; every other line is copied. */
#ifndef BTC_TEMPLATE_H
#define BTC_TEMPLATE_H

#include <stdbool.h>

#include "util/diag.h"
#include "util/out.h"

struct btc_section {
	const char *name;
	void (*emit)(struct btc_out *o, const void *ctx);
};

/* Expands the template file `name` from the template directory into o,
 * calling sections[i].emit(o, ctx) at each insertion point. A missing
 * template or an insertion point without a section is reported (exit 1);
 * a section that the template never uses is an internal error. */
bool btc_template_expand(struct btc_out *o, const char *name, const struct btc_section *sections,
			 int n_sections, const void *ctx, struct btc_diag *d);

#endif
