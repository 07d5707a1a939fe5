/* The joint problem in Z3 (sched/multi.h; docs/scheduler.md, "Several
 * apps"): the encoding (multi_z3_encode.c) and the search over it
 * (multi_z3.c) share this. Internal to sched/. */
#ifndef BTC_MULTI_Z3_H
#define BTC_MULTI_Z3_H

#include <stdbool.h>
#include <z3.h>

#include "sched/multi_internal.h"
#include "sched/sched_z3.h"

/* The terms of one PU's load: literal k adds to - from (ms, the oracle's
 * doubles; a chunk's base term from 0, its slowdown steps from the level
 * below). */
struct mz_terms {
	int n, cap;
	Z3_ast *lit;
	double *from, *to;
	int *s, *f, *l; /* the stream and chunk */
	double *sigma;  /* the term holds when sigma_{s,c} >= this */
};

struct mz_guard {
	double d;
	Z3_ast g;
};

struct mz {
	struct btc_z3 b; /* the session; first, so &z->b is z */
	const struct btc_multi_problem *m;
	int S, np, N;
	int *off;       /* [S + 1] stream s's stages start at off[s] */
	Z3_ast *x;      /* [N * np] stage pos on PU c, NULL: impossible */
	Z3_ast *used;   /* [S * np] stream s has a chunk on c, or NULL */
	struct mz_terms *term; /* [np] */
	int **coef;     /* [np][term n] floor(to / quantum) - floor(from /
			 * quantum): the PB coefficients */
	double *top;    /* [np] the largest load PU c can carry */
	double quantum; /* ms, a power of two */
	Z3_ast *all_lit; /* every PU's terms, for the total's row */
	int *all_coef;
	int n_loaded;    /* PUs with terms */
	struct mz_guard *guard; /* cost_le's, by d */
	int n_guard, cap_guard;
	Z3_ast *lt;     /* [N * np] cache of "a_pos < v" literals */
	double io;      /* max_s c_s T_io_s: every cost is >= it */
	int *a;         /* [N] the model's joint stage-to-PU vector */
	long costed;    /* models costed */
	long max_checks; /* the search's budget (0: none) */
};

static inline struct mz *btc_mz(struct btc_z3 *b)
{
	return (struct mz *)b;
}

/* Starts the session and asserts the encoding of m: every stream a
 * partition of its stages into contiguous chunks, one per PU at most,
 * on allowed PUs with times; interchangeable streams in canonical
 * (non-decreasing lexicographic) order; each PU's terms c_s (chunk_ms x
 * sigma, sigma chosen by the other streams' occupancy) as literals with
 * their doubles and pseudo-Boolean coefficients in quanta rounded down.
 * Release with btc_mz_stop. */
void btc_mz_start(struct mz *z, const struct btc_multi_problem *m);
void btc_mz_stop(struct mz *z);

/* A guard literal g -> "sum of PU c's coefficients <= floor(next(d) /
 * quantum)" for every c: a relaxation of "cost <= d" (every joint
 * schedule of cost <= d satisfies it; a model may cost a little more and
 * is then spurious: the search costs every model by the oracle's
 * arithmetic). Made once per d. NULL when d < io (none qualifies). */
Z3_ast btc_mz_cost_le(struct mz *z, double d);

/* The literal "a_pos < v", or NULL when no PU below v can take pos. */
Z3_ast btc_mz_less(struct mz *z, int pos, int v);

/* Asserts "not the model's joint vector" for good. */
void btc_mz_block(struct mz *z);

/* The model costs more than d (cost_le's slack): asserts under g that the
 * terms which overflow its fullest PU beyond d do not all hold together,
 * which rules out every assignment that loads that PU as much (the true
 * terms of the model's chunks and sigmas, the oracle's arithmetic). */
void btc_mz_block_over(struct mz *z, Z3_ast g, double d);

/* The model's cost by the oracle's arithmetic (btc_multi_cost). */
double btc_mz_cost(struct mz *z);

#endif
