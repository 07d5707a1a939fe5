/* The checks of a scheduling problem that BT-Optimizer runs before it
 * solves (sched_check.c): diagnostics' names of stages and PUs, and the
 * check that the ranking quantum keeps every profiled time. Internal to
 * sched/; the public entry is btc_sched_validate (optimizer.h). */
#ifndef BTC_SCHED_CHECK_H
#define BTC_SCHED_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/optimizer.h"

/* "stage 3 (conv2)" / "PU 1 (gpu)", or without the name where p has none,
 * into buf[n]. */
void btc_sched_stage_label(const struct btc_sched_problem *p, int i, char *buf, size_t n);
void btc_sched_pu_label(const struct btc_sched_problem *p, int c, char *buf, size_t n);

/* Whether the ranking quantum quantum_ns keeps every nonzero time of p
 * (stage x PU, and with core_splits every stage x PU x profiled core
 * count): a time that quantises to 0 or loses more than
 * BTC_SCHED_MAX_QUANT_ERR of itself is reported through d, naming the
 * stage, the PU (and the core count) and maxsum_ns, the largest PU sum in
 * ns that forced the quantum. Returns false after reporting. */
bool btc_sched_check_quantum(const struct btc_sched_problem *p, bool core_splits,
			     int64_t quantum_ns, double maxsum_ns, struct btc_diag *d);

#endif
