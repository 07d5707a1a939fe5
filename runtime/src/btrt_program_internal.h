/* Inside the runtime only: the pieces of btrt_program_main
 * (btrt_program.c): its options (btrt_program_opts.c) and its report and
 * failure files (btrt_report.c, btrt_report_none.c). */
#ifndef BTRT_PROGRAM_INTERNAL_H
#define BTRT_PROGRAM_INTERNAL_H

#include <stdio.h>

#include "btrt_program.h"

/* The command line of the program (`--help`). */
struct btrt_program_options {
	long schedule, tasks, warmup, pool; /* warmup: --warmup, as asked */
	/* The run's warm-up and its tasks (btrt_model_warmup, issue 25): at
	 * least one warm-up task per TaskObject of the pool, so that every
	 * slot's first use falls before the measured window, and tasks +
	 * (warmup_run - warmup) tasks streamed, so that tasks - warmup are
	 * measured. warmup and tasks until the pool exists. */
	long warmup_run;
	uint64_t tasks_run;
	long check_threads;        /* --check-threads, 0: not given */
	long load_threads;         /* --load-threads, 0: not given */
	const char *input, *trace, *report, *failure;
	int list, help, digests, quiet, warmup_set; /* list: 1 --list, 2 --list-json */
	/* adaptive runs and interference */
	int adapt, adapt_log;
	long adapt_force, adapt_window, adapt_window_ms, adapt_threshold, adapt_margin;
	int hog_cores[64];
	uint32_t n_hog_cores;
	long hog_gpu_ms, hog_from, hog_to; /* counted from task hog_first */
	/* The sequence number --hog-from and --hog-to count from: the extra
	 * warm-up tasks (tasks_run - tasks) come first, uncounted, so that the
	 * hogs stand where they stood relative to the measured tasks whatever
	 * the pool (btrt_hog_plan.first). 0 until the pool exists. */
	uint64_t hog_first;
};

/* The usage text of prog's program to out. */
void btrt_program_usage(const struct btrt_program *prog, FILE *out, const char *argv0);
/* Parses argv into o (defaults from prog). Returns 0 (o->help set for
 * --help), or -1 after a message on stderr. */
int btrt_program_parse(const struct btrt_program *prog, int argc, char **argv,
		       struct btrt_program_options *o);
/* The --list table of prog's schedules to out. */
void btrt_program_list(const struct btrt_program *prog, FILE *out);
/* The input did not open (msg: the app's reason): says which input was
 * tried, and for the build's default (generated on another machine, it may
 * be missing here) how to give one: --input, meson configure -Dinput=. */
void btrt_program_input_failed(const struct btrt_program *prog, const char *argv0,
			       const struct btrt_program_options *o, const char *msg);
/* Refuses a pool that cannot fit in the memory the system has left
 * (btrt_mem_available): its TaskObjects and buffers (btrt_pool_host_bytes)
 * and the slots of the n_chunks + 1 rings or farm links. Returns 0, or -1
 * after a message. */
int btrt_program_check_pool_memory(const char *argv0, const struct btrt_pool_config *pc,
				   uint32_t n_chunks);

/* What the report says of one run. */
/* Where a run's wall time went before and around its tasks, ms: the GPU
 * context (create_gpu), the input's open (io->open: octree parses every
 * frame), the TaskObject pool (allocation and first touch), and the
 * pipeline call (btrt_pipeline_run: the check's references
 * (io->prepare), thread start, every task, drain). */
struct btrt_program_setup {
	double gpu_ms, input_open_ms, pool_ms, pipeline_ms;
	/* parts of pool_ms: the CUDA pool's probe of the buffers one task's
	 * load refills (btrt_probe_pool_create), its placement probes and the
	 * zeroing (btrt_pool_setup_ms) */
	double pool_io_probe_ms, pool_probe_ms, pool_zero_ms;
	/* where a CUDA pool's io-loaded buffers came from: "table" (the
	 * build's btrt_program.io_loaded), "probe", or NULL (no CUDA pool) */
	const char *io_loaded_from;
	/* the run's pool, for the report's `pool_buffers` (borrowed; NULL
	 * before it exists) */
	const struct btrt_pool *pool;
};

struct btrt_program_outcome {
	long schedule;                 /* the schedule that ran (the last, --adapt) */
	const struct btrt_run *run;    /* its records */
	const struct btrt_adapt_result *adapt; /* NULL: a static run */
	double ms_per_task;            /* steady state; 0 after a failure */
	int verified;
	const struct btrt_error *failure; /* NULL: none; else with the check's
					     stage and task filled */
	uint32_t pool;                 /* TaskObjects of the run (--pool or the
					  default, btrt_model_default_pool);
					  0: not created */
	/* The run's set-up, wall ms (the report's `setup_ms`); NULL: none */
	const struct btrt_program_setup *setup;
};

/* Writes the JSON report of docs/report.md ("The program's report") to
 * path (btrt_fsafe.h: whole or not at all, only over a regular file). Returns 0, or -1 after a message on stderr (or when the build has
 * no JSON library: btrt_report_none.c). */
int btrt_report_write(const char *path, const struct btrt_program *prog,
		      const struct btrt_program_options *o,
		      const struct btrt_program_outcome *out);
/* The report's text (with a final newline; malloc'ed), or NULL after a
 * message naming path (out of memory, or no JSON library). */
char *btrt_report_text(const char *path, const struct btrt_program *prog,
		       const struct btrt_program_options *o,
		       const struct btrt_program_outcome *out);
/* Writes the failure object alone ({"kind", "schedule", "chunk", "stage",
 * "task", "message"}: docs/report.md) to path. Returns 0, or -1 after a
 * message. */
int btrt_failure_write(const char *path, const struct btrt_error *failure, long schedule);
/* A GPU pool's inputs per buffer (CUDA: btrt_cuda_place, Vulkan:
 * btrt_vk_place) for a run of prog on schedule s (s
 * NULL: any of the build's may run, --adapt), into pc:
 * io_loaded[b] = 1 where io.load refills buffer b every task (the build's
 * prog->io_loaded, the profiling table's; without it probed on a probe
 * pool, *probe_pool, which the caller keeps until the run's end:
 * btrt_probe_pool_create) and gpu_touched[b] (btrt_chunks_gpu_touched;
 * left unset in pc for s NULL). io_loaded and gpu_touched are the
 * caller's [app.n_buffers] arrays, which pc borrows until
 * btrt_pool_create. *from = "table" or "probe" (where io_loaded came
 * from). For the host backend nothing is set and *from is NULL. Returns
 * 0, or -1 with err (the probe failed). */
int btrt_program_gpu_pool_inputs(const struct btrt_program *prog,
				 const struct btrt_program_schedule *s, void *io_state,
				 struct btrt_pool_config *pc, unsigned char *io_loaded,
				 unsigned char *gpu_touched, struct btrt_pool **probe_pool,
				 const char **from, struct btrt_error *err);
/* The GPU API schedule s needs: BTRT_BACKEND_VULKAN or _CUDA when one of
 * its chunks runs there, else BTRT_BACKEND_HOST. */
enum btrt_backend btrt_program_schedule_backend(const struct btrt_program_schedule *s);
/* --list-json: the build's schedules as a JSON array on out, in --schedule
 * order: {index, kind, label, chunks: [{pu, first_stage, last_stage,
 * cores, farm?}], predicted_ms (null: none), pool}. Returns 0, or -1 after
 * a message (out of memory; a build without libcjson). */
int btrt_program_list_json(const struct btrt_program *prog, FILE *out);

/* The program's SIGINT/SIGTERM handling (btrt_watchdog.c), one for the pipeline program and
 * the workload program: the handler stores the signal in the flag
 * btrt_stop_signal returns (0 before; lock-free atomic store, so
 * async-signal-safe), a second signal takes the default action at once,
 * and once btrt_guard_install ran the stop is bounded (btrt_guard_stop).
 * A signal that was ignored when the program started stays ignored. Call
 * once, before the threads start. The flag is what
 * btrt_pipeline_config.interrupt takes. */
void btrt_stop_signals_catch(void);
btrt_atomic_int *btrt_stop_signal(void);

#endif
