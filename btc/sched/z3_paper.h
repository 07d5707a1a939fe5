/* BT-Optimizer with Z3 over the paper's space: what the encoding
 * (sched_z3_encode.c), its queries (sched_z3_query.c) and the search
 * (sched_z3.c) share. Internal to sched/; docs/scheduler.md. */
#ifndef BTC_Z3_PAPER_H
#define BTC_Z3_PAPER_H

#include <stdbool.h>
#include <stdint.h>
#include <z3.h>

#include "sched/optimizer.h"
#include "sched/sched_z3.h"

enum guard_kind { G_TMAX_LE, G_TMIN_GE, G_GAP_LE };

struct guard {
	enum guard_kind kind;
	int64_t value;
	Z3_ast lit;
};

struct z3s {
	Z3_context ctx;
	Z3_solver s;
	Z3_sort bool_sort;
	const struct btc_sched_problem *p;
	const struct btc_sched_prep *prep;
	int n, np;
	Z3_ast *x;       /* [n * np], NULL: not allowed */
	Z3_ast *used;    /* [np], NULL: PU runs nothing */
	int64_t *pu_sum; /* [np] sum of allowed tq */
	/* Chunk model with transfers (prep->xq): y[(f*np+c)*n+l] <-> the
	 * chunk (PU c, stages f..l) exists, for the chunks with X > 0;
	 * NULL otherwise. y_sum[c]: sum of their X quanta. */
	Z3_ast *y;
	int64_t *y_sum;
	int64_t maxcost; /* largest chunk cost: bound on T_max */
	unsigned next_sym;
	struct guard *guards;
	int n_guards, cap_guards;
	Z3_ast *assume; /* scratch: assumptions */
	int n_assume, cap_assume;
	int *a;        /* [n] assignment of the last model */
	int64_t *sums; /* sorted distinct chunk sums: every T_max */
	int n_sums;
	int max_chunks;  /* the option (0 = none), for the presolve */
	bool filtered;   /* bt's utilisation filter is asserted */
	int64_t gstar;   /* G* of that filter, quanta */
	double deadline; /* ms, 0 = none */
	bool expired;
	long checks;
};

/* x[i][c] (NULL: stage i is not allowed on PU c) and its quantised time. */
static inline Z3_ast X(const struct z3s *z, int i, int c)
{
	return z->x[i * z->np + c];
}

static inline int64_t TQ(const struct z3s *z, int i, int c)
{
	return z->prep->tq[i * z->np + c];
}

/* Asserts f; !a. */
static inline void btc_zp_add(struct z3s *z, Z3_ast f)
{
	Z3_solver_assert(z->ctx, z->s, f);
}

static inline Z3_ast btc_zp_not(struct z3s *z, Z3_ast a)
{
	return Z3_mk_not(z->ctx, a);
}

/* A fresh Boolean constant. */
Z3_ast btc_zp_fresh(struct z3s *z);

/* The formulation: an x for every allowed (stage, PU) (prep->tq >= 0:
 * pins and forbidden PUs are already there), C1, C2, used[c],
 * multi-chunk, and opt->max_chunks. */
void btc_zp_encode(struct z3s *z, const struct btc_sched_options *opt);

/* The chunk variables of the transfer term (prep->xq): y <-> chunk (c,
 * f..l), for every chunk with X_c(f, l) > 0 on an allowed run of stages. */
void btc_zp_encode_chunks(struct z3s *z);

/* g & used[d] -> num T_c - den T_d <= den bound for every pair of PUs
 * c != d that may run (g NULL: unguarded); O1 with num = den = 1, bt's
 * filter with num / den = U. */
void btc_zp_assert_pairs(struct z3s *z, Z3_ast g, int num, int den, int64_t bound);

/* The guard literal of a bound (T_max <= value, T_min >= value, gapness
 * <= value, in quanta), its constraints asserted once on first use. */
Z3_ast btc_zp_guard(struct z3s *z, enum guard_kind kind, int64_t value);

/* ---- queries (sched_z3_query.c) ---- */

/* Keeps the first `keep` assumptions / appends one. */
void btc_zp_assume_reset(struct z3s *z, int keep);
void btc_zp_assume(struct z3s *z, Z3_ast lit);

/* Checks under the current assumptions; on sat reads the model into z->a.
 * Returns 1 sat, 0 unsat, -1 unknown (time budget spent). */
int btc_zp_check(struct z3s *z);

/* Whether the time budget is spent (z->deadline, 0: none). */
bool btc_zp_out_of_time(const struct z3s *z);

/* T_max and T_min of the model in z->a, in quanta. */
struct keys {
	int64_t tmax, tmin;
};
struct keys btc_zp_model_keys(const struct z3s *z);

/* "key <= v" as a guard literal; `fixed_tmax` >= 0 says T_max is known to
 * equal it for every remaining schedule, so gap <= v is T_min >= tmax - v
 * (one PB per PU instead of one per pair). */
Z3_ast btc_zp_key_guard(struct z3s *z, enum key k, int64_t v, int64_t fixed_tmax);

/* Index of the first chunk sum >= v in z->sums (n_sums if none). */
int btc_zp_first_sum_ge(const struct z3s *z, int64_t v);

/* z->sums / n_sums: the sorted distinct costs of every contiguous range of
 * allowed stages on one PU (every possible T_max). */
void btc_zp_collect_sums(struct z3s *z);

/* Minimises key k over the schedules allowed by the first `keep`
 * assumptions. z->a holds a model of them with key value hi; lo is a
 * proven lower bound; probe_lo tries lo first. On return z->a is a model
 * with the minimum (or, after expiry, the best found) and *val its key.
 * Returns 0, or -1 on expiry. */
int btc_zp_minimise(struct z3s *z, int keep, enum key k, int64_t lo, bool probe_lo,
		    int64_t fixed_tmax, int64_t *val);

/* Lexicographically smallest stage-to-PU vector under the first `keep`
 * assumptions, starting from the model in z->a. Returns 0 or -1. */
int btc_zp_lexmin(struct z3s *z, int keep);

/* Blocks the model's vector for good (C5). */
void btc_zp_block(struct z3s *z);

/* Adds the model's schedule to f and blocks it under g (C5). */
void btc_zp_found_add(struct z3s *z, struct found *f, Z3_ast g);

#endif
