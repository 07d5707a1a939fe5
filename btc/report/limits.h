/* What the chosen schedule is measured against, in the report: the fluid
 * bound (what the fitted table allows, docs/scheduler.md "The fluid
 * bound") and the regret (what the measured best of the paper's space
 * reached, `btc tune --exhaustive`; docs/report.md, "Regret"). The JSON
 * of both, written and read back. */
#ifndef BTC_REPORT_LIMITS_H
#define BTC_REPORT_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "report/result.h"

/* Regret = chosen / measured best - 1 (r->regret, a fraction), when
 * r->n_space > 0 (--exhaustive: every schedule of the paper's space is
 * in the build) and a schedule was chosen:
 * the best is the lowest verified measured median of every schedule
 * (candidates, baselines and the space's others); its 95 % interval
 * combines the two medians' intervals, [max(0, lo_chosen / hi_best - 1),
 * hi_chosen / lo_best - 1], with hi_best and lo_best the least upper and
 * lower ends over every verified schedule (the interval of the least
 * median). Else r->regret stays NAN. Fills r->regret_best (index) and
 * r->n_space_measured. Call after r->chosen is set. */
void btc_report_regret(struct btc_report *r);

/* The regret round's race as text into buf[n]: "chosen / LABEL time
 * ratio R [lo, hi] over N rounds - 1 = Z % [lo, hi]" (the paired regret
 * in %, its interval may reach below 0: the chosen faster when raced).
 * False, buf untouched, where none ran (r->regret_paired.rounds 0). */
bool btc_report_paired_regret_text(const struct btc_report *r, char *buf, size_t n);

/* "regret: chosen X ms / measured best Y ms (LABEL) - 1 = Z % [lo, hi]
 * over N measured schedules (--exhaustive)", and where the regret round
 * ran "regret, paired (the regret round): " and
 * btc_report_paired_regret_text; nothing without a regret. */
void btc_report_print_regret(const struct btc_report *r, FILE *f);

/* The report's fluid_bound_ms, efficiency, fluid_bound and regret
 * fields (docs/report.md; the regret round's as regret.paired, null
 * where none ran) into j; and back from j into r (r's candidates read
 * first). */
void btc_report_limits_to_json(cJSON *j, const struct btc_report *r);
void btc_report_limits_from_json(const cJSON *j, struct btc_report *r);

#endif
