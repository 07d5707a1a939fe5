/* Strict decimal number parsing for user input (--chunks, table cells,
 * NAME[k]): no sign unless allowed, no hexadecimal, no silent wrap. */
#ifndef BTC_NUM_H
#define BTC_NUM_H

#include <stdbool.h>

/* Parses the whole of s as a decimal integer in lo..hi: only ASCII digits,
 * with one leading '-' when lo < 0; no blanks, no '+', no 0x. Returns
 * false (out untouched) when s is empty, holds anything else, or the
 * value is outside lo..hi (overflow included: "4294967297" never wraps). */
bool btc_parse_int(const char *s, long lo, long hi, long *out);

/* Like btc_parse_int over the first n bytes of s (s need not end there). */
bool btc_parse_int_n(const char *s, int n, long lo, long hi, long *out);

/* Is s a decimal real number as a table or option writes one: digits with
 * an optional '.' fraction and an optional e/E exponent, one optional
 * leading sign? False for hexadecimal ("0x10"), "inf", "nan", blanks and
 * an empty string. The caller converts with strtod. */
bool btc_is_decimal(const char *s);

#endif
