/* BT-Optimizer: the pipeline scheduler (BetterTogether paper, Sec. III-D).
 *
 * Pure and loader-independent: a problem is a profiling table (mean time of
 * every stage on every PU) plus options; a result is a ranked list of
 * candidate schedules plus the homogeneous baselines. Two solvers implement
 * the same contract: btc_sched_solve_z3 (the Z3 C API, exact and fast) and
 * btc_sched_solve_exhaustive (plain enumeration, the oracle of the tests).
 * docs/scheduler.md gives the formulation and the precise objectives.
 *
 * Terms. Stages are 0-based in app order, PUs 0-based in table order. A
 * schedule assigns every stage one PU (paper C1) such that the stages of one
 * PU are consecutive (C2, contiguity). Its chunks are the maximal runs of
 * consecutive stages on one PU, so a PU runs at most one chunk and a
 * schedule has at most n_pus chunks. A chunk's time is the sum of its stages'
 * times on its PU; T_max and T_min are the largest and smallest chunk times
 * (C3a/C3b) and the gapness is T_max - T_min (O1). T_max is the predicted
 * steady-state period (latency per item) of the pipeline.
 *
 * The larger space (issue 16; options farms, core_splits; space.h): a
 * chunk may also run on some of a CPU PU's cores (several chunks sharing
 * the PU) or be a farm over a set of PUs; candidates then have at least two
 * chunks or a farm. Both options off: the paper's space, exactly.
 *
 * Ranking key. The solvers compare times in integer quanta (1 ns, or a
 * coarser power of ten when the table's sums would not fit the 31-bit
 * pseudo-Boolean coefficients; result.quantum_ns says which), each stage's
 * mean rounded once. Ties are broken by the other time, then by the
 * stage-to-PU vector in lexicographic order, so the ranking is a total
 * order fixed by the table alone, whichever solver computes it. Reported
 * times are exact double sums recomputed from time_ms.
 */
#ifndef BTC_OPTIMIZER_H
#define BTC_OPTIMIZER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/diag.h"

#define BTC_SCHED_MAX_PUS 32 /* forbid_mask is one bit per PU */
#define BTC_SCHED_MAX_STAGES 1024
#define BTC_SCHED_DEFAULT_K 20
#define BTC_SCHED_DEFAULT_UTIL_PCT 50 /* see docs/scheduler.md */
/* The exhaustive solver refuses problems with more schedules than this
 * (counted before enumerating). */
#define BTC_SCHED_EXHAUSTIVE_LIMIT 20000000.0

/* Profiled core counts per PU: at most this many below the PU's size. */
#define BTC_SCHED_MAX_CORE_COUNTS 8
/* Farms take every set of 2 to this many allowed PUs, and the set of all
 * allowed PUs (the whole-device farm), unless options say otherwise. */
#define BTC_SCHED_FARM_MAX_PUS 4

/* One PU's cores as the optimizer may split them (issue 16). */
struct btc_sched_cores {
	int size;     /* cores of a CPU PU (>= 1); 0: not a CPU PU (a GPU is
		       * one unit, never split) */
	int n_counts; /* profiled counts below size, 0..BTC_SCHED_MAX_CORE_COUNTS */
	int counts[BTC_SCHED_MAX_CORE_COUNTS]; /* ascending, each 1..size-1 */
};

static inline size_t btc_sched_cores_index(int n_pus, int stage, int pu, int j)
{
	return ((size_t)stage * (size_t)n_pus + (size_t)pu) * BTC_SCHED_MAX_CORE_COUNTS + (size_t)j;
}

/* The profiling table of one mode. Borrowed by the solvers, never freed. */
struct btc_sched_problem {
	int n_stages; /* 1..BTC_SCHED_MAX_STAGES */
	int n_pus;    /* 1..BTC_SCHED_MAX_PUS */
	/* [n_stages * n_pus], row-major: time_ms[stage * n_pus + pu] is the
	 * mean time in milliseconds of the stage on the PU; NAN means no
	 * kernel for that PU's backend (no x[i][c] variable exists). Finite
	 * and >= 0 otherwise. */
	const double *time_ms;
	/* The chunk model's further terms (sched/model.h, docs/scheduler.md
	 * "The chunk model"); all absent (NULL, 0) is the paper's model.
	 * fixed_ms: [n_pus] F_c, ms per chunk per task, finite >= 0, or NULL.
	 * xfer_ms: [n_stages * n_pus * n_stages] X_c(f, l) at
	 * btc_model_xfer_index(n_stages, n_pus, c, f, l), ms, finite >= 0
	 * for f <= l, or NULL. With the model terms, time_ms holds t_{i,c},
	 * the stage's compute time alone. io_ms: T_io, ms per task (>= 0);
	 * the predicted period is max(T_io, T_max). */
	const double *fixed_ms;
	const double *xfer_ms;
	double io_ms;
	/* start_ms: [n_stages * n_pus] S_{i,c}, ms, finite >= 0, or NULL: the
	 * chunk boundary term, paid by a chunk on c that starts at stage i
	 * (btrt_model.h). With it time_ms holds t^in_{i,c}, the stage's time
	 * inside a chunk, and t^in + S its time alone (the table's
	 * `@in_chunk:STAGE` rows; docs/scheduler.md "The chunk model"). */
	const double *start_ms;
	/* Core counts (issue 16; docs/scheduler.md, "The larger space"); NULL:
	 * every CPU PU runs one team on all its cores (the paper).
	 * cores: [n_pus] per PU its size and the profiled core counts below
	 * it. time_cores_ms: [n_stages * n_pus * BTC_SCHED_MAX_CORE_COUNTS],
	 * at btc_sched_cores_index(n_pus, stage, pu, j): the stage's time in
	 * ms on cores[pu].counts[j] cores of the PU (with the model terms:
	 * t_{i,c,k}, compute alone); NAN: not measured. Both or neither. */
	const struct btc_sched_cores *cores;
	const double *time_cores_ms;
	const char *const *stage_names;  /* [n_stages] or NULL ("stage<i>") */
	const char *const *pu_names;     /* [n_pus] or NULL ("pu<c>") */
	const char *app, *device, *mode; /* labels for the output, or NULL */
};

enum btc_sched_objective {
	/* Level 1: minimum gapness G* over multi-chunk schedules. Level 2:
	 * the K lowest-T_max multi-chunk schedules with
	 * U * T_max - T_min <= G*  (U = util_pct / 100), i.e. gapness at most
	 * G* + (1 - U) * T_max. U = 0 is `latency`, U = 1 keeps only
	 * minimum-gapness schedules. */
	BTC_SCHED_BT,
	/* The K lowest-gapness multi-chunk schedules (ties by T_max),
	 * reported in T_max order: the paper's O1 with C5 blocking. */
	BTC_SCHED_GAPNESS,
	/* The K lowest-T_max multi-chunk schedules (ties by gapness): the
	 * paper's latency-only comparison model. */
	BTC_SCHED_LATENCY,
};

struct btc_sched_options {
	enum btc_sched_objective objective; /* default BTC_SCHED_BT */
	int top_k;                          /* K >= 1; default BTC_SCHED_DEFAULT_K */
	uint32_t forbid_mask;               /* bit c set: PU c runs nothing */
	/* [n_stages] PU index or -1, or NULL: pin[i] = c forces stage i on
	 * PU c. Borrowed. */
	const int *pin;
	int max_chunks;     /* 0: no limit; else at most this many chunks */
	int time_budget_ms; /* 0: none; on expiry the best schedules found
				 * so far are returned with optimal = false
				 * (z3 only; the result is then timing-
				 * dependent) */
	int util_pct;       /* U of BTC_SCHED_BT in percent, 0..100 */
	/* The larger space (issue 16; docs/scheduler.md, "The larger
	 * space"); both off: the paper's space, exactly today's results.
	 * farms: a chunk may be a farm, a range of stages taken in turn by
	 * a set of PUs (every set of 2 to farm_max_pus allowed PUs, and the
	 * set of all allowed PUs). core_splits: a CPU PU may run several
	 * chunks, each on one of its profiled core counts, their cores
	 * summing to at most the PU's size (problem.cores). */
	bool farms;
	bool core_splits;
	int farm_max_pus; /* 0: BTC_SCHED_FARM_MAX_PUS; else 2..32 */
};

/* Sets the defaults above. */
void btc_sched_options_init(struct btc_sched_options *opt);

struct btc_sched_chunk {
	int pu;
	int first_stage, last_stage; /* inclusive, 0-based */
	double time_ms;              /* btc_model_chunk_time_ms: F + sum t + X;
				      * a farm: 1 / sum over its admitted PUs
				      * of 1 / that (btc_model_farm_ms) */
	/* Farm (replicated chunk, issue 16): 0 for an ordinary chunk on `pu`.
	 * Otherwise the bit set of the PUs that take this chunk's tasks in
	 * turn (dynamic self-scheduling, results reordered); bit `pu` is set
	 * and `pu` is the lowest PU of the set. */
	uint32_t farm;
	/* CPU PU: the number of the PU's cores this chunk's team uses
	 * (1..the PU's size); 0: all of them (the paper). Several chunks may
	 * share a CPU PU when their cores sum to at most its size. For a farm
	 * member that is a CPU PU: 0 (all its cores). */
	int cores;
};

/* One schedule: chunks in stage order (at most BTC_SCHED_MAX_PUS, also in
 * the larger space). */
struct btc_schedule {
	int n_chunks;
	struct btc_sched_chunk chunks[BTC_SCHED_MAX_PUS];
	double tmax_ms, tmin_ms, gapness_ms; /* exact, from the chunk times */
	double period_ms;                    /* P = max(T_io, T_max) */
	int64_t tmax_q, tmin_q, gap_q;       /* ranking key, in quanta */
	int pool;                            /* TaskObjects it needs
					      * (btc_model_pool), 0 unknown */
};

/* A homogeneous (single-chunk) schedule: every stage on one PU. */
struct btc_sched_baseline {
	int pu;
	double time_ms;   /* the one chunk's time */
	double period_ms; /* max(T_io, time_ms) */
};

struct btc_sched_result {
	/* Ranked candidates (rank 1 first; order: T_max, gapness, stage-to-PU
	 * vector), all multi-chunk; at most top_k, fewer when fewer exist. */
	struct btc_schedule *candidates;
	int n_candidates;
	/* Every PU that is not forbidden and has a kernel for every stage, in
	 * PU order (pins and max_chunks do not apply to baselines). */
	struct btc_sched_baseline *baselines;
	int n_baselines;
	int best_baseline; /* index into baselines of the fastest, or -1 */
	bool optimal;      /* false: time budget expired (z3) */
	double solve_ms;   /* wall time of the solver call */
	enum btc_sched_objective objective;
	int util_pct;       /* U used (BTC_SCHED_BT) */
	int64_t quantum_ns; /* the ranking key's time unit */
	int64_t gstar_q;    /* BTC_SCHED_BT: G* in quanta, else -1 */
	double gstar_ms;    /* G* * quantum (approximate), or -1 */
	long n_checks;      /* Z3 check calls, or schedules enumerated */
	bool space;         /* the larger space was searched (farms or core
			     * splits added schedules): the output names
			     * chunks as btc_sched_chunk_label does */
	bool farms, core_splits; /* the options of that space */
	/* The fluid bound (sched/bound.h, ms per task), set by the caller
	 * after solving (the solvers leave has_fluid_bound false); the
	 * output prints it and the best candidate's efficiency when set. */
	bool has_fluid_bound;
	double fluid_bound_ms;
	/* With it, the assignment bound (btc_sched_assign_bound's bound_ms,
	 * >= the fluid bound; the tighter, the one the efficiency uses) and
	 * whether its MIP was solved (false: it equals the fluid bound). */
	double assign_bound_ms;
	bool assign_exact;
	/* The assignment bound's own assignment as a schedule
	 * (btc_sched_assign_schedule; times from the problem), set by the
	 * caller with the bounds when it is a schedule of the space:
	 * has_assign_schedule, and assign_rank its 1-based rank among the
	 * candidates, 0 when the space left it out (docs/scheduler.md, "The
	 * assignment bound's assignment"). */
	bool has_assign_schedule;
	struct btc_schedule assign_schedule;
	int assign_rank;
};

/* Checks the problem and the options; reports each user error (naming the
 * stage and the PU) through d and returns BTC_ERR_TABLE or BTC_ERR_USAGE,
 * or BTC_OK. Called by both solvers. */
enum btc_status btc_sched_validate(const struct btc_sched_problem *p,
				   const struct btc_sched_options *opt, struct btc_diag *d);

/* Both solvers: fill *res (zeroed first; release with
 * btc_sched_result_free, also after an error). Return BTC_OK (also when
 * there is no multi-chunk schedule: n_candidates = 0), BTC_ERR_TABLE /
 * BTC_ERR_USAGE (reported through d), BTC_ERR_UNSAT (the pins, forbidden
 * PUs and missing kernels leave no schedule at all, reported), or
 * BTC_ERR_LIMIT (exhaustive only: too many schedules, reported). */
enum btc_status btc_sched_solve_z3(const struct btc_sched_problem *p,
				   const struct btc_sched_options *opt,
				   struct btc_sched_result *res, struct btc_diag *d);
enum btc_status btc_sched_solve_exhaustive(const struct btc_sched_problem *p,
					   const struct btc_sched_options *opt,
					   struct btc_sched_result *res, struct btc_diag *d);

void btc_sched_result_free(struct btc_sched_result *res);

/* Number of schedules (single- and multi-chunk) the exhaustive solver would
 * enumerate for p under opt, as a double (it may exceed 2^63). In the
 * larger space the presolve's exact count, or when its states are too many
 * the bound sum_k C(n-1, k-1) * options^k. */
double btc_sched_count(const struct btc_sched_problem *p, const struct btc_sched_options *opt);

/* Speedup of a candidate over the best baseline (baseline period /
 * candidate period; without T_io: baseline time / T_max),
 * or 0 when there is no baseline. */
double btc_sched_speedup(const struct btc_sched_result *res, const struct btc_schedule *s);

/* Output (btc schedule --format text|json). JSON contract:
 * {"app","device","mode","objective","candidates":[{"rank","tmax_ms",
 * "tmin_ms","gapness_ms","speedup","chunks":[{"pu","first_stage",
 * "last_stage","time_ms"}]}],"baselines":[{"pu","time_ms"}],
 * "fluid_bound_ms","assign_bound_ms","assign_exact" (only when
 * res->has_fluid_bound),"assign_schedule":{"candidate_rank","tmax_ms",
 * "gapness_ms","chunks"} (only when res->has_assign_schedule;
 * candidate_rank 0: not among the candidates),"optimal","solve_ms"}; stages 0-based, PUs by name, times with 6 decimals. When
 * res->space, every chunk also has "cores" (0: all) and a farm "farm"
 * (its PU names), and the object "space":{"farms","core_splits"}; with
 * farms every candidate also has "pool" (btc_model_pool: the TaskObjects
 * it needs, what the generator emits). With
 * with_time = false solve_ms is written as 0 so that the bytes depend on
 * the input alone. Return 0, or -1 on a write error. */
int btc_sched_print_json(FILE *out, const struct btc_sched_problem *p,
			 const struct btc_sched_result *res, bool with_time);
int btc_sched_print_text(FILE *out, const struct btc_sched_problem *p,
			 const struct btc_sched_result *res, bool with_time);

/* A chunk as `PU:FIRST-LAST` (`PU:STAGE` for one stage), `PU[CORES]:...`
 * on fewer cores, `{PU,PU,...}:...` for a farm (docs/scheduler.md);
 * PU names from p (or pu<c>). Writes at most n bytes to buf, returns buf. */
char *btc_sched_chunk_label(const struct btc_sched_problem *p, const struct btc_sched_chunk *ch,
			    char *buf, size_t n);

const char *btc_sched_objective_name(enum btc_sched_objective o);
/* "bt", "gapness", "latency" -> 0 and *o; else -1. */
int btc_sched_objective_parse(const char *s, enum btc_sched_objective *o);

/* ---- shared by the two solvers (btc/sched/sched.c); not for other callers ---- */

/* The problem in quanta, after validation. */
struct btc_sched_prep {
	int n, p; /* stages, PUs */
	int64_t quantum_ns;
	int64_t *tq;            /* [n * p] quantised times, -1 = not allowed
				 * (no kernel, forbidden, or pinned elsewhere) */
	int64_t *fq;            /* [p] quantised F_c (0 without the term) */
	int64_t *xq;            /* [n * p * n] quantised X_c(f, l) + S_{f,c}
				 * at btc_model_xfer_index, or NULL (both 0) */
	bool mono;              /* chunk costs grow with the chunk (no X):
				 * the solvers may stop extending a chunk
				 * once it exceeds a bound */
	int util_num, util_den; /* U reduced: util_pct / 100 */
	bool min_chunks2;       /* always true: candidates are multi-chunk */
	/* The larger space (issue 16), else NULL / false: */
	int64_t *tkq;   /* [n * p * BTC_SCHED_MAX_CORE_COUNTS] quantised
			 * t_{i,c,k} at btc_sched_cores_index, -1 = not
			 * allowed; only with core splits */
	bool space;     /* farms or core splits change the space: the
			 * solvers use btc/sched/space.h */
};

/* The largest relative error the quantisation may add to a nonzero stage
 * time; btc_sched_prepare rejects a table that would need more. */
#define BTC_SCHED_MAX_QUANT_ERR 0.01

/* Validates, picks the quantum and quantises the table (prep->tq). A table
 * whose times span so many orders of magnitude that the quantum would round
 * a nonzero time to 0 or by more than BTC_SCHED_MAX_QUANT_ERR is an error
 * naming the stage and the PU (BTC_ERR_TABLE). */
enum btc_status btc_sched_prepare(const struct btc_sched_problem *p,
				  const struct btc_sched_options *opt, struct btc_sched_prep *prep,
				  struct btc_diag *d);

/* A solver over a prepared problem: owns prep (frees it with
 * btc_sched_prep_free on every path); t0 is when the solve began
 * (btc_sched_now_ms, for res->solve_ms). */
typedef enum btc_status (*btc_sched_prepared_fn)(const struct btc_sched_problem *p,
						 const struct btc_sched_options *opt,
						 struct btc_sched_prep *prep,
						 struct btc_sched_result *res, struct btc_diag *d,
						 double t0);

/* The one start of a solve (btc_sched_solve_exhaustive, btc_sched_solve_z3):
 * clears res, prepares p (btc_sched_prepare, whose error it returns) and
 * hands the prep to solve. */
enum btc_status btc_sched_solve_prepared(const struct btc_sched_problem *p,
					 const struct btc_sched_options *opt,
					 struct btc_sched_result *res, struct btc_diag *d,
					 btc_sched_prepared_fn solve);
void btc_sched_prep_free(struct btc_sched_prep *prep);

/* Quantised cost of the chunk (PU c, stages f..l) whose stage sum in
 * quanta is sum_tq: F_c + sum_tq + X_c(f, l) + S_{f,c} (xq holds both
 * chunk terms), the integer twin of btc_model_chunk_ms. */
static inline int64_t btc_sched_chunk_q(const struct btc_sched_prep *prep, int c, int f, int l,
					int64_t sum_tq)
{
	int64_t q = prep->fq[c] + sum_tq;
	if (prep->xq)
		q += prep->xq[((size_t)f * (size_t)prep->p + (size_t)c) * (size_t)prep->n +
			      (size_t)l];
	return q;
}

/* Whether opt's farms or core splits add schedules to p's space (at least
 * two PUs allowed for farms; a CPU PU with a profiled core count for core
 * splits); else the solvers run the paper's space exactly. */
bool btc_sched_space_wanted(const struct btc_sched_problem *p, const struct btc_sched_options *opt);

/* Builds the schedule of a stage-to-PU vector a[n] (must satisfy C1/C2);
 * exact ms sums from p->time_ms, keys from prep->tq. */
void btc_sched_from_assignment(const struct btc_sched_problem *p, const struct btc_sched_prep *prep,
			       const int *a, struct btc_schedule *s);

/* Fills s's T_max and T_min (ms, over s->chunks[k].time_ms), gapness,
 * period and pool (btc_model_period_ms, btc_model_pool), and the ranking
 * keys tmax_q, tmin_q and gap_q from q[k], chunk k's cost in quanta (one per
 * chunk, s->n_chunks of them). The one place a schedule's summary is made. */
void btc_sched_summarize(const struct btc_sched_problem *p, const int64_t *q,
			 struct btc_schedule *s);

/* Total orders: <0, 0, >0. by_tmax: (T_max, gapness, vector);
 * by_gap: (gapness, T_max, vector). The vector is compared chunk-wise,
 * which equals comparing the stage-to-PU vectors lexicographically. */
int btc_sched_cmp_tmax(const struct btc_schedule *x, const struct btc_schedule *y);
int btc_sched_cmp_gap(const struct btc_schedule *x, const struct btc_schedule *y);

/* qsort adapter of btc_sched_cmp_tmax over struct btc_schedule. */
int btc_sched_qsort_tmax(const void *x, const void *y);

/* Fills res->baselines / best_baseline and the header fields. */
void btc_sched_result_begin(const struct btc_sched_problem *p, const struct btc_sched_options *opt,
			    const struct btc_sched_prep *prep, struct btc_sched_result *res);

/* Presolve by dynamic programming over (next stage, set of PUs used so
 * far), for at most BTC_SCHED_DP_MAX_PUS PUs (else they return -1):
 * the number of multi-chunk schedules allowed by prep and max_chunks (0 =
 * no limit) whose chunk times all lie in [lo, hi] quanta (a double, exact below
 * 2^53); and the minimum T_max of the schedules whose chunk times are
 * all >= lo (INT64_MAX: none).
 * O(n^2 * p * 2^p). The Z3 solver uses them to skip its hardest proofs;
 * the exhaustive oracle does not. */
#define BTC_SCHED_DP_MAX_PUS 12
double btc_sched_dp_count(const struct btc_sched_prep *prep, int max_chunks, int64_t lo,
			  int64_t hi);
int64_t btc_sched_dp_min_tmax(const struct btc_sched_prep *prep, int max_chunks, int64_t lo);

/* Marks in useful[(f * p + c) * n + l] (size n * p * n, 0/1) every chunk
 * (PU c, stages f..l) that lies on some multi-chunk schedule with all
 * chunk times <= hi; -1 when p > BTC_SCHED_DP_MAX_PUS, else 0. */
int btc_sched_dp_useful(const struct btc_sched_prep *prep, int max_chunks, int64_t hi,
			unsigned char *useful);

/* Tests only: the most schedules the Z3 solver enumerates in a window
 * before it falls back to ranking one candidate at a time; 0 = 8 K + 64.
 * Both paths give the same result. */
extern int btc_sched_z3_window_cap;

/* Prepares the process's heap for Z3's first context (transparent huge
 * pages for its two 8 MB tables; sched_z3.c). Idempotent; the solvers
 * call it. */
void btc_sched_z3_memory(void);

/* Monotonic wall clock in ms. */
double btc_sched_now_ms(void);

#endif
