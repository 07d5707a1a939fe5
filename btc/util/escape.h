/* Quoting for every string that reaches generated files: C string literals
 * and comments, meson strings and comments, YAML scalars. Names checked at
 * load time (front/names.h) come out unchanged; anything else (paths,
 * descriptions, GPU names from host detection such as "NVIDIA H100 80GB
 * HBM3") is escaped so that it stays data. Each returns a new string that
 * the caller frees (btc_xmalloc: never NULL). */
#ifndef BTC_ESCAPE_H
#define BTC_ESCAPE_H

/* A C string literal, quotes included: "a\"b". Backslash, '"' and '?'
 * (trigraphs) are escaped; control characters and bytes >= 0x80 become
 * three-digit octal escapes, so no escape can swallow a following digit. */
char *btc_c_string_literal(const char *s);

/* Text safe inside a C block or line comment and a meson '#' comment: each
 * control character and each byte >= 0x80 becomes '?', a backslash '/'
 * (no line splices), and "*" "/" and "/" "*" pairs are spaced apart. */
char *btc_c_comment(const char *s);

/* A meson string literal, quotes included: 'it\'s'. Backslash and '\''
 * are escaped, control characters become \xHH; UTF-8 passes through. */
char *btc_meson_string(const char *s);

/* A YAML scalar: s itself when it reads back as the same plain string,
 * else a double-quoted scalar with '"', '\', line breaks and every code
 * point outside YAML's printable set (C0 and C1 controls, U+FFFE...)
 * escaped, so libyaml reads it back as the same string. Printable UTF-8
 * passes through; a byte that is not UTF-8 is written as \xHH, which reads
 * back as U+00HH. Caller frees. */
char *btc_yaml_scalar(const char *s);

#endif
