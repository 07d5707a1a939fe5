/* JSON numbers as btc writes them outside the report's fields: unrounded,
 * NaN and infinities as null. (report/json.h's btc_json_add_num rounds a
 * report's fields to 1e-6 and is for report/ only; docs/report.md.) */
#ifndef BTC_UTIL_JSON_H
#define BTC_UTIL_JSON_H

struct cJSON;

/* A new JSON item for v: a number, or null when v is NaN or infinite (JSON
 * has neither). Units: none (the caller's field says). Precision: v is
 * not rounded; the text is cJSON's print of a double: an integer when v is
 * one within int's range, else %.15g, or %.17g when the %.15g text reads
 * back more than a relative DBL_EPSILON away from v (so the text is v to
 * within about one unit in the last place: 0.1 + 0.2 is written 0.3).
 * The caller owns the item (adds it to an array or object, or
 * cJSON_Deletes it); NULL only when cJSON is out of memory. */
struct cJSON *btc_json_unrounded(double v);

/* Adds field k (copied) to object o: btc_json_unrounded(v). */
void btc_json_add_unrounded(struct cJSON *o, const char *k, double v);

#endif
