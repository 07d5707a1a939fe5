/* The report's JSON fields (report/json.h). */
#include "report/json.h"

#include <math.h>

#include "util/diag.h"
#include "util/json.h"

cJSON *btc_json_num_item(double v)
{
	return btc_json_unrounded(round(v * 1e6) / 1e6); /* NaN, inf: null */
}

void btc_json_add_num(cJSON *o, const char *k, double v)
{
	cJSON_AddItemToObject(o, k, btc_json_num_item(v));
}

void btc_json_add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

const cJSON *btc_json_get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

double btc_json_num(const cJSON *o, const char *k)
{
	const cJSON *v = btc_json_get(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

double btc_json_positive(const cJSON *o, const char *k, double none)
{
	double v = btc_json_num(o, k);
	return v > 0 ? v : none; /* NaN: none */
}

char *btc_json_str(const cJSON *o, const char *k)
{
	const cJSON *v = btc_json_get(o, k);
	return cJSON_IsString(v) ? btc_xstrdup(v->valuestring) : NULL;
}
