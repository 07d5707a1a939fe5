/* Chunk times and T_max of a schedule, from a problem's table: the one
 * place that sums stage times (docs/scheduler.md: a chunk's time is the
 * sum of its stages' times on its PU; T_max and T_min are the largest and
 * smallest chunk times, C3a/C3b; the gapness is T_max - T_min, O1). */
#ifndef BTC_SCHED_TIMES_H
#define BTC_SCHED_TIMES_H

#include "sched/optimizer.h"

/* Time in ms of the chunk of stages first..last (inclusive, 0-based) on PU
 * pu: the sum of p->time_ms in stage order, starting from 0.0 (so every
 * caller gets the same bits). NAN when a stage has no time on that PU. */
double btc_sched_chunk_time_ms(const struct btc_sched_problem *p, int pu,
			       int first, int last);

/* T_max of s in ms: the largest of its chunk times, recomputed from p (the
 * times stored in s are not read). NAN when a chunk's time is NAN. */
double btc_sched_tmax_ms(const struct btc_sched_problem *p,
			 const struct btc_schedule *s);

/* Fills s's chunk times, tmax_ms, tmin_ms and gapness_ms from p (the
 * ranking keys *_q are left as they are). tmax_ms is NAN when a chunk's
 * time is. */
void btc_sched_fill_times(const struct btc_sched_problem *p,
			  struct btc_schedule *s);

#endif
