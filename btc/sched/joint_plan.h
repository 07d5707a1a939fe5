/* The joint plan of a workload (issue 27; docs/scheduler.md "Several
 * apps"): several apps and their streams on one chip, planned together.
 * One owned struct btc_joint_plan holds every app (its model, table and
 * single-app plan with its solo-best schedule), the joint problem
 * (sched/multi.h), the solver's top K, the multi-stream fluid bound and
 * naive co-location (every stream on its app's solo-best schedule), and
 * the schedules a generated program needs: per app the union of the
 * vectors (stage-to-PU, or stage-to-code in the larger space) its streams
 * take in the K candidates plus its solo-best one. `btc schedule` prints it (cli/workload_print.c), `btc
 * gen` generates from it (gen/gen.h, btc_gen_joint_project) and the
 * workload job measures it (driver/workload_job.h). */
#ifndef BTC_JOINT_PLAN_H
#define BTC_JOINT_PLAN_H

#include <stdbool.h>

#include "front/workload.h"
#include "sched/multi.h"
#include "sched/plan.h"

/* K of a generated program's joint candidates when --top is not given
 * (`btc gen`, the workload job; `btc schedule` ranks BTC_SCHED_DEFAULT_K):
 * each candidate is raced on the device, and an app's schedules in one
 * program are at most BTC_PLAN_MAX_SPECS. */
#define BTC_JOINT_PROGRAM_K 4

/* Whether the plan uses a same-PU capacity kappa_p(n) (docs/scheduler.md
 * "Same-PU capacity", `--same-pu`). NONE (the default): factor 1 on every
 * PU, in the plan and its bound, whatever @share rows the tables hold
 * (they stay readable); the H100's lease L found the probe's kappa
 * overstating how much the plan's GPU chunks overlap, and plans made with
 * it measured 17-40 % below the plain tables' plan
 * (docs/results/workload-h100.md). PROBE: the measured factors, the
 * request's share table, else the tables' @share rows (what the workload
 * job's and `btc profile A B`'s --share-probe measure). */
enum btc_same_pu { BTC_SAME_PU_NONE, BTC_SAME_PU_PROBE };

/* "none", "probe": the --same-pu value's name. */
const char *btc_same_pu_name(enum btc_same_pu s);

/* What to plan: the workload as the command line gives it. Strings and
 * arrays borrowed for the call. */
struct btc_joint_request {
	const char *workload;               /* a workload file, or NULL */
	const char *const *apps;            /* [n_apps] app files after it */
	int n_apps;
	/* "APP=N", "APP=W", "APP=TASKS/S", "APP=TABLE": APP an app's
	 * `app:` name or its file's stem; they override the file's */
	const char *const *streams, *const *weights, *const *rates, *const *app_tables;
	int n_streams, n_weights, n_rates, n_app_tables;
	const char *tables_dir; /* DIR/STEM/MODE.csv per app, or NULL */
	const char *table;      /* the table of a workload of one app, or NULL */
	/* An app's table when none of the above gives one: a path (the
	 * caller's to find, e.g. the profile cache `btc profile A.yaml
	 * B.yaml` filled; malloc'ed, an existing file) or NULL; cached NULL:
	 * none is looked for. */
	char *(*cached)(const struct btc_app *app, const struct btc_device *dev, void *ctx);
	void *cached_ctx;
	/* each app's single-app plan: mode (the table mode planned on and
	 * loaded), gpu, forbid, paper_model, time budget; the rest is set
	 * here (latency, top 1, no farms or core splits) */
	struct btc_plan_options plan;
	enum btc_multi_objective objective;
	int top_k;              /* K of the joint problem; 0: BTC_SCHED_DEFAULT_K */
	/* Same-PU capacities measured for this workload (the workload job's
	 * probe, driver/share_probe.h): a table whose @share rows (any mode)
	 * replace the apps' tables' ones, or NULL; borrowed. Read only
	 * with same_pu PROBE. */
	const struct btc_table *share;
	enum btc_same_pu same_pu; /* 0: NONE, factor 1 */
	int solver;             /* 0 btc_multi_solve, 1 the oracle
				 * (btc_multi_solve_exhaustive), 2 the branch
				 * and bound alone (btc_multi_solve_bb), 3 the
				 * Z3 search alone (btc_multi_solve_z3) */
};

struct btc_joint_app {
	struct btc_app *app;
	char *table_path;
	struct btc_table *table;
	struct btc_plan *plan; /* the single-app plan (latency, top 1) */
	int *solo;             /* [n_stages] its lowest-period schedule, as
				* a stream's part of a joint vector */
	/* that schedule's chunks (in the joint problem's space: with
	 * --farms / --core-splits the single-app plan searched them too) */
	struct btc_sched_chunk solo_chunks[BTC_SCHED_MAX_PUS];
	int n_solo_chunks;
	double solo_ms;        /* its period, ms per task: the solo best */
	double *slowdown;      /* [n_pus * n_pus] from @corun rows, or NULL */
	enum btc_mode corun_mode; /* the mode of those rows: the scheduled one,
				     else isolated (what btc profile A B writes) */
	/* The schedules of the app in a generated program: [n_vectors]
	 * stage-to-PU vectors of n_stages, the candidates' in order of first
	 * use (candidate by candidate, stream by stream), then the solo-best
	 * one unless already there; solo_vector its index. */
	int **vectors;
	int n_vectors, solo_vector;
};

struct btc_joint_plan {
	struct btc_workload wl;
	const struct btc_device *dev; /* borrowed */
	/* the request's single-app plan options (mode, gpu, forbid: its
	 * strings borrowed as the request's), for the project's plans */
	struct btc_plan_options plan;
	struct btc_joint_app apps[BTC_WORKLOAD_MAX_APPS];
	int n_apps;
	struct btc_multi_stream streams[BTC_MULTI_MAX_STREAMS];
	char names[BTC_MULTI_MAX_STREAMS][64]; /* "octree#0" */
	int n_streams;
	struct btc_multi_problem m;
	/* m.capacity: [n_pus * (n_streams + 1)] kappa_p(n) (owned), or NULL
	 * when nothing measured (every factor 1); share_source says where
	 * the factors came from ("the job's probe", "APP's @share rows
	 * (isolated; measured with octree*4,alexnet_dense*4)"), NULL without */
	double *capacity;
	char *share_source;
	enum btc_same_pu same_pu; /* the request's: NONE leaves capacity NULL */
	struct btc_multi_result result; /* the top K, best first (result.n >= 1) */
	struct btc_multi_eval *evals;   /* [result.n] each candidate evaluated */
	bool has_bound;
	double bound;             /* btc_multi_bound's value */
	int *naive;               /* every stream on its app's solo schedule */
	bool has_naive;
	struct btc_multi_eval naive_eval;
	/* [result.n * n_streams]: candidate k's stream s runs its app's
	 * vector schedule[k * n_streams + s] */
	int *schedule;
};

/* Loads the workload and its apps, each app's table and single-app plan,
 * builds the joint problem, solves it (top K), bounds it, evaluates naive
 * co-location and the candidates, and collects each app's schedules.
 * Reports with file:line:col (two apps of one name, a stage without a
 * kernel for any usable PU, a missing table, bad APP=VALUE options) and
 * returns NULL; else a new plan (btc_joint_plan_free). Borrows dev. */
struct btc_joint_plan *btc_joint_plan_make(const struct btc_joint_request *r,
					   const struct btc_device *dev, struct btc_diag *d);
void btc_joint_plan_free(struct btc_joint_plan *j);

/* Stream s's normalised throughput under evaluation e: r_s x solo_ms
 * (its share of its app's solo-best rate). */
double btc_joint_normalised(const struct btc_joint_plan *j, const struct btc_multi_eval *e, int s);
/* The max-min normalised throughput the model predicts under e:
 * M = min_s r_s x solo_ms (unweighted, as the workload job measures it,
 * driver/colocate.h). */
double btc_joint_min_normalised(const struct btc_joint_plan *j, const struct btc_multi_eval *e);

/* What the plan knows of same-PU capacities, for the output: "none
 * (--same-pu none: factor 1)" (the default), "none measured (factor 1)"
 * (--same-pu probe, no rows), or "vulkan x1.129 at 2 streams, x1.2 at 3
 * streams; measured by this job's probe (isolated)" (every PU with a
 * factor other than 1, every count 2..S). Caller frees. */
char *btc_joint_share_text(const struct btc_joint_plan *j);

/* "big:0-2,gpu:3-6", with farms and splits "{cpu,vulkan}:0-4,cpu[1]:5-8":
 * app a's vector v as a --chunks spec (btc_plan parses it). Caller
 * frees. */
char *btc_joint_spec(const struct btc_joint_plan *j, int a, const int *v);

/* The position of the `app:` value in the app file at path, for an error
 * on a duplicate app name ({path, 1, 1} when it cannot be found). */
struct btc_loc btc_joint_app_name_loc(const char *path);

/* The name by which the command line names app a: its `app:` name, or
 * its file's stem ("alexnet-dense"); whether key (len bytes) names it. */
bool btc_joint_names_app(const struct btc_joint_plan *j, int a, const char *key, size_t len);

#endif
