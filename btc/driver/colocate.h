/* Measuring several streams on one chip (issue 27; docs/report.md, "The
 * workload job"): the joint candidates of a built workload program raced
 * against each other, and the winner against the two baselines a user has
 * without btc, all in one run, interleaved, with 95 % intervals.
 *
 * The program is a generated several-stream program (btrt_workload_main,
 * runtime/include/btrt_workload.h). Every run of it is one of:
 *
 *   solo s       stream s alone, on its app's solo-best schedule
 *                (`--streams s --schedule s=N --placement app`): r*_s, the
 *                denominator of its normalised throughput;
 *   joint k      every stream at once on joint candidate k
 *                (`--schedule s=N` for every s, the plan's placement);
 *   naive        every stream a separate process of the same program
 *                (`--streams s --schedule s=SOLO --placement app`), all
 *                started together: each app on its single-app choice with
 *                its single-app service cores, what a user does today;
 *   multiplex    one process, every stream on its solo-best schedule, the
 *                streams taking turns (`--multiplex S=T_s`: T_s tasks in
 *                stream s's turn, a turn starting when the previous
 *                stream's last task of its turn was checked); T_s = T w_s
 *                r*_s / min(w r*), so that the turns take equal time and
 *                the streams equal normalised throughput (the best a
 *                max-min objective can get from taking turns).
 *
 * A round runs each of them once in an order shuffled by the seeded
 * generator of the tuner (driver/tune.h: the same confidence rules, the
 * same budget and round limits; as the tuner's head to head, the rounds
 * go on past the budget to the 6 of exact 95 % intervals for every
 * figure, up to o->budget_cap budgets: btc_tune_budget_rule). The figure
 * of merit of a run is its max-min normalised throughput
 *
 *   M = min_s (r_s / (w_s r*_s))            r_s: stream s's tasks/s
 *
 * with r*_s the median of the solo runs of s's app; a run counts only when
 * every stream verified every task (an unverified run is a failure, kept
 * with its message). Racing drops a joint candidate only when its interval
 * of M lies entirely below the best's. */
#ifndef BTC_COLOCATE_H
#define BTC_COLOCATE_H

#include <stdbool.h>

#include "driver/tune.h"
#include "util/diag.h"

/* A built workload program and what to run of it. Borrowed. */
struct btc_colocate_setup {
	const char *program;      /* path of the built program */
	const char *work_dir;     /* per-job scratch (reports of the runs) */
	int n_streams;            /* S >= 1, the program's streams in order */
	const char *const *stream_names; /* [S] "octree#0", for the output */
	const int *stream_app;    /* [S] index of the stream's app (streams of
				     one app share their solo runs) */
	const double *weight;     /* [S] w_s > 0 */
	const long *solo_schedule; /* [S] the program's schedule index of the
				      stream's app's solo-best schedule */
	int n_joint;              /* K >= 1 joint candidates */
	const long *joint_schedule; /* [K * S] candidate k's schedule index
				       for stream s at [k * S + s] */
	const double *joint_predicted; /* [K] the model's M of candidate k, or
					  NULL */
	const double *plan_rate;  /* [S] or NULL: the plan's predicted solo
				     tasks/s of each stream, the warm-up's
				     rates until its solo is measured
				     (colo_warmup_tasks) */
	bool baselines;           /* measure naive and multiplex too (the main
				     job: true) */
	long multiplex_turn;      /* T, tasks of the slowest stream's turn (>= 1) */
	const double *share;      /* [S] or NULL: the joint runs' fair admission
				     shares (the program's --share S=X; the main
				     job under rates: the target rates) */
	bool share_measured;      /* the joint runs' shares are w_s r*_s with r*_s
				     the solo rate measured so far in this
				     measurement (the r* that normalises M: the
				     max-min proportions; the main job under
				     maxmin); s->share until every stream's r* is
				     known */
};

/* A median over rounds and its 95 % interval (report/stats.h,
 * btc_stats_median_ci; exact false: fewer than 6 values, [min, max]). */
struct btc_colocate_stat {
	double median, lo, hi;
	bool exact;
};

/* The chunks of one stream's schedule as a configuration ran them (the
 * program reports' "chunks", docs/report.md "The workload's report"):
 * each chunk's PU, stages, per-task time (ms: for a GPU chunk its
 * dispatcher's submit to fence, the median of a run, averaged over the
 * verified runs), its stages' time (stages_ms: their medians summed, a
 * GPU chunk's from its timestamps, averaged; 0 where a report lacks it)
 * and its share of the stream's wall time (averaged); and the stream's
 * Vulkan device and queue (the report's vk_device, vk_queue: the last
 * verified run's; -1 without a Vulkan context). */
#define BTC_COLOCATE_MAX_CHUNKS 16
struct btc_colocate_chunks {
	int n, runs;              /* chunks; verified runs averaged */
	int vk_device, vk_queue;  /* -1: none */
	struct {
		char pu[24];
		int first_stage, last_stage;
		double ms, stages_ms, share;
	} c[BTC_COLOCATE_MAX_CHUNKS];
};

/* One measured configuration: M's median and 95 % interval over its
 * rounds, and each stream's tasks/s median. Arrays owned by the result. */
struct btc_colocate_figure {
	bool ok;                  /* every run verified */
	char *why;                /* the first failure's message, else NULL */
	struct btc_colocate_stat merit; /* M over the rounds */
	double *stream_rate;      /* [S] tasks/s, median over the rounds */
	double *stream_normalised; /* [S] stream_rate / r*_s */
	int rounds;
	struct btc_colocate_chunks *chunks; /* [S] its chunks as run */
	double *round_rate;       /* [n_round_rate * S] each verified round's
				     tasks/s per stream, in round order (the
				     runs the bound's measured capacity is
				     taken from: driver/workload_capacity.h) */
	int n_round_rate;
	double run_s, prep_s;     /* mean seconds a run (verified or not), and
				     of it the slowest process's preparing */
};

struct btc_colocate_result {
	int n_streams, n_joint;
	double *solo_rate;               /* [S] r*_s, tasks/s (median of s's app) */
	struct btc_colocate_chunks *solo_chunks; /* [S] s's app's solo runs' chunks */
	struct btc_colocate_figure *joint; /* [K] in the setup's order */
	int best;                        /* the joint candidate chosen, or -1
					    when none verified */
	struct btc_colocate_figure naive, multiplex; /* ok false when not run */
	/* the ratios M_best / M_naive and M_best / M_multiplex, per round
	 * (paired, as the tuner's head to head), median and interval */
	struct btc_colocate_stat gain_naive, gain_multiplex;
	unsigned seed;
	double wall_s;
	/* the measurement's options, for the report: --warmup-s (s; 0: off)
	 * and the rounds every figure needed, btc_tune_need_rounds
	 * (max(--min-rounds, 6)) */
	double warmup_s;
	int rounds_needed;
};

/* Races the joint candidates and measures the baselines (see above),
 * printing a progress line per round on stderr as the tuner does. Fills
 * *r (zeroed first; free with btc_colocate_result_free). Returns true when
 * at least one joint candidate verified; false when none did (every
 * candidate's failure is in *r and reported on d) or when interrupted
 * (reported). A run is bounded as the tuner's are (o->timeout_factor). */
bool btc_colocate_measure(const struct btc_colocate_setup *s,
				     const struct btc_tune_options *o,
				     const struct btc_tune_ctx *ctx, struct btc_colocate_result *r,
				     struct btc_diag *d);
void btc_colocate_result_free(struct btc_colocate_result *r);

#endif
