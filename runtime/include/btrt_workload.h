/* Several streams on one chip (docs/runtime.md, "Several streams"): one
 * program runs the pipelines of several apps, or several task streams of
 * one app, at once, each statically wired as btrt_pipeline.h describes.
 *
 * Every stream has its own io source and sink threads, rings, TaskObject
 * pool and GPU context (its own Vulkan device queue and command pools, its
 * own CUDA streams), and is checked against its own app's sequential
 * reference: a stream's tasks leave in its own input order, whatever the
 * other streams do. Its dispatchers are pinned to the cores its schedule
 * names; chunks of different streams placed on one CPU PU run on
 * disjoint subsets of that PU's cores, sized by their planned shares
 * (the joint candidate's chunk_cores; `--cores shared`: all of them,
 * time-shared under the OS scheduler); a planned rate (tasks/s) paces
 * the stream's io source with a token bucket (btrt_stream_run.rate) so
 * that each stream takes the share of the PUs the plan gave it (paper
 * Eq. 1 per stream; issue 27: sum over streams of r_s * t_{s,p} <= 1).
 *
 * Two layers: btrt_streams_run runs prepared pipelines (pools, io states
 * and GPU contexts made by the caller; the runtime tests use it), and
 * btrt_workload_main is the whole main() of a generated several-app
 * program over struct btrt_workload tables. */
#ifndef BTRT_WORKLOAD_H
#define BTRT_WORKLOAD_H

#include <stdint.h>

#include "btrt.h"
#include "btrt_env.h"
#include "btrt_pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

struct btrt_program;

/* One prepared stream of btrt_streams_run. */
struct btrt_stream_run {
	/* in: a complete pipeline (pool, io, io_state, chunks, GPU context:
	 * nothing shared with another stream but the interrupt flag);
	 * on_task_done must be NULL (btrt_streams_run uses it) */
	struct btrt_pipeline_config cfg;
	/* in: the planned throughput r_s in tasks/s: the io source admits a
	 * task at most every 1/rate s (a token bucket of depth 1: a late task
	 * is not followed by a burst); 0: as fast as the pipeline takes them */
	double rate;
	/* in, when taking turns (btrt_streams_opts.turn > 0): the tasks of
	 * this stream's turn; 0: the opts' turn. Turns of different lengths
	 * give the streams the time shares the caller wants (time
	 * multiplexing at equal normalised throughput: turn_s proportional
	 * to w_s r*_s) */
	uint64_t turn;
	/* out: the stream's records (free with btrt_run_free; may be NULL
	 * after an early failure), its result (0, or -1 with err), and
	 * whether it was stopped because another stream failed */
	struct btrt_run *run;
	int rc;
	struct btrt_error err;
	int stopped_by_other;
};

/* Runs the n prepared streams at once: stream i's pipeline on a thread of
 * its own (its io sink), so its io source, dispatchers and sink run beside
 * every other stream's. Each stream first computes what its checks need
 * (its io.prepare, on its thread), and all start their pipelines together
 * once every stream has. The first stream that fails stops admitting new
 * tasks in all others (they finish and check what is in flight); a signal
 * (cfg.interrupt, the same flag for all) stops every stream. Returns 0
 * when every stream ran through, or -1 with err: the first failed
 * stream's error prefixed with its index ("stream 1 (octree): ..."), or
 * BTRT_E_SYS when a thread could not be started (then nothing ran). */
int btrt_streams_run(struct btrt_stream_run *s, uint32_t n, struct btrt_error *err);

/* btrt_streams_run with time multiplexing when turn > 0 (`--multiplex T`;
 * the baseline of issue 27): the streams take turns, in index order,
 * starting with stream 0. In its turn a stream's io source admits up to
 * `turn` tasks (fewer in its last turn); the turn passes to the next
 * stream not yet through once the last task admitted in it was checked,
 * so that one stream at a time has tasks in flight. Every stream keeps
 * its own threads, pool and rings; its tasks are checked in its order as
 * always. Each stream needs cfg.n_items > 0. turn == 0: no turns, as
 * btrt_streams_run. Errors as btrt_streams_run's. */
int btrt_streams_run_turns(struct btrt_stream_run *s, uint32_t n, uint64_t turn,
			   struct btrt_error *err);

/* How btrt_streams_run_opts runs the streams. */
struct btrt_streams_opts {
	uint64_t turn;   /* > 0: take turns of `turn` tasks (btrt_streams_run_turns) */
	int together;    /* 1: once one stream has checked all its tasks, every
			    other stops admitting (checks what is in flight and
			    returns 0 with fewer tasks): all streams run together
			    from start to end, as a measurement of what each gets
			    while all run needs */
	/* NULL, or called once every stream is prepared and before any
	 * starts, on the thread of the last stream prepared; the streams
	 * start when it returns (a start shared with other processes: the
	 * program's --start-gate). It should return soon after a signal. */
	void (*gate)(void *ctx);
	void *gate_ctx;
	/* NULL, or [n] shares: fair admission (the max-min objective's
	 * proportions, docs/runtime.md "Several streams"). Stream i with
	 * share[i] > 0 (in any unit, e.g. w_i r*_i in tasks/s: the rate it
	 * should get relative to the others) admits its next task only while
	 * its normalised progress a_i / share[i] (a_i its tasks admitted) is
	 * at most BTRT_FAIR_SLACK tasks of the coarsest sharing stream ahead
	 * of the least normalised progress of the other sharing streams still
	 * admitting (btrt_fair_cap). The
	 * stream with the least progress is never held, so no stream waits
	 * for ever; a stream leaves the set when it has admitted n_items
	 * tasks or its pipeline returned. Streams with share 0 are not held
	 * and do not hold. Not with turn > 0 (BTRT_E_INVAL); a share < 0
	 * or not finite: BTRT_E_INVAL. */
	const double *share;
};

/* The slack of fair admission (btrt_streams_opts.share): tasks of the
 * coarsest sharing stream (the least share) that any stream may run
 * ahead of the least normalised progress. */
#define BTRT_FAIR_SLACK 2.0

/* Fair admission's cap on stream i's tasks admitted, given every
 * stream's share[n] (> 0: in the set; 0: not held, not holding),
 * admitted[n] and out[n] (1: left the set):
 *   a_i <= share[i] (min_o a_o / share[o] + BTRT_FAIR_SLACK / min share)
 * over the other streams o in the set, the min share over i and them.
 * The slack is BTRT_FAIR_SLACK tasks of the coarsest stream in every
 * stream's normalised progress (tasks / share, the solo seconds of work
 * with share = w r*): a stream's lead is bounded by the same time
 * whatever its task size, so a fine-grained stream rides out a late
 * admission of the coarse one. (With a slack of 2 of its own tasks,
 * alexnet-dense, a ninth of an octree task, could lead by 0.6 ms of
 * solo work, less than one octree task's 2.7 ms: every octree admission
 * that came late held it, even in runs where octree was the faster
 * stream overall.) For i with
 * share[i] > 0; INFINITY when no other stream is in the set. Pure. */
double btrt_fair_cap(const double *share, const uint64_t *admitted, const int *out, uint32_t n,
		     uint32_t i);

/* The Vulkan devices and queues of a several-stream program with n_vk
 * Vulkan streams (docs/runtime.md, "Several streams"): asked (the
 * environment's BTRT_VK_STREAMS) unless AUTO; else, on a GPU (cpu_device
 * 0), QUEUE: one device, every stream's command buffers in one queue, run
 * one after the other by the GPU, which time-slices the queues of one
 * device (H100, docs/results/workload-h100.md, "Why the Vulkan joint runs
 * fall short": two alexnet-dense streams on two queues, a 0.33 ms chunk
 * 1.02 ms from submit to fence, the GPU busy 0.65 of the time); on a CPU
 * device (llvmpipe, whose queues are host threads that run at once) ONE,
 * a queue per stream, where the first device made has n_queues >= n_vk,
 * else EACH, a device per stream. Never returns AUTO. Pure. */
enum btrt_vk_streams btrt_vk_streams_choose(enum btrt_vk_streams asked, int cpu_device,
					    uint32_t n_queues, uint32_t n_vk);

/* btrt_streams_run with the options o (NULL: none). Errors as
 * btrt_streams_run's. */
int btrt_streams_run_opts(struct btrt_stream_run *s, uint32_t n, const struct btrt_streams_opts *o,
			  struct btrt_error *err);

/* ---- The several-stream program (btrt_workload_main.c) ---- */

/* One stream of a generated workload: an app's tables (btrt_program.h)
 * with the schedule the joint plan chose for it. */
struct btrt_workload_stream {
	const struct btrt_program *prog; /* its app's tables, borrowed */
	long schedule;             /* index into prog->schedules (--schedule S=N);
				      with joint candidates: candidate 0's */
	long solo_schedule;        /* its app's solo-best schedule (what naive
				      co-location and time multiplexing run;
				      docs/report.md); schedules given per app: 0 */
	const char *input;         /* NULL: prog->default_input (--input S=PATH) */
	const int *service_cores;  /* [n_service_cores] its io threads' cores as the
				      plan placed them; NULL: prog->service_cores */
	uint32_t n_service_cores;
	double rate;               /* planned tasks/s (--rate S=R); 0: unpaced */
};

/* Where a stream's service threads run: its io source, its io sink and
 * its GPU chunks' dispatchers, each a core id or -1 (not pinned there:
 * the io threads unpinned, the GPU dispatchers on the cores their
 * schedule's chunk table names). */
#define BTRT_WORKLOAD_N_SERVICE 3

/* The cores of one CPU chunk of a stream (an OpenMP team of n_cores
 * threads pinned to them); cores NULL: the schedule's own. */
struct btrt_workload_cores {
	const int *cores;          /* [n_cores] CPU ids */
	uint32_t n_cores;
};

/* Stream s in one joint candidate of the plan (docs/codegen.md,
 * "Workload projects"). */
struct btrt_workload_joint_stream {
	long schedule;             /* index into its app's prog->schedules */
	int service_cores[BTRT_WORKLOAD_N_SERVICE]; /* source, sink, GPU */
	double rate;               /* the planned throughput r_s, tasks/s */
	/* [n_chunk_cores], chunk by chunk of its schedule's chunk table:
	 * the core set of each CPU chunk that shares its PU with chunks of
	 * other streams (disjoint from theirs, sized by its planned share of
	 * the PU; docs/codegen.md, "Chunk cores per stream"), { NULL, 0 } for
	 * the others; NULL: every chunk on its schedule's cores */
	const struct btrt_workload_cores *chunk_cores;
	uint32_t n_chunk_cores;
};

/* One joint candidate: a schedule and service cores for every stream
 * (--joint K), ranked by the plan, best first. */
struct btrt_workload_joint {
	double predicted;          /* the model's max-min normalised throughput
				      M = min_s r_s / r*_s */
	const struct btrt_workload_joint_stream *streams; /* [n_streams] */
};

struct btrt_workload {
	const char *name, *device; /* for the summary and the report */
	const struct btrt_workload_stream *streams; /* [n_streams], >= 1 */
	uint32_t n_streams;
	/* [n_joint] the plan's joint candidates (--joint K, --placement
	 * plan), or none (schedules given per app: every stream on its
	 * app's service cores) */
	const struct btrt_workload_joint *joint;
	uint32_t n_joint;
	long default_tasks;        /* per stream, >= 1 */
	long default_warmup;
};

/* The main() of a several-stream program: parses the options (--help),
 * runs every stream at once (btrt_streams_run) and prints each stream's
 * summary; --report writes the JSON of docs/report.md ("The workload's
 * report"), --trace one Perfetto trace with a process per stream;
 * --joint K runs joint candidate K (each stream its schedule and, with
 * --placement plan, the default, its service cores), --placement app
 * every stream on its app's single-app service cores (and each chunk on
 * its schedule's cores); --cores split (the default) runs co-located CPU
 * chunks of the candidate on their own core sets, --cores shared every
 * chunk on its schedule's cores; --list-json lists
 * the streams and candidates as JSON. A
 * stream is named by its index or, when its app runs one stream, its
 * app's name. Returns the exit status: 0 when every task of every stream
 * was verified, 1 when a stream failed, 2 for a bad command line,
 * 128 + the signal after SIGINT or SIGTERM (every stream's threads
 * stopped and joined; nothing written). */
int btrt_workload_main(const struct btrt_workload *w, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
