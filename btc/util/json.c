/* Unrounded JSON numbers (json.h). */
#include "util/json.h"

#include <cjson/cJSON.h>
#include <math.h>

struct cJSON *btc_json_unrounded(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

void btc_json_add_unrounded(struct cJSON *o, const char *k, double v)
{
	cJSON_AddItemToObject(o, k, btc_json_unrounded(v));
}
