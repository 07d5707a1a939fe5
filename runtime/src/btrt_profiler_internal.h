/* Inside the runtime only: the pieces of btrt_profiler_main
 * (btrt_profiler.c): its options (btrt_profiler_opts.c) and its measuring
 * rigs and buffer probes (btrt_profiler_rig.c). */
#ifndef BTRT_PROFILER_INTERNAL_H
#define BTRT_PROFILER_INTERNAL_H

#include <stdio.h>

#include "btrt_cuda.h"
#include "btrt_env.h"
#include "btrt_pool.h"
#include "btrt_profiler.h"
#include "btrt_vk.h"

/* The modes, in table order. */
enum { BTRT_PROF_ISOLATED, BTRT_PROF_INTERFERENCE, BTRT_PROF_PLACED, BTRT_PROF_N_MODES };
extern const char *const btrt_profiler_mode_names[BTRT_PROF_N_MODES];

/* The command line (btrt_profiler.h lists the options and ranges). */
struct btrt_profiler_options {
	long warmup, min_reps, max_reps;
	double precision;          /* target 95 % CI half-width / mean */
	const char *input, *output;
	const char *failure;       /* --failure: a crash or exit() as JSON */
	int modes[BTRT_PROF_N_MODES]; /* 1: measure this mode */
	int quiet;
	int core_counts;           /* also the NAME[k] variants of CPU PUs */
	const char *pus;           /* --pus: measure only these device PUs (comma
				      list; NULL: all); no chunk-model rows then */
	const char *occupy;        /* --occupy PU: no table; loop the app's stages
				      on PU until a signal or --occupy-s */
	double occupy_s;           /* --occupy-s: the occupant's longest life, s */
	int help;                  /* --help: the usage was printed */
};

/* Parses argv into o (defaults from app). Returns 0 (o->help set after
 * --help printed the usage to stdout), or -1 after a message on stderr
 * naming the option and its value. */
int btrt_profiler_parse(const struct btrt_app *app, int argc, char **argv,
			struct btrt_profiler_options *o);

/* What every rig of one profiler shares. */
struct btrt_profiling {
	const struct btrt_profiler *prof;
	const struct btrt_app *app;
	struct btrt_env env;       /* the BTRT_* variables, read once (btrt_env_init) */
	struct btrt_vk *vk;        /* NULL: no Vulkan PU */
	struct btrt_cuda *cuda;    /* NULL: no CUDA PU */
	void *io_state;            /* the app's io on the input */
	unsigned char *io_loaded;  /* [n_buffers]: io.load writes it (btrt_probe_io_loads) */
	uint64_t *touched;         /* [n_buffers]: bytes a task touches */
	int have_touched;
	struct btrt_pool *probe_pool; /* kept to the end: btrt_probe_pool_create says why */
};

/* One PU's measuring rig: a pool of one TaskObject whose stage input is
 * ready, and a snapshot of every buffer for restoring before each item
 * what the run reads of what it writes. */
struct btrt_profiler_rig {
	const struct btrt_profiling *ctx;
	const struct btrt_profiler_pu *pu;
	struct btrt_pool *pool;
	void **snapshot;           /* [n_buffers] host copies, NULL where not host-visible */
	int stage;                 /* stage whose input the task holds, -1 none */
	int last;                  /* the last stage a run runs: stage, or with
				      btrt_profiler_rig_range a later one */
	btrt_atomic_int *stop;     /* interference loop: stop when set */
	int placed;                /* pin as the generated pipeline does
				      (isolated and placed modes) */
	uint64_t limit;            /* items to run (0: until *stop) */
};

/* Can stage s run on pu (it has a kernel of pu's kind)? */
int btrt_profiler_stage_runs_on(const struct btrt_app *app, uint32_t s,
				const struct btrt_profiler_pu *pu);

/* A rig for pu on ctx's devices. Returns 0, or -1 with err. */
int btrt_profiler_rig_init(struct btrt_profiler_rig *r, const struct btrt_profiling *ctx,
			   const struct btrt_profiler_pu *pu, struct btrt_error *err);
/* The same, its pool placed for one schedule: gpu_touched[n_buffers] as
 * btrt_chunks_gpu_touched fills it (borrowed during the call only; NULL:
 * as btrt_profiler_rig_init, the GPU may see every buffer). The in-chunk
 * runs on a GPU PU (btrt_profiler_in_chunk). */
int btrt_profiler_rig_init_placed(struct btrt_profiler_rig *r, const struct btrt_profiling *ctx,
				  const struct btrt_profiler_pu *pu,
				  const unsigned char *gpu_touched, struct btrt_error *err);
/* Makes the rig's task hold the input of stage s: loads item 0, runs
 * stages 0..s-1 with their CPU kernels, snapshots every host-visible
 * buffer. Returns 0, or -1 with err. */
int btrt_profiler_rig_prepare(struct btrt_profiler_rig *r, int s, struct btrt_error *err);
/* Runs the rig's stage on its PU as a one-chunk pipeline. With limit > 0
 * runs that many items, stores their chunk times (ns) in times[limit] and
 * the mean over the same items of (chunk time - the stage's own time as
 * the runtime records it) in *overhead_ms (ms; NAN: not recorded) when
 * not NULL; with limit 0 runs until *r->stop (interference). Returns 0,
 * or -1 with err. */
int btrt_profiler_rig_run(struct btrt_profiler_rig *r, uint64_t limit, uint64_t *times,
			  double *overhead_ms, struct btrt_error *err);
void btrt_profiler_rig_free(struct btrt_profiler_rig *r);
/* Whether a rig running stages[first..] restores buffer b, written by
 * stages[i] (first <= i), before each item: only where a stage of
 * first..i reads it (in place, or read before i overwrites it), so that
 * every item sees the same input. A buffer the run only writes holds the
 * last item's output, as it holds the task before's in a pipeline;
 * restoring it too copied megabytes of scratch into the caches before
 * every repetition: octree's prefix_sum got 8 MiB of cub_temp and 1.2 MB
 * of offsets before a 0.1 ms stage, and its isolated cpu cell read 4.1
 * times the stage inside the pipelines on lease H200-D
 * (docs/results/h200.md). stages: the app's [n_stages], borrowed;
 * first <= i < n_stages; b < the app's n_buffers. Returns 1 (restore) or
 * 0. Pure. */
int btrt_profiler_rig_restores(const struct btrt_stage *stages, int first, int i, uint32_t b);
/* Makes the rig run stages f..l (f <= l) as one chunk: prepares stage f's
 * input (btrt_profiler_rig_prepare) and restores before each item what
 * f..l write and a stage of f..l reads at or before the one that writes
 * it (what is only written is not restored: btrt_profiler_rig_restores).
 * Returns 0, or -1 with err. btrt_profiler_rig_prepare makes it a
 * one-stage rig again. */
int btrt_profiler_rig_range(struct btrt_profiler_rig *r, int f, int l, struct btrt_error *err);
/* btrt_profiler_rig_run with limit > 0, and in stage_ms[k] the median over
 * the items of stage (r->stage + k)'s own time as the runtime records it
 * (GPU timestamps / CUDA events on a GPU PU), ms, k = 0..r->last -
 * r->stage (NAN: not recorded). Returns 0, or -1 with err. */
int btrt_profiler_rig_run_stages(struct btrt_profiler_rig *r, uint64_t limit, uint64_t *times,
				 double *stage_ms, struct btrt_error *err);

/* The in-chunk cells of GPU PU rig r (btrt_profiler_chunk.c;
 * docs/scheduler.md "The chunk model"): every maximal run f..l (l > f) of
 * consecutive stages with a time in row_ms[n_stages] (the mode's one-stage
 * means on r's PU, ms; NAN: no kernel) runs as one chunk of warmup + reps
 * items; for i = f+1..l it writes
 *
 *   @in_chunk:STAGE,PU,MODE,t^in_i,sd,reps
 *   t^in_i = g_i * max(0, T - F - t_f) / sum_{k=f+1..l} g_k
 *
 * T: the mean chunk time; g_i: stage i's median own time inside it;
 * F: fixed_ms (the mode's @fixed); t_f = max(0, row_ms[f] - F). So the
 * model's F + t_f + sum t^in predicts the run's chunk as measured, as a
 * one-stage row predicts its own. sd: the chunk times' standard deviation
 * times the stage's share g_i / sum g. *cells: the runs measured (may be
 * NULL). Returns 0, or -1 with err. */
int btrt_profiler_in_chunk(struct btrt_profiler_rig *r, const double *row_ms, double fixed_ms,
			   const char *mode, long warmup, long reps, uint64_t *times, FILE *out,
			   int *cells, struct btrt_error *err);
/* The number of in-chunk runs of GPU PU pu (0 for a CPU PU). */
int btrt_profiler_in_chunk_runs(const struct btrt_app *app, const struct btrt_profiler_pu *pu);

/* The occupant (--occupy; btrt_profiler_occupy.c): keeps PU pus[pu] busy
 * with every stage of the app that runs there, in turn, in bursts of about
 * 20 ms, each stage's input made once; prints "occupying PU ..." on stdout
 * once it loops, and returns 0 after max_s seconds (a SIGTERM ends the
 * process before: the guard's die_on_stop). -1 with err when a rig fails
 * or no stage runs on the PU. */
int btrt_profiler_occupy(const struct btrt_profiling *ctx, int pu, double max_s,
			 struct btrt_error *err);

/* Probes once, before the rigs exist (btrt_probe.c), which buffers io.load
 * refills and how many bytes of each a task touches, into ctx. Returns 0,
 * or -1 with err. */
int btrt_profiler_probe_buffers(struct btrt_profiling *ctx, struct btrt_error *err);
/* `# io_loads: a,b` (nothing when none) and `# touched: a=BYTES,...`. */
void btrt_profiler_print_buffer_probes(const struct btrt_profiling *ctx, FILE *out);
/* `# in_place: a,b`: the buffers a stage writes that a discrete CUDA GPU
 * reads and writes in pinned host memory (the pool's placement, the same
 * in the generated pipeline): the chunk model moves none of them. Nothing
 * when there are none or no CUDA rig. */
void btrt_profiler_print_in_place(const struct btrt_profiler_rig *rigs, int n_rigs, FILE *out);

#endif
