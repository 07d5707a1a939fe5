/* What BT-Optimizer's two Z3 encodings share, the paper's space
 * (sched_z3*.c) and the larger space (sched_z3_space*.c): the context and
 * solver they start from, a check under the time budget, the keys they
 * rank by and the schedules an enumeration found. Internal to sched/. */
#ifndef BTC_SCHED_Z3_H
#define BTC_SCHED_Z3_H

#include <stdbool.h>
#include <stdint.h>
#include <z3.h>

#include "sched/optimizer.h"

/* The keys the searches minimise, in quanta: T_max and gapness. */
enum key { K_TMAX, K_GAP };

static inline int64_t btc_sched_key_of(const struct btc_schedule *s, enum key k)
{
	return k == K_TMAX ? s->tmax_q : s->gap_q;
}

/* qsort order of int64_t values, ascending. */
static inline int btc_sched_z3_cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* Schedules found by an enumeration; s grows by doubling (btc_xrealloc),
 * the owner frees it. */
struct found {
	int n, cap;
	struct btc_schedule *s;
};

/* The K best of f by the primary key's total order (btc_sched_cmp_tmax or
 * btc_sched_cmp_gap; f->s is sorted) into res->candidates, which has room
 * for K; sets res->n_candidates. */
void btc_sched_z3_take_best(struct btc_sched_result *res, struct found *f, int K, enum key primary);

/* The K-th smallest key k among f's schedules with key <= bound, or -1
 * when fewer than K have. */
int64_t btc_sched_z3_kth_key(const struct found *f, enum key k, int K, int64_t bound);

/* A Z3 context and solver as both encodings use them: the process's heap
 * prepared (btc_sched_z3_memory), Z3's random seeds pinned (the search is
 * deterministic; the result would be anyway, it is a total order, the
 * time too), models on, the SMT core (Z3_mk_simple_solver: on these
 * problems faster than the SAT core of QF_FD, whose per-check
 * preprocessing dominates), ctrl_c off (Z3 would swap in its own SIGINT
 * handler during each check and restore btc's with SA_RESTART,
 * util/proc.c). Release with btc_sched_z3_stop. */
void btc_sched_z3_start(Z3_context *ctx, Z3_solver *s);
void btc_sched_z3_stop(Z3_context ctx, Z3_solver s);

/* Z3_solver_check_assumptions(assume[0..n)) with what is left of
 * deadline (ms on btc_sched_now_ms's clock, 0: none) as Z3's timeout;
 * *checks counts the checks made. Returns 1 sat with *model set (the
 * caller releases it with Z3_model_dec_ref), 0 unsat, or -1 with
 * *expired set when the time is spent (less than 1 ms left: no check
 * made) or Z3 gives up; -1 at once when *expired already is. */
int btc_sched_z3_check(Z3_context ctx, Z3_solver s, double deadline, unsigned n, Z3_ast *assume,
		       long *checks, bool *expired, Z3_model *model);

#endif
