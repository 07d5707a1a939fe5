/* The one Z3 layer of BT-Optimizer (z3_core.c), under both encodings,
 * the paper's space (z3_paper.h: sched_z3_encode.c, sched_z3_query.c,
 * sched_z3.c) and the larger space (z3_space.h: sched_z3_space.c,
 * sched_z3_space_query.c, sched_space_rank.c, sched_z3_space_solve.c): the
 * context and solver they start from, one session (struct btc_z3: fresh
 * literals, assumptions, guard literals cached by kind and value, checks
 * under the time budget) and the search steps over it that do not depend
 * on the encoding (bisection of a key, the lexicographic walk's dispatch,
 * recording and blocking a found schedule), the keys they rank by and the
 * schedules an enumeration found. An encoding plugs in through struct
 * btc_z3_ops. Internal to sched/. */
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

/* The guard literals: g -> (T_max <= value), g -> (T_min >= value), g ->
 * (gapness <= value), in quanta. */
enum guard_kind { G_TMAX_LE, G_TMIN_GE, G_GAP_LE };

struct guard {
	enum guard_kind kind;
	int64_t value;
	Z3_ast lit;
};

struct btc_z3;

/* What an encoding tells the shared steps. "The model" is the encoding's
 * copy of the last satisfying assignment (a stage-to-PU vector, or chunks). */
struct btc_z3_ops {
	/* reads a satisfying Z3 model into the model */
	void (*read)(struct btc_z3 *b, Z3_model m);
	/* key k of the model, quanta */
	int64_t (*key)(const struct btc_z3 *b, enum key k);
	/* asserts the clauses of guard g (a fresh literal) for kind, value */
	void (*encode_guard)(struct btc_z3 *b, Z3_ast g, enum guard_kind kind, int64_t value);
	/* the model as a schedule (times from the problem, keys in quanta) */
	void (*schedule)(const struct btc_z3 *b, struct btc_schedule *out);
	/* asserts "not the model's schedule" (under g when g is not NULL): C5 */
	void (*block)(struct btc_z3 *b, Z3_ast g);
	/* the smallest schedule in vector order under the first `keep`
	 * assumptions, from the model; 0, or -1 on expiry */
	int (*lexmin)(struct btc_z3 *b, int keep);
	/* bytes of a saved model; save / restore one */
	size_t model_size;
	void (*save)(const struct btc_z3 *b, void *to);
	void (*restore)(struct btc_z3 *b, const void *from);
};

/* One Z3 session: the first member of each encoding's state. */
struct btc_z3 {
	const struct btc_z3_ops *ops;
	Z3_context ctx;
	Z3_solver s;
	Z3_sort bool_sort;
	unsigned next_sym;
	struct guard *guards; /* the cache of btc_z3_guard */
	int n_guards, cap_guards;
	Z3_ast *assume; /* the current assumptions */
	int n_assume, cap_assume;
	/* the ascending distinct values T_max bisects over (the encoding's
	 * chunk costs), borrowed */
	const int64_t *tmax_vals;
	int n_tmax_vals;
	bool filtered;   /* bt's utilisation filter is asserted */
	int64_t gstar;   /* G* of that filter, quanta */
	double deadline; /* ms on btc_sched_now_ms's clock, 0 = none */
	bool expired;
	long checks;
};

/* Starts the session (btc_sched_z3_start) for the encoding's ops and
 * the deadline (0: none); release with btc_z3_stop. */
void btc_z3_start(struct btc_z3 *b, const struct btc_z3_ops *ops, double deadline);
void btc_z3_stop(struct btc_z3 *b);

/* Ends a search: res->optimal false when the budget expired, the
 * candidates in reported order (T_max, btc_sched_qsort_tmax),
 * res->n_checks; then btc_z3_stop. */
void btc_z3_finish(struct btc_z3 *b, struct btc_sched_result *res);

/* A fresh Boolean constant. */
Z3_ast btc_z3_fresh(struct btc_z3 *b);

static inline Z3_ast btc_z3_not(struct btc_z3 *b, Z3_ast a)
{
	return Z3_mk_not(b->ctx, a);
}

static inline void btc_z3_add(struct btc_z3 *b, Z3_ast f)
{
	Z3_solver_assert(b->ctx, b->s, f);
}

/* Asserts the clause a | b2. */
void btc_z3_clause2(struct btc_z3 *b, Z3_ast a, Z3_ast b2);

/* Keeps the first `keep` assumptions; appends one. */
void btc_z3_assume_reset(struct btc_z3 *b, int keep);
void btc_z3_assume(struct btc_z3 *b, Z3_ast lit);

/* Checks under the current assumptions (btc_sched_z3_check); on sat
 * reads the model (ops->read). 1 sat, 0 unsat, -1 expired. */
int btc_z3_check(struct btc_z3 *b);

/* Whether the deadline has passed. */
bool btc_z3_out_of_time(const struct btc_z3 *b);

/* The guard literal of (kind, value), made once (ops->encode_guard) and
 * cached. */
Z3_ast btc_z3_guard(struct btc_z3 *b, enum guard_kind kind, int64_t value);

/* "key <= v" as a guard literal; `fixed_tmax` >= 0 says T_max is known to
 * equal it for every remaining schedule, so gap <= v is T_min >= tmax - v
 * (one bound per chunk instead of one per pair). */
Z3_ast btc_z3_key_guard(struct btc_z3 *b, enum key k, int64_t v, int64_t fixed_tmax);

/* Index of the first of a[0..n) (ascending) >= v; n when none. */
int btc_z3_first_ge(const int64_t *a, int n, int64_t v);

/* minT(L): the least T_max (quanta) of the schedules whose chunks all take
 * >= L quanta; INT64_MAX when there is none, -1 to give up (too much work,
 * out of time, or the presolve failed). */
typedef int64_t (*btc_z3_min_tmax_fn)(void *ctx, int64_t L);

/* G*, the least gapness (quanta), by the presolve: G* = min over L of
 * (minT(L) - L) (the schedule attaining G* with T_min = L* gives
 * minT(L*) - L* <= G*; the one attaining minT(L) has gapness <=
 * minT(L) - L). L runs over sums[0..n_sums) (ascending chunk sums):
 * downwards from the largest sum <= v1 = minT(0) until L <= v1 - best,
 * then upwards, skipping every L <= minT(previous L) - best, to the last
 * feasible L; it stops at 0. -1 when min_tmax gives up. */
int64_t btc_z3_gstar(const int64_t *sums, int n_sums, int64_t v1, btc_z3_min_tmax_fn min_tmax,
		     void *ctx);

/* Minimises key k under the first `keep` assumptions by bisection, from
 * the model (key value hi); lo is a proven lower bound; probe_lo tries lo
 * first; T_max (with fixed_tmax < 0) bisects over b->tmax_vals. On return
 * the model has the minimum (or, after expiry, the best found) and *val
 * is its key. Returns 0, or -1 on expiry. */
int btc_z3_minimise(struct btc_z3 *b, int keep, enum key k, int64_t lo, bool probe_lo,
		    int64_t fixed_tmax, int64_t *val);

/* ops->lexmin. */
int btc_z3_lexmin(struct btc_z3 *b, int keep);

/* ops->block(b, g): blocks the model's schedule (under g, or for good
 * when g is NULL). */
void btc_z3_block(struct btc_z3 *b, Z3_ast g);

/* Schedules found by an enumeration; s grows by doubling (btc_xrealloc),
 * the owner frees it. */
struct found {
	int n, cap;
	struct btc_schedule *s;
};

/* Appends the model's schedule to f and blocks it under g. */
void btc_z3_found_add(struct btc_z3 *b, struct found *f, Z3_ast g);

/* From the model of a satisfiable check under no assumptions: the K best
 * by enumeration in a window: every schedule with primary key
 * <= B is enumerated (blocking clauses under a guard g), where B starts
 * just above the minimum (lo: a proven lower bound of it, probed first
 * when > 0), doubles its distance from it until K schedules lie below,
 * and shrinks to the K-th smallest key found (at most maxkey, the largest
 * chunk cost). When the solver says no schedule with key <= B is left,
 * the found ones include all with key <= B, so the K best of them by the
 * total order are exact (into res). Returns 1 (done), 0 (more than `cap`
 * schedules in the window, usually a level of massive ties: enumerate one
 * at a time instead), -1 (time budget spent; the best
 * found so far are in res, res->optimal false). */
int btc_z3_enumerate_window(struct btc_z3 *b, struct btc_sched_result *res, int K, enum key primary,
			    int64_t lo, int64_t maxkey, int cap);

/* Appends to res (room for K) the next best candidates in the order
 * (primary, secondary, vector), one at a time: bisection on the primary
 * key (the previous candidate's value probed first), on the secondary
 * under it, then lexmin, each candidate blocked for good. Stops at K, when
 * no schedule is left, or on expiry (res->optimal = false). */
void btc_z3_enumerate_exact(struct btc_z3 *b, struct btc_sched_result *res, int K, enum key primary,
			    enum key secondary);

/* The K best of f by the primary key's total order (btc_sched_cmp_tmax or
 * btc_sched_cmp_gap; f->s is sorted) into res->candidates, which has room
 * for K; sets res->n_candidates. */
void btc_sched_z3_take_best(struct btc_sched_result *res, struct found *f, int K, enum key primary);

/* Ends an enumeration of status rc (< 0: it stopped early, so res is not
 * proven optimal): the K best of f into res (btc_sched_z3_take_best), f's
 * schedules freed, b's assumptions dropped. */
void btc_sched_z3_end(struct btc_z3 *b, struct btc_sched_result *res, struct found *f, int K,
		      enum key primary, int rc);

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
