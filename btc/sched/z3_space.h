/* BT-Optimizer with Z3 over the larger space, on the one Z3 layer
 * (sched_z3.h): what the encoding (sched_z3_space.c), its model and
 * enumerations (sched_z3_space_query.c: the ops of the layer), the search
 * (sched_space_rank.c) and its entry (sched_z3_space_solve.c) share.
 * Internal to sched/; docs/scheduler.md, "The larger space". */
#ifndef BTC_Z3_SPACE_H
#define BTC_Z3_SPACE_H

#include <stdbool.h>
#include <stdint.h>
#include <z3.h>

#include "sched/optimizer.h"
#include "sched/sched_z3.h"
#include "sched/space.h"

struct ych {
	int o, f, l;
	int64_t cost;
	Z3_ast lit;
};

struct zx {
	struct btc_z3 b; /* the session; first, so &z->b is z */
	const struct btc_sched_problem *p;
	const struct btc_sched_prep *prep;
	struct btc_space *sp;
	int n;
	struct ych *y; /* encoded chunks, ordered by (f, l, o) */
	int n_y;
	int *rstart, *rcount; /* [n * n]: the y of range (f, l) */
	Z3_ast *z;            /* [n * n] range literal, or NULL */
	Z3_ast *st;           /* [n + 1] start literal, NULL at 0 and n */
	int64_t *vals;        /* distinct costs of the y, ascending */
	int n_vals;
	Z3_ast *below; /* [n_vals]; [0] unused */
	int64_t *sums; /* distinct costs of every chunk of the space */
	int n_sums;
	struct btc_schedule cur; /* the last model */
	int cur_y[BTC_SCHED_MAX_PUS];
	int cur_n;
	int64_t v1;    /* min_tmax0's cache, 0: not computed */
};

/* The encoding's state from the layer's session. */
static inline struct zx *btc_zx(struct btc_z3 *b)
{
	return (struct zx *)b;
}

/* The larger space on the Z3 layer: the model is z->cur. */
extern const struct btc_z3_ops btc_zx_ops;

/* Asserts the clause lits[0] | ... | lits[k - 1] (k >= 1). */
static inline void btc_zx_clause(struct zx *z, unsigned k, Z3_ast *lits)
{
	btc_z3_add(&z->b, k == 1 ? lits[0] : Z3_mk_or(z->b.ctx, k, lits));
}

/* Encodes the chunks allowed by `useful` ([n_opts * n * n] 0/1, or NULL:
 * every chunk of the space). */
void btc_zx_encode(struct zx *z, const unsigned char *useful);

/* z->sums / n_sums: the sorted distinct costs of every chunk of the
 * space. */
void btc_zx_collect_sums(struct zx *z);

/* bt's filter: T_min >= ceil((a T_max - b G*) / b). */
int64_t btc_zx_filter_lo(const struct zx *z, int64_t v);

/* The clauses of guard g (T_max <= value, T_min >= value, gapness <=
 * value, in quanta): the encode_guard of btc_zx_ops. */
void btc_zx_encode_guard(struct btc_z3 *b, Z3_ast g, enum guard_kind kind, int64_t value);

/* Finds `count` schedules under the assumptions g and bounds[0..nb), each
 * blocked under g; the presolve counted them, so every check is sat. 0, or
 * -1 expired. */
int btc_zx_enumerate_n(struct zx *z, struct found *f, Z3_ast g, double count, const Z3_ast *bounds,
		       int nb);

/* The `need` best in vector order of the tied schedules under g and
 * bounds[0..nb) (the presolve counted `count` of them, too many to
 * enumerate), one at a time: check, lexmin, add and block under g. 0, or
 * -1 expired. */
int btc_zx_enumerate_ties(struct zx *z, struct found *f, Z3_ast g, double need, double count,
			  const Z3_ast *bounds, int nb);

/* enumerate_n under T_max <= tmax and T_min >= tmin (tmin 0: none). */
int btc_zx_enumerate_phase(struct zx *z, struct found *f, Z3_ast g, double count, int64_t tmax,
			   int64_t tmin);

/* !g | !y | !below[threshold] for every y: some chosen chunk costs less
 * than thr(cost(y)) - arg rules y out; g NULL: unguarded. */
void btc_zx_below_clauses(struct zx *z, Z3_ast g, int64_t (*thr)(const struct zx *, int64_t),
			  int64_t arg);

/* The ranking of opt's objective into res (sched_space_rank.c); the
 * entry, btc_space_solve_z3, is sched_z3_space_solve.c. */
void btc_zx_rank(struct zx *z, const struct btc_sched_options *opt, struct btc_sched_result *res);

#endif
