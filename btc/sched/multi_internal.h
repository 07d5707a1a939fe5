/* Shared by the joint solvers (sched/multi*.c); not for other callers. */
#ifndef BTC_MULTI_INTERNAL_H
#define BTC_MULTI_INTERNAL_H

#include "sched/multi.h"
#include "sched/space.h"

/* c_s: the stream's weight (maxmin, sum) or target rate (rates). */
/* Stream s's coefficient in the objective: its target rate under
 * `rates`, its weight otherwise. */
static inline double btc_multi_coeff(const struct btc_multi_problem *m, int s)
{
	const struct btc_multi_stream *st = &m->streams[s];
	return m->objective == BTC_MULTI_RATES ? st->rate : st->weight;
}

/* kappa_p(n), PU p's same-PU capacity with n streams' chunks on it
 * (multi.h): 1 for n < 2 or without capacities. */
double btc_multi_kappa(const struct btc_multi_problem *m, int p, int n);
/* max(1, max over n = 2..S of kappa_p(n)): no assignment's PU p delivers
 * more (the bounds divide by it). */
double btc_multi_kappa_hi(const struct btc_multi_problem *m, int p);
/* cap[np]: each PU's kappa under the streams' masks used[S] (n_p = the
 * streams whose mask holds p). */
void btc_multi_capacities(const struct btc_multi_problem *m, const uint32_t *used, double *cap);

/* sigma of stream s's chunk on PU p when the other streams use the PUs
 * `others`. */
double btc_multi_sigma(const struct btc_multi_problem *m, int s, int p, uint32_t others);

/* Stream s's load per task on each PU (ct[np], 0 where none, no sigma),
 * the time of its slowest chunk on a part of each PU's cores (own[np], 0
 * where none; may be NULL) and its PU mask from its part a of the joint
 * vector; false when a is not a schedule of the stream's space (paper:
 * contiguous, one chunk per allowed PU, every stage with a time; larger:
 * btc_multi_space_chunks). */
bool btc_multi_stream_chunks(const struct btc_multi_problem *m, int s, const int *a, double *ct,
			     double *own, uint32_t *used);

/* ---- the larger space (multi_space.c) ---- */

/* Stream s's chunk options in code order (space.h's struct btc_space_opt;
 * slot unused) and each PU's units (its cores when split, else 1). */
struct btc_multi_space {
	int n;
	struct btc_space_opt *o;
	int units[BTC_SCHED_MAX_PUS];
};
void btc_multi_space_build(const struct btc_multi_problem *m, int s, struct btc_multi_space *T);
void btc_multi_space_free(struct btc_multi_space *T);

/* ct, own and used (as btc_multi_stream_chunks) of stream s's entries a
 * under its options T: a whole-PU chunk loads its PU chunk_ms per task; a
 * chunk on k of a CPU PU's n cores loads it k / n x t_k (its cores' time)
 * and sets own to t_k, the most its team can do; a farm loads every
 * admitted member farm_ms (its share (1/t_c) / sum 1/t of the tasks at
 * t_c each) and uses every member. False when a is no schedule (entries,
 * units, a stage without a time). */
bool btc_multi_space_chunks(const struct btc_multi_problem *m, int s,
			    const struct btc_multi_space *T, const int *a, double *ct, double *own,
			    uint32_t *used);

/* One chunk of a decoded vector: option o (T's index) on stages f..l. */
struct btc_multi_chunk {
	int o, f, l;
};

/* Stream s's chunks of entries a (room for n_stages in ch): the count, or
 * -1 when a's entries or units are no schedule (stage times unchecked). */
int btc_multi_space_decode(const struct btc_multi_problem *m, int s,
			   const struct btc_multi_space *T, const int *a, struct btc_multi_chunk *ch);

/* Stream s's schedules of the larger space, as btc_multi_stream_assignments. */
long btc_multi_space_assignments(const struct btc_multi_problem *m, int s,
				 void (*fn)(const int *a, void *ctx), void *ctx);

/* Stream s's contiguous assignments (btc_multi_stream_assignments) in
 * lexicographic order of their stage-to-PU vectors, each with its chunk
 * times and PU mask (btc_multi_stream_chunks). The search owns the arrays:
 * btc_multi_options_build fills them (n 0 where the stream has none),
 * btc_multi_options_free releases them. Allocation failure aborts
 * (btc_xcalloc). */
struct btc_multi_options {
	int n, n_stages, np;
	int *a;         /* [n * n_stages] the vectors, lexicographic */
	double *ct;     /* [n * np] ms per task of each chunk, 0 off the mask */
	double *own;    /* [n * np] btc_multi_stream_chunks' own, or NULL in
			 * the paper's space */
	double *self;   /* [n] max(T_io, max_p own): every option's own limit
			 * without sigma (>= 1), a lower bound on
			 * btc_multi_self_ms whatever the others; T_io in the
			 * paper's space */
	uint32_t *used; /* [n] the PUs each assignment uses */
};
void btc_multi_options_build(const struct btc_multi_problem *m, int s,
			     struct btc_multi_options *L);
void btc_multi_options_free(struct btc_multi_options *L);
/* The least own limit (ms per task: T_io, split teams) over L's options,
 * min_o L->self[o]; INFINITY when L has none. A stream can do no better
 * whatever the others do. */
double btc_multi_options_least_self(const struct btc_multi_options *L);

/* The larger space's part of btc_multi_options_build: stream s's
 * schedules in walk order into L->a, ct, own and used (L->n of them; L
 * zeroed with n_stages and np set), each chunk's time tabulated once; the
 * loads are btc_multi_space_chunks' to the bit (the same additions in the
 * same order). */
void btc_multi_space_options(const struct btc_multi_problem *m, int s,
			     struct btc_multi_options *L);

/* Sorts order[0..n) (option indices) by key[index] ascending, ties by
 * index: the searches' cheapest-first orders, the same on every run. */
void btc_multi_order_by_key(const double *key, int *order, int n);

/* The ranking cost from every stream's chunk times ct[S * np], own times
 * own[S * np] (NULL: none) and masks: fills t[S * np] (with sigma) and,
 * for sum, rate[S]. The peak also takes c_s own_{s,p} sigma_{s,p} (a
 * chunk on part of a PU's cores runs no faster than its team: r_s
 * own_{s,p} sigma_{s,p} <= 1). INFINITY when the sum LP fails. */
double btc_multi_cost(const struct btc_multi_problem *m, const double *ct, const double *own,
		      const uint32_t *used, double *t, double *rate);

/* Stream s's own limit: max(T_io_s, max_p own_{s,p} sigma_{s,p}), ms per
 * task, from own[S * np] (NULL: T_io_s) and the streams' masks. */
double btc_multi_self_ms(const struct btc_multi_problem *m, int s, const double *own,
			 const uint32_t *used);

/* The sum of x[0..n) (n <= BTC_MULTI_MAX_STREAMS) rounded once, to
 * nearest, ties to even (math.fsum): a PU's load does not depend on the
 * order of its terms, and it is the exact sum of the terms rounded, which
 * the Z3 encoding (multi_z3*.c) reasons about in rational arithmetic. */
double btc_multi_fsum(const double *x, int n);

/* The load of PU c: the terms c_s t[s][c] of streams s < upto (t: [S *
 * np] with sigma), summed by btc_multi_fsum. */
double btc_multi_load(const struct btc_multi_problem *m, const double *t, int c, int upto);

/* max(max_p load_p / kappa_p(n_p), max_s c_s T_io_s), and where it is
 * (n_p from the masks used[S]; the division is exact when kappa is 1). */
double btc_multi_peak_cost(const struct btc_multi_problem *m, const double *t,
			   const uint32_t *used, int *bottleneck);

/* sum: max sum_s w_s r_s s.t. sum_s r_s t[s][p] <= cap[p] (NULL: 1),
 * 0 <= r_s <= 1 / self_s (GLPK; self[S] the streams' own limits,
 * btc_multi_self_ms, or NULL: T_io_s); rate[S] and *value. false when
 * GLPK finds no optimum. */
bool btc_multi_sum_lp(const struct btc_multi_problem *m, const double *t, const double *cap,
		      const double *self,
		      double *rate, double *value);

bool btc_multi_interchangeable(const struct btc_multi_problem *m, int s, int k);

/* The nearest stream k < s interchangeable with stream s
 * (btc_multi_interchangeable), or -1: the symmetry the searches break by
 * keeping k's vector lexicographically at most s's. */
int btc_multi_prev_interchangeable(const struct btc_multi_problem *m, int s);

/* max_s c_s T_io_s in ms: the io term of the peak cost, a floor under every
 * schedule's cost (maxmin, rates). */
double btc_multi_io_cost(const struct btc_multi_problem *m);

/* The joint solvers' common start: *r cleared (no candidates, no time) and
 * m checked by btc_multi_validate (a problem is reported through d). Returns
 * BTC_OK when the search may go on, else validate's status. */
enum btc_status btc_multi_begin(const struct btc_multi_problem *m, struct btc_multi_result *r,
				struct btc_diag *d);

/* Keeps r->c the k best (cost, a) seen, ranked; a has n entries (copied). */
void btc_multi_topk_insert(struct btc_multi_result *r, int k, int n, double cost, const int *a);

/* btc_multi_solve_bb within max_nodes nodes of its search (0: no limit):
 * BTC_ERR_LIMIT, not reported, with *r partial, when they are spent. */
enum btc_status btc_multi_solve_bb_budget(const struct btc_multi_problem *m,
					  struct btc_multi_result *r, long max_nodes,
					  struct btc_diag *d);

/* The number of occupancy states of the workload (the product over the
 * streams of the distinct PU masks of their assignments; see
 * multi_occupancy.c), or BTC_MULTI_OCC_STATES + 1 when there are more;
 * 0 when some stream has no assignment. */
long btc_multi_occupancy_states(const struct btc_multi_problem *m);

/* The product of the per-stream counts n[0..S), capped at
 * BTC_MULTI_OCC_STATES + 1; 0 when some count is 0. */
long btc_multi_states_product(const int *n, int S);

/* Reports the first stream without any assignment (counts[s] == 0). */
bool btc_multi_every_stream_placed(const struct btc_multi_problem *m, const long *counts,
				   struct btc_diag *d);

#endif
