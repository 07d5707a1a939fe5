/* BT-Optimizer with Z3 over the paper's space, on the one Z3 layer
 * (sched_z3.h): what the encoding (sched_z3_encode.c), its model
 * (sched_z3_query.c: the ops of the layer) and the search (sched_z3.c)
 * share. Internal to sched/; docs/scheduler.md. */
#ifndef BTC_Z3_PAPER_H
#define BTC_Z3_PAPER_H

#include <stdbool.h>
#include <stdint.h>
#include <z3.h>

#include "sched/optimizer.h"
#include "sched/sched_z3.h"

struct z3s {
	struct btc_z3 b; /* the session; first, so &z->b is z */
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
	int *a;        /* [n] assignment of the last model */
	int64_t *sums; /* sorted distinct chunk sums: every T_max */
	int n_sums;
	int max_chunks;  /* the option (0 = none), for the presolve */
};

/* The encoding's state from the layer's session. */
static inline struct z3s *btc_zp(struct btc_z3 *b)
{
	return (struct z3s *)b;
}

/* x[i][c] (NULL: stage i is not allowed on PU c) and its quantised time. */
static inline Z3_ast X(const struct z3s *z, int i, int c)
{
	return z->x[i * z->np + c];
}

static inline int64_t TQ(const struct z3s *z, int i, int c)
{
	return z->prep->tq[i * z->np + c];
}

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

/* The clauses of guard g (T_max <= value, T_min >= value, gapness <=
 * value, in quanta): the encode_guard of btc_zp_ops. */
void btc_zp_encode_guard(struct btc_z3 *b, Z3_ast g, enum guard_kind kind, int64_t value);

/* ---- the model (sched_z3_query.c) ---- */

/* The paper's space on the Z3 layer: the model is z->a. */
extern const struct btc_z3_ops btc_zp_ops;

/* T_max and T_min of the model in z->a, in quanta. */
struct keys {
	int64_t tmax, tmin;
};
struct keys btc_zp_model_keys(const struct z3s *z);

/* z->sums / n_sums: the sorted distinct costs of every contiguous range of
 * allowed stages on one PU (every possible T_max; the layer's
 * tmax_vals). */
void btc_zp_collect_sums(struct z3s *z);

#endif
