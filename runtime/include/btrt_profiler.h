/* BT-Profiler (paper Sec. III-C): the whole main() of a generated
 * profiler.c (docs/runtime.md, "The profiler"; docs/codegen.md). btc
 * writes only the app's tables (btrt_app.h), the PUs to measure and the
 * kernel glue; btrt_profiler_main times every stage on every PU of the
 * device in three modes and writes btc's profiling table:
 *   isolated      the measured PU runs the stage, every other PU idles;
 *   interference  every other PU that a pipeline can use together with the
 *                 measured one (btrt_profiler_co_runs: one GPU API) runs
 *                 the same stage at the same time, in a loop, and only the
 *                 measured PU's times are kept;
 *   placed        as interference, with every thread placed as the
 *                 generated pipeline places it (CPU teams on their PU's
 *                 cores minus the service core, GPU dispatchers and the io
 *                 thread on the service core, where the device has one).
 * Each measurement is a one-stage pipeline (btrt_pipeline_run) on the PU,
 * so the times include exactly what a chunk pays at run time: dispatch,
 * GPU submission, fences and buffer synchronisation. A stage's input is
 * made once by running the stages before it on the CPU; every repetition
 * restores the buffers the stage writes, so each one does the same work.
 * Warm-up runs first; then repeat until the 95 % confidence half-width is
 * within --precision of the mean, or --max-reps.
 *
 * --core-counts (issue 16) also measures every CPU stage on k of each CPU
 * PU's n pinnable cores, k = 1, 2, 4, ... < n (all n is the PU's own row),
 * as rows with the PU `NAME[k]`: the team on the first k pinnable cores
 * (where the generated pipeline puts the first chunk with a count of k).
 * Under interference the rest of the PU's cores run the same stage too, as
 * another chunk on the PU would (placed mode: not on the service core).
 *
 * The table (docs/app-format.md, "Profiling table") also holds the chunk
 * model's terms (docs/scheduler.md, "The chunk model"), per mode:
 *   @fixed   F_c: median over the stages of the mean over the same items
 *            of (one-stage chunk time - the stage's own time as the
 *            runtime records it: GPU timestamps / CUDA events, the CPU
 *            clock around the kernel); on a discrete CUDA GPU the minimum
 *            instead (the other stages' difference also holds their
 *            prefetches, which X models);
 *   @in_*, @out_*  discrete CUDA GPUs only: cudaMemPrefetchAsync + sync of
 *            a managed buffer of 64 KiB and of 16 MiB per direction,
 *            latency + ms per MiB from the two sizes;
 *   @io      load + check per task with the app's real io on the
 *            real input (btrt_probe_io_ms);
 *   @io_load, @io_check: the two timed apart (the io source and sink
 *            overlap: the chunk model's T_io = max(load, check));
 *   @in_chunk:STAGE  isolated mode, GPU PUs (issue 25): each maximal
 *            run of consecutive stages with a kernel on the PU timed as
 *            one chunk; for each stage after the run's first, its time
 *            inside a chunk (btrt_profiler_in_chunk,
 *            btrt_profiler_chunk.c);
 *   # io_loads / # touched / # in_place: the buffer probes (btrt_probe.c)
 *            and the buffers a discrete CUDA GPU keeps in pinned memory.
 */
#ifndef BTRT_PROFILER_H
#define BTRT_PROFILER_H

#include <stdint.h>

#include "btrt.h"
#include "btrt_app.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One entry the profiler runs stages on: a PU of the device, or (after
 * the device's PUs) a core-count variant NAME[k] of a CPU PU followed by
 * its rest NAME[rest of k]. */
struct btrt_profiler_pu {
	const char *name;          /* the table's pu column: "big", "big[2]" */
	enum btrt_pu_kind kind;
	const int *cores;          /* [n_cores] as the device declares them
				      (interference mode); NULL: unpinned */
	uint32_t n_cores;
	const int *placed_cores;   /* [n_placed_cores] as the generated
				      pipeline pins it (isolated and placed
				      modes) */
	uint32_t n_placed_cores;
	int base;                  /* -1: a PU of the device; else the index of
				      the PU this variant is part of */
	int rest;                  /* a variant: the index of its rest entry
				      (-1: none) */
	int measured;              /* 0: a variant's rest (only interferes) */
};

/* The tables of one generated profiler. Everything is borrowed and must
 * outlive btrt_profiler_main. */
struct btrt_profiler {
	const struct btrt_app *app;
	const char *device;        /* the device's name (`# device:`) */
	const char *btc_version;   /* the generating btc's version (`# btc:`) */
	const struct btrt_profiler_pu *pus; /* [n_pus]: the device's PUs first */
	uint32_t n_pus;
	uint32_t n_device_pus;     /* <= n_pus; the rest are core-count variants */
	const int *service_cores;  /* [n_service_cores] the io thread's core in
				      placed mode, or NULL */
	uint32_t n_service_cores;
	enum btrt_omp_wait omp_wait; /* as the device's pipeline waits
					(btrt_program.omp_wait); 0: passive */
};

/* Whether device PU pus[q] runs beside device PU pus[p]'s cell under
 * interference and placed (paper Sec. III-C: "every other PU"), for p, q <
 * n_pus (the device's PUs; a core-count variant asks with its base PU's
 * index). A generated pipeline uses one GPU API (btc_plan_gpu_mask): its
 * GPU chunks run on CUDA PUs or on Vulkan PUs, never both. So q co-runs
 * with p when q != p and q is a CPU PU or a GPU PU of p's API, where p's
 * API is its own kind for a GPU PU and, for a CPU PU, the API btc plans
 * with by default: CUDA when the device has a CUDA PU, else Vulkan. (The
 * table has one row per stage, PU and mode, so a CPU row under
 * interference is measured beside one API's GPU PUs; on a device with
 * both, a schedule with --gpu vulkan reads CPU rows measured beside the
 * CUDA PU.) Not symmetric: on cpu + vulkan + cuda, vulkan's cell co-runs
 * with cpu, cpu's cell with cuda only. Pure: reads only the kinds. */
int btrt_profiler_co_runs(const struct btrt_profiler_pu *pus, uint32_t n_pus, uint32_t p,
			  uint32_t q);

/* The statistic of one table cell (btrt_profiler_main): the mean and the
 * sample standard deviation of v[0..n-1] (ms) over the samples inside
 * Tukey's far-out fences, Q1 - 3 w and Q3 + 3 w, where w is the
 * interquartile range, at least 5 % of the median (Tukey 1977, "Exploratory
 * Data Analysis", 2C: "far out"; quartiles by linear interpolation). A
 * cell's repetitions on a shared or noisy machine have a heavy upper
 * tail: one preempted repetition of 30 can double the plain mean (H100
 * leases ZS-ZW: octree's radix_tree on the CPU read 2.86 +- 2.22 ms in
 * the table against 1.05 ms inside the pipelines). With n < 8 no sample is
 * left out. n >= 1; v is not changed; scratch: the caller's room for n
 * doubles, which the quartiles sort (overwritten; unused when n < 8).
 * *kept: how many samples the mean is over (n when none was left out);
 * *sd is 0 when *kept < 2. Pure: no allocation, no failure. Returns the
 * mean, ms. */
double btrt_profiler_fenced_mean(const double *v, long n, double *scratch, double *sd, long *kept);

/* The most repetitions a cell's `# reps:` line lists (docs/app-format.md):
 * at up to 13 bytes each, the line stays well inside the table reader's
 * line limit (BTC_TABLE_MAX_LINE, 64 KiB). A cell of more repetitions
 * (--max-reps above it) gets no such line. */
#define BTRT_PROFILER_REPS_NOTE_MAX 2000

/* Before a profile's first cell, each measured PU runs its first stage,
 * unrecorded, for at least this long (seconds; at most
 * BTRT_PROFILER_WARM_RUNS rig runs): the first cells of the isolated
 * mode, stage 0 on each PU, were measured in a PU's first milliseconds of
 * work, and on the H200's two 8-core groups (the same hardware) they read
 * apart most: median |log cpu1 / cpu0| 0.106 over 21 tables, against
 * 0.026-0.060 for the later stages; under interference, measured later,
 * stage 0 (0.117) lies among the others (0.047-0.131; `scripts/
 * group-asymmetry`, docs/results/h200.md, "What remains"). */
#define BTRT_PROFILER_WARM_S 0.05
#define BTRT_PROFILER_WARM_RUNS 64

/* Runs the profiler over prof's tables with the command line argc/argv:
 *   -o TABLE.csv (default stdout), --input PATH (default
 *   app->default_input), --modes LIST (of isolated, interference, placed),
 *   --warmup N (0..10^6, default 3), --min-reps N (2..10^6, default 10),
 *   --max-reps N (--min-reps..10^6, default 30), --precision F (the
 *   target 95 % CI half-width over the mean, 1e-6..1, default 0.02),
 *   --core-counts, --quiet, --help;
 *   --pus LIST: measure only these PUs of the device (stage rows only,
 *   no chunk-model rows: the co-run measurement's half);
 *   --occupy PU [--occupy-s S] (no table): keep PU busy with the app's
 *   own stages, each in turn in bursts of about 20 ms, until SIGTERM or S
 *   seconds (default 120): the co-runner of another app's co-run
 *   measurement (btc profile A.yaml B.yaml; docs/scheduler.md "Several
 *   apps"). It prints "occupying PU ..." on stdout once it loops.
 * Every number is parsed whole and range-checked (btrt_parse_long,
 * btrt_parse_double). Progress (stage, PU, mode, ETA) goes to stderr, and
 * at the end at most one warning line per stage names the PUs and modes
 * whose CI stayed above the target at --max-reps (the table flags each
 * such cell with a `# capped:` comment).
 * The BTRT_* variables are read once (btrt_env_init) and handed to the
 * runtime through its configs.
 * Returns the process's exit status: 0 after a complete table (and
 * --help), 1 when a measurement, the input or the output failed (a
 * message on stderr), 2 for a bad command line or BTRT_* variable. May re-execute the
 * process once (btrt_omp_env_init). */
int btrt_profiler_main(const struct btrt_profiler *prof, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
