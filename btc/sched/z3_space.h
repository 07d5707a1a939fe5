/* BT-Optimizer with Z3 over the larger space: what the encoding
 * (sched_z3_space.c), its queries (sched_z3_space_query.c) and the search
 * (sched_space_rank.c) share. Internal to sched/; docs/scheduler.md, "The
 * larger space". */
#ifndef BTC_Z3_SPACE_H
#define BTC_Z3_SPACE_H

#include <stdbool.h>
#include <stdint.h>
#include <z3.h>

#include "sched/optimizer.h"
#include "sched/sched_z3.h"
#include "sched/space.h"

enum gkind { G_TMAX_LE, G_TMIN_GE, G_GAP_LE };

struct guard {
	enum gkind kind;
	int64_t value;
	Z3_ast lit;
};

struct ych {
	int o, f, l;
	int64_t cost;
	Z3_ast lit;
};

struct zx {
	Z3_context ctx;
	Z3_solver s;
	Z3_sort bs;
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
	unsigned next_sym;
	struct guard *guards;
	int n_guards, cap_guards;
	Z3_ast *assume;
	int n_assume, cap_assume;
	struct btc_schedule cur; /* the last model */
	int cur_y[BTC_SCHED_MAX_PUS];
	int cur_n;
	int64_t v1;    /* min_tmax0's cache, 0: not computed */
	bool filtered; /* bt's filter, with G* gstar */
	int64_t gstar;
	double deadline;
	bool expired;
	long checks;
};

/* A fresh Boolean constant. */
Z3_ast btc_zx_fresh(struct zx *z);

/* !a. */
static inline Z3_ast btc_zx_not(struct zx *z, Z3_ast a)
{
	return Z3_mk_not(z->ctx, a);
}

/* Asserts the clause lits[0] | ... | lits[k - 1] (k >= 1). */
static inline void btc_zx_clause(struct zx *z, unsigned k, Z3_ast *lits)
{
	Z3_solver_assert(z->ctx, z->s, k == 1 ? lits[0] : Z3_mk_or(z->ctx, k, lits));
}

/* First index j with a[j] >= v (n if none). */
int btc_zx_first_ge(const int64_t *a, int n, int64_t v);

/* Encodes the chunks allowed by `useful` ([n_opts * n * n] 0/1, or NULL:
 * every chunk of the space). */
void btc_zx_encode(struct zx *z, const unsigned char *useful);

/* bt's filter: T_min >= ceil((a T_max - b G*) / b). */
int64_t btc_zx_filter_lo(const struct zx *z, int64_t v);

/* The guard literal of a bound (T_max <= value, T_min >= value, gapness
 * <= value, in quanta), its clauses asserted once on first use. */
Z3_ast btc_zx_guard(struct zx *z, enum gkind kind, int64_t value);

/* "key <= v" as a guard; fixed_tmax >= 0: T_max is known to equal it,
 * so gapness <= v is T_min >= fixed_tmax - v. */
Z3_ast btc_zx_key_guard(struct zx *z, enum key k, int64_t v, int64_t fixed_tmax);

/* Keeps the first `keep` assumptions / appends one. */
void btc_zx_assume_reset(struct zx *z, int keep);

void btc_zx_assume(struct zx *z, Z3_ast lit);

/* Checks under the assumptions; on sat the model's schedule is z->cur.
 * Returns 1 sat, 0 unsat, -1 time budget spent. */
int btc_zx_check(struct zx *z);

/* Blocks the model's schedule (under g when not NULL): C5. */
void btc_zx_block(struct zx *z, Z3_ast g);

/* Minimises key k over the first `keep` assumptions from the model in
 * z->cur (as in sched_z3.c). Returns 0, or -1 on expiry. */
int btc_zx_minimise(struct zx *z, int keep, enum key k, int64_t lo, bool probe_lo,
		    int64_t fixed_tmax, int64_t *val);

/* The smallest schedule in vector order (btc_sched_cmp_*: codes stage by
 * stage, then the boundaries, an unbroken run first) under the first
 * `keep` assumptions, from the model in z->cur. Returns 0 or -1. */
int btc_zx_lexmin(struct zx *z, int keep);

/* Adds z->cur to f and blocks it under g. */
void btc_zx_found_add(struct zx *z, struct found *f, Z3_ast g);

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

/* The ranking of opt's objective into res (sched_space_rank.c). */
void btc_zx_rank(struct zx *z, const struct btc_sched_options *opt, struct btc_sched_result *res);

#endif
