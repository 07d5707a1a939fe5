/* The larger space's presolve by gapness (space_gap.c), over a space of
 * space.h. Internal to sched/. */
#ifndef BTC_SPACE_GAP_H
#define BTC_SPACE_GAP_H

#include <stdint.h>

#include "sched/space.h"

/* Presolve by gapness; sums[0..m): the distinct chunk
 * costs, ascending. gap_count: the candidates of gapness <= W (-1:
 * presolve unavailable or expired), marking with useful (as
 * btc_space_dp_useful, or NULL) the chunks of those with gapness <= W.
 * gap_level: the candidates with T_min = L and T_max = L + G exactly. */
double btc_space_gap_count(struct btc_space *sp, const int64_t *sums, int m, int64_t W,
			   unsigned char *useful);
double btc_space_gap_level(struct btc_space *sp, const int64_t *sums, int m, int64_t G,
			   int64_t L);
/* Frees the presolve's tables (sp->win); before btc_space_free. */
void btc_space_win_free(struct btc_space *sp);

#endif
