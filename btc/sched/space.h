/* The larger schedule space (issue 16; docs/scheduler.md, "The larger
 * space"): chunks on a subset of a CPU PU's cores and farms (replicated
 * chunks), shared by both solvers. Internal to sched/.
 *
 * A schedule is a sequence of chunks covering the stages in order; each
 * chunk is a range f..l and an *option*: all cores of one PU (the paper's
 * chunk), k profiled cores of a CPU PU, or a farm over a set of PUs. Every
 * PU c has `cap[c]` units: its size when its cores may be split, else 1;
 * an option uses k units of a split PU for k cores and all units of each
 * PU it runs on otherwise, and the chunks of a schedule use at most every
 * PU's units. So without farms and splits (every cap 1, every option one
 * whole PU) this is the paper's space: a PU runs at most one chunk.
 *
 * Candidates are the schedules of at least two chunks or with a farm: a
 * single chunk on one PU is a baseline (all cores) or a CPU PU run on
 * fewer cores, neither of them a pipeline.
 *
 * Costs are the quantised chunk model of btc_sched_chunk_q, the farm's
 * farm_q of its members' costs; the presolve (`btc_space_dp_*`) is the
 * dynamic program of sched.c over (next stage, units used per PU, chunk
 * count), which the Z3 solver uses and the oracle does not. */
#ifndef BTC_SPACE_H
#define BTC_SPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/optimizer.h"

/* What runs a chunk. */
struct btc_space_opt {
	int pu;        /* the lowest PU it runs on */
	int cores;     /* 0: all cores; else k cores of a split CPU PU */
	int slot;      /* k's index in the PU's counts, or -1 */
	uint32_t farm; /* the member set of a farm, or 0 */
	uint32_t pus;  /* every PU it runs on */
	uint64_t code; /* the order of docs/scheduler.md: (PU, kind, detail) */
};

struct btc_space {
	int n, p;
	int n_opts;
	struct btc_space_opt *opts; /* in code order */
	/* [n_opts * n * n]: cost in quanta of option o on stages f..l at
	 * btc_space_cost; -1: not allowed (a stage without a time, pinned
	 * elsewhere, f > l); allowedness ends at the first -1 as l grows */
	int64_t *cost;
	bool mono;                     /* costs grow with l (no transfers) */
	int cap[BTC_SCHED_MAX_PUS];    /* units of each PU */
	uint32_t split;                /* PUs whose cores may be split */
	int kmax;                      /* most chunks of a schedule */
	/* presolve state (btc_space_dp_*): */
	bool dp_ok;                    /* state space small enough */
	int radix[BTC_SCHED_MAX_PUS];  /* cap + 1 */
	size_t stride[BTC_SCHED_MAX_PUS];
	size_t n_usage, n_states;      /* usage vectors; x chunk-count states */
	int n_d;                       /* chunk-count states per usage */
	bool limit_binds;              /* kmax below the most chunks possible */
	uint32_t *fullfree;            /* [n_usage] PUs with no unit used */
	unsigned char *freeu;          /* [n_usage * p] free units */
	size_t *delta;                 /* [n_opts] usage index step */
	int64_t *minc;                 /* [n_opts * n]: least cost of a chunk
					* of option o from stage f (INT64_MAX:
					* none) */
	int *ord;                      /* [n * n_opts]: per first stage, the
					* options by minc ascending */
	/* the least T_max of the completions from every state, with every
	 * chunk <= lb_hi (the first btc_space_dp_min_tmax with lo = 0 keeps
	 * its memo here, filled lazily): the count passes with hi <= lb_hi
	 * skip states that cannot finish under hi */
	struct btc_space_pass *lb;
	int64_t lb_hi;
	struct btc_space_win *win; /* space_gap.c's tables, or NULL: freed
				    * by btc_space_win_free (space_gap.h),
				    * not btc_space_free */
	double deadline;               /* ms (btc_sched_now_ms), 0: none */
	bool expired;
};

static inline int64_t btc_space_cost(const struct btc_space *sp, int o, int f, int l)
{
	return sp->cost[((size_t)o * (size_t)sp->n + (size_t)f) * (size_t)sp->n + (size_t)l];
}

/* ---- the presolve's states: (units used, chunk-count state) ---- */

/* The chunk-count state after a chunk under a binding chunk limit:
 * (chunks, a farm seen). Without the limit there is one state, and the
 * only schedule that is no candidate, a single ordinary chunk over every
 * stage, is left out at the root (btc_space_single). */
static inline int btc_space_d_next(const struct btc_space *sp, int d, bool farm)
{
	if (!sp->limit_binds)
		return 0;
	int ch = d / 2, ff = d % 2;
	if (ch + 1 > sp->kmax)
		return -1;
	return (ch + 1) * 2 + (ff | farm);
}

static inline bool btc_space_accept(const struct btc_space *sp, int d, bool all)
{
	if (!sp->limit_binds)
		return true;
	return all ? d >= 2 : d >= 4 || d % 2;
}

/* The transition (option o, stages i..l) is a whole schedule of one
 * ordinary chunk, which the one-state count leaves out. */
static inline bool btc_space_single(const struct btc_space *sp, int i, int l, int o, bool all)
{
	return !all && i == 0 && l == sp->n - 1 && !sp->limit_binds && !sp->opts[o].farm;
}

/* The state after option o from state st, or (size_t)-1 when o does not
 * fit the units left or the chunk limit. */
static inline size_t btc_space_step(const struct btc_space *sp, size_t st, int o)
{
	size_t u = st / (size_t)sp->n_d;
	int d = (int)(st % (size_t)sp->n_d);
	const struct btc_space_opt *op = &sp->opts[o];
	if (op->cores) {
		if (sp->freeu[u * (size_t)sp->p + (size_t)op->pu] < op->cores)
			return (size_t)-1;
	} else if (op->pus & ~sp->fullfree[u]) {
		return (size_t)-1;
	}
	int dn = btc_space_d_next(sp, d, op->farm != 0);
	if (dn < 0)
		return (size_t)-1;
	return (u + sp->delta[o]) * (size_t)sp->n_d + (size_t)dn;
}

/* Units option o takes of PU c. */
int btc_space_units(const struct btc_space *sp, int o, int c);

/* The larger space's cost table is limited to this many entries
 * (n_opts x n^2). */
#define BTC_SPACE_MAX_COSTS (1 << 24)

/* Builds the options and their costs from the prepared problem (prep->space
 * true). Returns BTC_OK, or BTC_ERR_USAGE (reported: the cost table would
 * exceed BTC_SPACE_MAX_COSTS). Free with btc_space_free. */
enum btc_status btc_space_build(const struct btc_sched_problem *p,
				const struct btc_sched_options *opt,
				const struct btc_sched_prep *prep, struct btc_space *sp,
				struct btc_diag *d);
void btc_space_free(struct btc_space *sp);

/* The farm's cost from its members' costs in quanta: 1 / sum 1 / q_c over
 * the members the pool admits (btrt_model_farm, the rule of
 * btc_model_farm_ms), rounded; 0 when a member's is 0. Members in PU
 * order. */
int64_t btc_space_farm_q(const int64_t *member_q, int n);

/* Whether a schedule with n_chunks chunks, one a farm or not, is a
 * candidate (at least two chunks, or a farm). */
static inline bool btc_space_candidate(int n_chunks, bool farm)
{
	return n_chunks >= 2 || farm;
}

/* The schedule of the chunk list (options o[k] on stages f[k]..l[k], in
 * stage order): exact times (btc_model_chunk_time_ms), keys from the cost
 * table. */
void btc_space_schedule(const struct btc_sched_problem *p, const struct btc_space *sp,
			const int *o, const int *f, const int *l, int n_chunks,
			struct btc_schedule *s);

/* Presolve (Z3 solver only). Each returns -1 when the state space is too
 * large (!sp->dp_ok) or the deadline passed (sp->expired).
 * count: the candidates whose chunk costs all lie in [lo, hi] (a double,
 * exact below 2^53); with all = true every schedule, candidate or not.
 * min_tmax: the least T_max of the candidates whose chunks all cost >= lo
 * and <= hi (INT64_MAX: none; hi bounds the search, INT64_MAX: none).
 * useful: marks useful[(o * n + f) * n + l] (size n_opts * n * n) for every
 * chunk on some candidate with all chunk costs in [lo, hi]. */
double btc_space_dp_count(struct btc_space *sp, int64_t lo, int64_t hi, bool all);
int64_t btc_space_dp_min_tmax(struct btc_space *sp, int64_t lo, int64_t hi);

/* The least cost of a farm over every stage (a candidate of gapness 0),
 * or INT64_MAX when there is none. */
int64_t btc_space_whole_farm(const struct btc_space *sp);
int btc_space_dp_useful(struct btc_space *sp, int64_t lo, int64_t hi, unsigned char *useful);

/* Tests only: the most T_max values bt's counted walk visits before it
 * hands over to the window enumeration; 0 = the default (48). Both paths
 * give the same result. */
extern int btc_space_walk_steps;

/* BT-Optimizer with Z3 over the larger space (sched_z3_space_solve.c), called
 * by btc_sched_solve_z3 when prep->space: same contract; prep is borrowed
 * (the caller frees it); t0: the call's start, ms. */
enum btc_status btc_space_solve_z3(const struct btc_sched_problem *p,
				   const struct btc_sched_options *opt,
				   const struct btc_sched_prep *prep, struct btc_sched_result *res,
				   struct btc_diag *d, double t0);

#endif
