/* Inside report/ only: the report's JSON fields, written and read back
 * (docs/report.md). */
#ifndef BTC_REPORT_JSON_H
#define BTC_REPORT_JSON_H

#include <cjson/cJSON.h>

/* Adds number k to o rounded to 1e-6 (ms, ratios), or null when v is NaN
 * or infinite. */
void btc_json_add_num(cJSON *o, const char *k, double v);
/* The same number as a new item (the caller owns it: adds it to an array
 * or object): rounded to 1e-6, null for NaN or an infinity; NULL only
 * when cJSON is out of memory. */
cJSON *btc_json_num_item(double v);
/* Adds string k to o (copied), or null when v is NULL. */
void btc_json_add_str(cJSON *o, const char *k, const char *v);
/* Field k of o (case-sensitive), NULL when absent. */
const cJSON *btc_json_get(const cJSON *o, const char *k);
/* Number k of o, NaN when absent or not a number (null). */
double btc_json_num(const cJSON *o, const char *k);
/* Number k of o when a positive number, else none (a time of a report:
 * absent, null, 0 or negative read as none). */
double btc_json_positive(const cJSON *o, const char *k, double none);
/* A copy of string k of o (the caller frees it), NULL when absent or not
 * a string. */
char *btc_json_str(const cJSON *o, const char *k);

#endif
