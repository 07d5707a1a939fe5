/* The cost model's fit goals (docs/report.md, "Fit goals"): a model of a
 * run meets them when, over the run's verified schedules (n >= 2),
 * Pearson r >= 0.95, Spearman rho >= 0.9, the median |measured /
 * predicted - 1| <= 10 %, its max <= 25 %, and the schedule the model
 * predicts fastest is measured within 5 % of the fastest measured. The
 * one home of these thresholds: the report's JSON (fit.goals, each
 * model's goals_missed), `btc report`'s goal table and the noise floor of
 * `btc report --compare` take them from here. */
#ifndef BTC_REPORT_GOALS_H
#define BTC_REPORT_GOALS_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

enum btc_fit_goal {
	BTC_GOAL_R,      /* pearson_r >= 0.95 */
	BTC_GOAL_RHO,    /* spearman_rho >= 0.9 */
	BTC_GOAL_MEDIAN, /* median_abs_rel_err <= 0.10 */
	BTC_GOAL_MAX,    /* max_abs_rel_err <= 0.25 */
	BTC_GOAL_BEST,   /* best_within_5pct */
	BTC_N_FIT_GOALS
};

struct btc_fit_goal_def {
	const char *name;   /* "r", "rho", "median", "max", "best" */
	const char *figure; /* the fit model's JSON field it judges */
	bool at_most;       /* met when figure <= threshold (else >=) */
	double threshold;   /* best: 1, i.e. true */
};

/* [BTC_N_FIT_GOALS], in enum order. */
extern const struct btc_fit_goal_def btc_fit_goals[BTC_N_FIT_GOALS];

/* The goals missed by these figures, bit g for goal g: a NAN figure, an
 * unknown best (best < 0) and n < 2 miss. The figures of a fit model
 * (struct btc_report_fit_model, report/result.h): n, pearson_r,
 * spearman_rho, median_abs_rel_err, max_abs_rel_err, best_within_5pct
 * (1, 0 or -1: unknown). */
unsigned btc_fit_goals_missed(int n, double r, double rho, double median, double max, int best);

/* "met", or "missed: r rho ..." into buf[size]; returns buf. */
char *btc_fit_goals_text(unsigned missed, char *buf, size_t size);

/* Adds "goals_missed": [names] (report/goals.h order) to a fit model's
 * JSON object o. */
void btc_fit_goals_json_missed(cJSON *o, unsigned missed);

/* Adds the goal table to the report's "fit" object as "goals": [{goal,
 * figure, op ("<=" or ">="), threshold}] (best: ">=", 1: true). */
void btc_fit_goals_json(cJSON *fit);

/* The goal table as markdown: goal, figure, threshold. */
void btc_fit_goals_print(FILE *f);

#endif
