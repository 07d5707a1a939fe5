/* Shared by report/fit.c and report/fit_bound.c. */
#ifndef BTC_FIT_INTERNAL_H
#define BTC_FIT_INTERNAL_H

#include "report/calib.h"
#include "report/result.h"
#include "sched/plan.h"

/* The plan's schedules as the calibration sees them under mode m: into
 * out[plan->n_schedules] per schedule its chunks (PU, the chunk model's
 * time, its stages' table times t_i, in chunk_buf[n * BTC_SCHED_MAX_PUS], caller-owned), T_io and
 * the measured median of r's candidate (NAN unless verified). False when
 * the table has no such mode. */
bool btc_fit_calib_input(const struct btc_plan *plan, enum btc_mode m, const struct btc_report *r,
			 struct btc_calib_schedule *out, struct btc_calib_chunk *chunk_buf);

#endif
