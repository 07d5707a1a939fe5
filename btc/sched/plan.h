/* Planning a build: which schedules a generated project holds. Either the
 * schedules the user spells out (--chunks), or the optimizer's top K on a
 * profiling table; always followed by every homogeneous baseline. The
 * plan (struct btc_plan) owns the problems it was made from, its
 * schedules, their provenance, the solver's ranking and the fluid bound.
 * plan.c: the plan; plan_problem.c: a table mode as a problem; plan_spec.c:
 * --chunks specs and schedule labels. */
#ifndef BTC_PLAN_H
#define BTC_PLAN_H

#include <stdbool.h>

#include "front/app.h"
#include "front/device.h"
#include "front/table.h"
#include "sched/bound.h"
#include "sched/optimizer.h"

#define BTC_PLAN_MAX_SPECS 32
/* `btc tune --exhaustive` measures every schedule of the paper's space
 * when it has at most this many (issue 25, "Regret, measured"): 256
 * holds the dev box's --cpu-groups 2 spaces (two CPU PUs and a GPU:
 * octree's 7 stages 129 schedules, AlexNet's 9 stages 219). */
#define BTC_PLAN_MAX_SPACE 256
/* The main job's near-period slice (plan option period_slice;
 * docs/scheduler.md, "The near-period slice"). Over the 35 committed
 * g2 tables of the H200 leases A to M, 2 puts the schedule most leases
 * chose (alexnet-dense CUDA and Vulkan, octree CUDA and Vulkan) into 33
 * runs' candidate sets, against 24 without the slice, at 1.7 schedules
 * more per run (26.0 on average). */
#define BTC_PLAN_PERIOD_SLICE 2

/* One schedule of a build, the planner's output and the generator's
 * input: chunks over device PU indices. predicted: s.tmax_ms and the chunk
 * times come from the profiling table (every stage of the schedule has a
 * time there). */
struct btc_plan_schedule {
	struct btc_schedule s;
	bool baseline; /* every stage on one PU */
	bool predicted;
	bool space_only; /* --exhaustive: in the build to measure the space's
			  * best (the regret's denominator), never chosen */
	bool from_bound; /* the assignment bound's own assignment, added
			  * beside the optimizer's candidates because they
			  * left it out (docs/scheduler.md, "The assignment
			  * bound's assignment"); a candidate like them */
};

/* A schedule's kind as the generated program (its schedule table,
 * `--list`) and schedule.yaml name it: "baseline", "bound" (from_bound)
 * or "candidate" (an --exhaustive space_only one too, as the report's
 * btc_report_candidate_kind). Static string. */
const char *btc_plan_schedule_kind(const struct btc_plan_schedule *g);

struct btc_plan;
/* The plan's schedules by where they came from: the optimizer's
 * candidates, the baselines, the bound's (0 or 1) and the --exhaustive
 * space_only ones; each schedule counted once. */
void btc_plan_count(const struct btc_plan *plan, int *n_cand, int *n_base, int *n_bound,
		    int *n_space);

/* "big:0-2 gpu:3-6": the schedule's chunks as PU:FIRST-LAST (0-based,
 * inclusive; PU:STAGE for one stage), space-separated; a chunk with a core
 * count as PU[K]:..., a farm as {PU,PU,...}:... (members in PU order), the
 * notation --chunks reads. Caller frees. */
char *btc_plan_schedule_label(const struct btc_schedule *s, const struct btc_device *dev);

struct btc_plan_options {
	enum btc_mode mode;                    /* which table mode to schedule on */
	struct btc_sched_options sched;        /* objective, K, forbid, pins, ... */
	const char *gpu;                       /* "cuda", "vulkan" or NULL (auto) */
	/* "big:0-2,gpu:3-6": at most BTC_PLAN_MAX_SPECS from --chunks, up to
	 * BTC_PLAN_MAX_SPACE from a report's measured schedules (`btc tune
	 * --measurements` of an --exhaustive job) */
	const char *specs[BTC_PLAN_MAX_SPACE];
	int n_specs;
	bool baselines;      /* append the homogeneous baselines */
	bool baselines_only; /* no candidates (the profiling build) */
	/* By name, resolved against the app and device by btc_plan (`btc
	 * schedule`'s --forbid PU and --pin STAGE=PU, STAGE a name or a
	 * 0-based index): added to sched.forbid_mask and sched.pin.
	 * Borrowed. */
	const char *const *forbid; /* [n_forbid] PU names */
	int n_forbid;
	const char *const *pins; /* [n_pins] "STAGE=PU" */
	int n_pins;
	bool paper_model; /* solve and predict with the paper's model (no F,
			   * X, T_io) rather than the chunk model */
	bool exhaustive;  /* the exhaustive solver rather than Z3 */
	/* The candidates from several table modes (docs/scheduler.md,
	 * "Candidates from several tables"): a bit set of modes (1u <<
	 * BTC_MODE_*) whose top K are merged with `mode`'s, duplicates once,
	 * then ranked by their predicted period under `mode` (chunk model
	 * or the paper's, as planned); a mode the table lacks is skipped. 0:
	 * `mode`'s top K alone (the paper). The main job's default is
	 * isolated | interference ranked by isolated (btc_plan_default_modes). */
	uint32_t candidate_modes;
	/* The near-period slice (docs/scheduler.md, "The near-period
	 * slice"): each mode's (`mode`'s and candidate_modes') this many
	 * multi-chunk schedules of least T_max, whatever their gapness, and
	 * their twin mirrors (the same schedule with two twin PUs, CPU PUs of
	 * one core type and size, swapped) join the candidates before the
	 * ranking. 0: none (the paper); the main job's default is
	 * BTC_PLAN_PERIOD_SLICE (btc_plan_default_modes). */
	int period_slice;
	/* --exhaustive: after the candidates and the baselines, every other
	 * schedule of the paper's space (one chunk per PU, no farms or core
	 * splits; the GPU API's mask, --forbid and --pin apply) is added
	 * with space_only set. A space of more than BTC_PLAN_MAX_SPACE
	 * schedules is an error naming its count. */
	bool space;
	/* `btc schedule`: the solver's result is the answer (kept in the
	 * plan with the fluid bound); any solver failure, an unsatisfiable
	 * problem included, and a failed bound fail the plan. */
	bool ranking;
	/* The io threads the device can give service cores beyond the io
	 * source and sink (btc_gen_io_threads_extra); 0: none. btc_plan
	 * chooses plan->load_threads and check_threads within it. */
	uint32_t io_threads_extra;
	/* The io farms as a measured program ran them (`btc tune
	 * --measurements`: the report's, so that T_io is the one its runs
	 * had); 0: btc_plan chooses them (io_threads_extra). Either nonzero
	 * fixes both (the other taken as 1 when 0). */
	uint32_t load_threads, check_threads;
};

/* The most loaders (or check workers) `btc tune --measurements` tries when it
 * recovers an earlier report's io farms (btc_gen_io_threads_extra is at
 * most 3 beyond one of each). */
#define BTC_PLAN_MAX_IO_THREADS 4

void btc_plan_options_init(struct btc_plan_options *o);

/* The main job's and `btc tune`'s candidates when no --mode is given: the
 * top K of the isolated and the interference table merged, ranked by the
 * isolated one (o->mode = isolated, o->candidate_modes = both). On the
 * H100 the interference table ranked 18 schedules at Pearson r 0.31 and
 * left the measured best out; the isolated one ranked them at r 0.995
 * (docs/scheduler.md, "Candidates from several tables"). */
void btc_plan_default_modes(struct btc_plan_options *o);

/* Forbids the PUs of the GPU API not chosen when the device has both CUDA
 * and Vulkan PUs (a pipeline uses one GPU API): `gpu` names the API to
 * keep; NULL keeps CUDA. Returns the PU mask to forbid; reports an unknown
 * name. */
bool btc_plan_gpu_mask(const struct btc_device *dev, const char *gpu, uint32_t *forbid,
		       struct btc_diag *d);

/* Caller-owned storage that a problem borrows: time [n_stages * n_pus],
 * names [n_stages + n_pus], fixed [n_pus], xfer [n_stages * n_pus *
 * n_stages], start [n_stages * n_pus] (the chunk model's F, X and S),
 * cores [n_pus] and time_cores
 * [n_stages * n_pus * BTC_SCHED_MAX_CORE_COUNTS] (the table's core counts,
 * issue 16). */
struct btc_plan_buf {
	double *time, *fixed, *xfer, *start;
	const char **names;
	struct btc_sched_cores *cores;
	double *time_cores;
};
void btc_plan_buf_init(struct btc_plan_buf *b, const struct btc_app *app,
		       const struct btc_device *dev);
void btc_plan_buf_free(struct btc_plan_buf *b);

/* Fills p from the table's `mode`: times in ms, NAN where the stage has no
 * kernel for the PU's backend; p borrows buf, and the app's and device's
 * names, for as long as it is used. With chunk_model and a table that has
 * the model's terms in that mode (docs/scheduler.md, "The chunk model"),
 * p also gets F_c, X_c(f, l) from the app's buffers and the measured links,
 * and T_io, and time_ms holds t_{i,c} = one-stage chunk time - F_c -
 * X_c(i, i) (clamped at 0), so that a one-stage chunk predicts what was
 * measured; where the mode has `@in_chunk` rows, time_ms holds t^in and
 * start_ms the boundary term S = t - t^in (>= 0; NULL without rows);
 * otherwise (or for a table without terms) p is the paper's
 * model. When the table times stages on fewer cores of a CPU PU (`NAME[k]`
 * rows), p->cores and p->time_cores_ms hold them (t_{i,c,k}, the model's
 * terms subtracted the same way), else both are NULL. Reports a table
 * without that mode and returns false. */
bool btc_plan_problem(const struct btc_app *app, const struct btc_device *dev,
		      const struct btc_table *t, enum btc_mode mode, bool chunk_model,
		      struct btc_sched_problem *p, struct btc_plan_buf *buf, struct btc_diag *d);

/* The table mode that predicts schedule s when the planner asks for
 * `mode`: the placed mode measures a stage under the load that the rest
 * of a schedule puts beside it; a schedule of one chunk (not a farm) has
 * nothing beside it, so it is predicted from the isolated rows (when the
 * table has them). Every other case: `mode` itself. */
enum btc_mode btc_plan_mode_for(const struct btc_table *t, enum btc_mode mode,
				const struct btc_schedule *s);

/* Parses a chunk spec "PU:FIRST-LAST,PU:STAGE,..." (0-based inclusive
 * stage indices, chunks in stage order covering every stage once, every
 * stage with a kernel for its PU). A chunk may name a core count of a CPU
 * PU, "big[2]:0-3" (1..the PU's cores; all of them is plain "big"), or a
 * farm, "{cpu,gpu}:0-8" (two or more distinct PUs, each with kernels for
 * every stage of the range and all its cores). A PU runs one chunk, or
 * several that all have core counts summing to at most its cores and its
 * pinnable cores (btc_pu_pinnable); a farm member runs nothing else.
 * Reports problems naming the spec. */
bool btc_plan_parse_spec(const char *spec, const struct btc_app *app, const struct btc_device *dev,
			 struct btc_schedule *out, struct btc_diag *d);

/* The chunk-model problem of one table mode as a plan holds it: p
 * borrows buf. */
struct btc_plan_model {
	bool ok; /* the table has the mode */
	struct btc_sched_problem p;
	struct btc_plan_buf buf;
};

/* The io farms' headroom (docs/scheduler.md, "The io farms"): each io
 * farm is sized so that its per-task time is at most this fraction of the
 * best predicted compute period, not just below it. The table's io check
 * varies much (octree on the H100: sd 0.23 of 0.68-0.77 ms) and a final
 * run's can exceed it by a third: on lease O (docs/results/eval-h100-o,
 * octree-cuda-g1) the table's check 0.68 ms fitted under the predicted
 * 0.70 ms with one checker, the final run's check took 0.93 ms and set
 * the period (0.83 ms against 0.63 ms on lease N, whose table's 0.77 ms
 * gave two checkers). A thread more is a service core's share; a period
 * set by the io is the whole pipeline's. */
#define BTC_PLAN_IO_HEADROOM 0.75

/* One owned plan: what btc decided to build and everything it decided it
 * from, taken as it is by the generator (the cost model compiled into
 * pipeline.c), the fit and `btc schedule`; nobody builds the problem
 * again. Release with btc_plan_free. */
struct btc_plan {
	const struct btc_app *app;     /* borrowed */
	const struct btc_device *dev;  /* borrowed */
	const struct btc_table *table; /* borrowed; NULL: none (--chunks, profiling) */
	enum btc_mode mode;            /* the table mode planned on */
	bool chunk_model;              /* !opt->paper_model */
	/* The solver options as solved: the GPU API's mask, --forbid and
	 * --pin applied; sched.pin points at pin ([n_stages], or NULL). */
	struct btc_sched_options sched;
	int *pin;
	/* The schedules: the --chunks specs in order, or the optimizer's
	 * candidates in rank order, then the baselines in PU order, each
	 * listed also when an earlier schedule is the same (stable numbers:
	 * docs/codegen.md); then, after the optimizer, the assignment
	 * bound's assignment (from_bound) when it is a multi-chunk schedule
	 * of the space that no schedule before it is; then --exhaustive's
	 * space_only ones. */
	struct btc_plan_schedule *schedules;
	int n_schedules;
	int n_space; /* opt->space: the schedules of the paper's space, else 0 */
	char *provenance; /* YAML lines for schedule.yaml: table, origin */
	bool solved;      /* the optimizer ran: result holds its ranking */
	struct btc_sched_result result;
	/* The fluid bound (sched/bound.h) of the planned problem under
	 * sched's forbidden PUs and pins; has_bound false when there is no
	 * table or the LP fails (quietly, unless opt->ranking). */
	bool has_bound;
	struct btc_sched_bound bound;
	/* The assignment bound (sched/bound.h) of the same problem and
	 * options, the searched space's farms and core splits included; set
	 * whenever has_bound (assign.exact false: the MIP was not solved and
	 * assign.bound_ms is the fluid bound). */
	struct btc_sched_assign assign;
	/* [mode][0: paper's model, 1: chunk model], built once for every
	 * mode the table has (btc_plan_problem_of). */
	struct btc_plan_model models[BTC_N_MODES][2];
	/* The io farms (docs/scheduler.md, "The io farms"): the io source's
	 * loaders and the io sink's check workers, btrt_model_io_threads(load,
	 * check of the planned mode, BTC_PLAN_IO_HEADROOM x the best predicted
	 * compute period of the schedules (their smallest T_max in any mode of
	 * the table, space_only ones left out), opt->io_threads_extra); every
	 * chunk model's T_io is max(load / load_threads, check /
	 * check_threads) and the schedules' periods follow. 1 and 1 without a
	 * table or room for more. The
	 * generator gives each thread a service core (PIPELINE_LOAD_THREADS,
	 * PIPELINE_CHECK_THREADS). */
	uint32_t load_threads, check_threads;
};

/* Plans a build (or `btc schedule`'s ranking, opt->ranking). `t` may be
 * NULL when specs are given or opt->baselines_only; table_path names the
 * table in the provenance by content hash (NULL: "profiled"). Borrows
 * app, dev and t for the plan's life. Returns a new plan, or NULL with
 * the problems reported through d (no table mode, unknown --forbid/--pin
 * names, a bad spec, a solver failure, no schedule). */
struct btc_plan *btc_plan(const struct btc_app *app, const struct btc_device *dev,
			  const struct btc_table *t, const char *table_path,
			  const struct btc_plan_options *opt, struct btc_diag *d);

/* The index of the plan's schedule that places the same stages on the
 * same PUs as s (chunks, farms and core counts; times not compared), or
 * -1 when the plan has none. */
int btc_plan_find_schedule(const struct btc_plan *plan, const struct btc_schedule *s);

/* The job's bound round (driver/job.c; docs/report.md, "The bound
 * round"): appends s (its chunks: PU and stage ranges) to the plan's
 * schedules as a from_bound candidate, predicted on the solved problem,
 * after every schedule there is, so that every earlier number stays.
 * When the plan already holds the same schedule, nothing is added and its
 * index is returned (a space_only one, --exhaustive's, stays so: the
 * caller decides). Returns the index, *added whether it is new; -1 when
 * the plan has no solved problem or s has a stage without a time there.
 * plan->schedules may move: re-read it. */
int btc_plan_add_bound_schedule(struct btc_plan *plan, const struct btc_schedule *s, bool *added);

/* The job's io round (driver/job.c; docs/scheduler.md, "The io round"):
 * the io farms for what the chosen schedule measured. The plan sizes its
 * farms on the table's load and check, timed alone, against its predicted
 * compute period; in the pipeline the load and check run slower and the
 * compute can run faster (octree-cuda-g1 on the H100, lease U: the table's
 * io fitted one loader, the run's load took 0.80 ms a task and set the
 * 0.78 ms period; lease S: one checker at 0.73 ms against chunks of 0.63
 * ms). load_ms and check_ms: one task's load and check on one thread as the
 * program measured them (its report's `io`); period_ms: the schedule's
 * measured period (ms per task). Where T_io = max(load / k_load, check /
 * k_check) at the plan's farms reaches BTC_PLAN_IO_HEADROOM x period_ms,
 * *kl and *kc get btrt_model_io_threads' farms for that headroom, at least
 * the plan's and at most `extra` threads beyond one loader and one checker
 * (btc_gen_io_threads_extra), and it returns true when they differ from
 * the plan's. Otherwise false with the plan's farms: the io below the
 * headroom, no thread left, or a figure missing (NAN). Pure. */
bool btc_plan_io_round_farms(const struct btc_plan *plan, double load_ms, double check_ms,
			     double period_ms, uint32_t extra, uint32_t *kl, uint32_t *kc);

/* The io round's other direction (docs/scheduler.md, "The io round"):
 * the farms with one io thread fewer, for a race against the plan's when
 * btc_plan_io_round_farms asks for no more. The plan sizes its farms on
 * the table's io, and a table read high gives a farm more than the
 * pipeline needs, while every io thread is a core fewer for the CPU
 * chunks and another stream on the memory bus: on the H100 the plan gave
 * octree-cuda-g1 2 loaders and 2 checkers on leases X, Y and ZG, whose
 * periods were 0.72-0.87 ms against 0.62-0.68 ms with 1 and 2 on ZC, ZD
 * and ZF, and 2 + 2 lost each race against 1 + 2 there (time ratios
 * 1.12-1.14; docs/results/h100.md). load_ms and check_ms as for
 * btc_plan_io_round_farms (one task on one thread, measured beside the
 * plan's farms, so read high where those contend). Of the farms with
 * more than one thread, the one whose loss raises T_io = max(load /
 * k_load, check / k_check) least gives up one; no model bounds the
 * result, since the figures read high beside the farms it removes: the
 * race decides. Returns true with *kl, *kc set; false with the plan's
 * farms when both are one thread or a figure is missing (NAN). Pure. */
bool btc_plan_io_round_fewer(const struct btc_plan *plan, double load_ms, double check_ms,
			     uint32_t *kl, uint32_t *kc);

/* Sets the plan's io farms (plan->load_threads, check_threads; 0 read as
 * 1) and with them every chunk model's T_io, the schedules' predicted
 * periods and the bound's io term, as btc_plan does with its own. */
void btc_plan_set_io_farms(struct btc_plan *plan, uint32_t kl, uint32_t kc);

void btc_plan_free(struct btc_plan *plan);

/* The problem the plan solved: btc_plan_problem_of(plan, plan->mode,
 * plan->chunk_model); NULL without a table. */
const struct btc_sched_problem *btc_plan_solved_problem(const struct btc_plan *plan);

/* The problem of the table's `mode`, chunk model or the paper's (see
 * btc_plan_problem); NULL when the plan has no table or the table no
 * such mode. Owned by the plan. */
const struct btc_sched_problem *btc_plan_problem_of(const struct btc_plan *plan,
						    enum btc_mode mode, bool chunk_model);

/* Predicted period in ms of schedule s under the table's `mode`
 * (btc_plan_mode_for picks the rows): with chunk_model, the chunk model's
 * P = max(T_io, max chunk_ms) (docs/scheduler.md; equal to T_max for a
 * table without model terms), else the paper's T_max (sum of stage times
 * per chunk). NAN when the plan has no table, the table no such mode, or
 * a time the schedule needs is missing. */
double btc_plan_predict_ms(const struct btc_plan *plan, enum btc_mode mode, bool chunk_model,
			   const struct btc_schedule *s);

#endif
