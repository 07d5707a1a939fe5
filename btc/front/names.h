/* Names in app and device descriptions, checked at load time so that
 * nothing a description says can inject code or escape a directory.
 *
 * C names (app, stage, buffer, param and PU names, kernel and io symbols)
 * become C identifiers in generated code: [A-Za-z_][A-Za-z0-9_]*, at most
 * BTC_NAME_MAX characters, no C11 keyword, no reserved identifier (a
 * leading "__" or "_" and a capital), nothing the generated code or the
 * headers it includes define (the btrt_/BTRT_, APP_, PIPELINE_ and STAGE_
 * prefixes, the pipeline's own identifiers, the standard macros).
 *
 * File names (device names) become directory and file names:
 * [A-Za-z0-9][A-Za-z0-9_.-]*, at most BTC_NAME_MAX characters, no "..". */
#ifndef BTC_NAMES_H
#define BTC_NAMES_H

#include <stdbool.h>

#define BTC_NAME_MAX 63

enum btc_name_kind {
	BTC_NAME_C_LABEL,  /* stage and PU names: in strings and generated
			      names (pu_NAME_cores); the identifier rules,
			      keywords, reserved names and btrt_ only */
	BTC_NAME_C,        /* params, kernel and io symbols: all the rules */
	BTC_NAME_C_APP,    /* the app name: also a prefix of generated names */
	BTC_NAME_C_BUFFER, /* a buffer: also a member of the TaskObject struct */
	BTC_NAME_FILE,     /* a file or directory name */
};

/* NULL when s is a valid name of the kind; otherwise why not, as a phrase
 * that completes "<what> '<s>' ..." ("is a C keyword"). Static storage. */
const char *btc_name_problem(const char *s, enum btc_name_kind kind);

#endif
