/* A co-location measurement's result (driver/colocate.h) as a table for
 * people and as JSON for the workload job's report (docs/report.md, "The
 * workload job"). */
#ifndef BTC_COLOCATE_PRINT_H
#define BTC_COLOCATE_PRINT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "driver/colocate.h"

/* Prints r to out: per stream its solo tasks/s (r*_s) and the chosen
 * joint candidate's, naive co-location's and time multiplexing's tasks/s
 * with their normalised throughput (r_s / r*_s); then each
 * configuration's max-min normalised throughput M (median and 95 %
 * interval, or why it failed), and the paired gains of the chosen
 * candidate over the two baselines. s: the setup measured (names,
 * weights, schedules). */
void btc_colocate_print(FILE *out, const struct btc_colocate_setup *s,
			const struct btc_colocate_result *r);

/* Adds r to parent as object `key` (docs/report.md, "The workload job":
 * seed, wall_s, multiplex_turn, best, streams, joint, naive, multiplex,
 * gain_naive, gain_multiplex). Numbers that are NaN are null. */
void btc_colocate_add_json(cJSON *parent, const char *key, const struct btc_colocate_setup *s,
			   const struct btc_colocate_result *r);

#endif
