/* The cost model's fit goals (report/goals.h). */
#include "report/goals.h"

#include <math.h>
#include <string.h>

const struct btc_fit_goal_def btc_fit_goals[BTC_N_FIT_GOALS] = {
	[BTC_GOAL_R] = {"r", "pearson_r", false, 0.95},
	[BTC_GOAL_RHO] = {"rho", "spearman_rho", false, 0.9},
	[BTC_GOAL_MEDIAN] = {"median", "median_abs_rel_err", true, 0.10},
	[BTC_GOAL_MAX] = {"max", "max_abs_rel_err", true, 0.25},
	[BTC_GOAL_BEST] = {"best", "best_within_5pct", false, 1},
};

static bool meets(enum btc_fit_goal g, double x)
{
	if (isnan(x))
		return false;
	/* 1e-12: a figure equal to its threshold in decimal meets it. */
	return btc_fit_goals[g].at_most ? x <= btc_fit_goals[g].threshold + 1e-12
					: x >= btc_fit_goals[g].threshold - 1e-12;
}

unsigned btc_fit_goals_missed(int n, double r, double rho, double median, double max, int best)
{
	double x[BTC_N_FIT_GOALS] = {r, rho, median, max, best < 0 ? NAN : best};
	unsigned missed = 0;
	for (int g = 0; g < BTC_N_FIT_GOALS; g++)
		if (n < 2 || !meets(g, x[g]))
			missed |= 1u << g;
	return missed;
}

char *btc_fit_goals_text(unsigned missed, char *buf, size_t size)
{
	if (!size)
		return buf;
	snprintf(buf, size, "%s", missed ? "missed:" : "met");
	for (int g = 0; g < BTC_N_FIT_GOALS; g++)
		if (missed & (1u << g)) {
			size_t len = strlen(buf);
			snprintf(buf + len, size - len, " %s", btc_fit_goals[g].name);
		}
	return buf;
}

void btc_fit_goals_print(FILE *f)
{
	fprintf(f, "| goal | figure | met when |\n|---|---|---|\n");
	for (int g = 0; g < BTC_N_FIT_GOALS; g++) {
		const struct btc_fit_goal_def *d = &btc_fit_goals[g];
		if (g == BTC_GOAL_BEST)
			fprintf(f, "| %s | %s | true |\n", d->name, d->figure);
		else
			fprintf(f, "| %s | %s | %s %g |\n", d->name, d->figure,
				d->at_most ? "<=" : ">=", d->threshold);
	}
}

void btc_fit_goals_json_missed(cJSON *o, unsigned missed)
{
	cJSON *a = cJSON_AddArrayToObject(o, "goals_missed");
	for (int g = 0; g < BTC_N_FIT_GOALS; g++)
		if (missed & (1u << g))
			cJSON_AddItemToArray(a, cJSON_CreateString(btc_fit_goals[g].name));
}

void btc_fit_goals_json(cJSON *fit)
{
	cJSON *goals = cJSON_AddArrayToObject(fit, "goals");
	for (int g = 0; g < BTC_N_FIT_GOALS; g++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "goal", btc_fit_goals[g].name);
		cJSON_AddStringToObject(o, "figure", btc_fit_goals[g].figure);
		cJSON_AddStringToObject(o, "op", btc_fit_goals[g].at_most ? "<=" : ">=");
		cJSON_AddNumberToObject(o, "threshold", btc_fit_goals[g].threshold);
		cJSON_AddItemToArray(goals, o);
	}
}
