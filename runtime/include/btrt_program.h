/* The pipeline program: the whole main() of a generated pipeline.c
 * (docs/runtime.md, "The pipeline program"; docs/codegen.md). btc writes
 * only the tables of one app and its schedules (struct btrt_program) and
 * the kernel glue; btrt_program_main parses the options, builds the GPU
 * context and the TaskObject pool, runs one schedule (or, with --adapt,
 * switches among them: btrt_adapt.h), starts and stops the interference
 * hogs (btrt_hog.h), prints the summary and writes the --trace and
 * --report files (docs/report.md, "The program's report").
 *
 * Everything this library defines is named btrt_ / BTRT_: btc rejects app
 * names with those prefixes (btc/front/names.c), so an app's own names
 * never collide with the program's. */
#ifndef BTRT_PROGRAM_H
#define BTRT_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "btrt.h"
#include "btrt_adapt.h"
#include "btrt_app.h"
#include "btrt_pipeline.h"
#include "btrt_pool.h"
#include "btrt_vk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One selectable schedule of the build (`--schedule N`, `--list`). */
struct btrt_program_schedule {
	const char *label;         /* "big:0-2 gpu:3-6", "{big,gpu}:0-6", "big[2]:0-2 ..." */
	const char *kind;          /* "candidate", "baseline" or "bound" (the
				    * assignment bound's assignment) */
	double predicted_ms;       /* T_max from the profiling table (paper Eq. 1); 0: none */
	const struct btrt_chunk *chunks; /* [n_chunks]; a farm: one entry per member */
	uint32_t n_chunks;
	uint32_t pool;             /* the schedule table's pool: chunk entries
				      + 1, and what each farm needs
				      (btc_model_pool; btc/gen/gen_pipeline.c);
				      the run's default adds the io threads
				      and slack (btrt_model_default_pool) */
};

/* The tables of one generated program. Everything is borrowed and must
 * outlive btrt_program_main (static tables in practice). */
struct btrt_program {
	/* The app's tables (btrt_app.h): its name (for the summary and the
	 * report), stages, TaskObject layout, parameters, io, shaders and the
	 * --input without the option (NULL: the io's own). */
	struct btrt_app app;
	const char *device;        /* the device's name, for the summary and the report */
	long default_tasks;        /* --tasks without the option, >= 1 */
	long default_warmup;       /* --warmup without the option */
	const struct btrt_program_schedule *schedules; /* [n_schedules], >= 1 */
	uint32_t n_schedules;
	const int *service_cores;  /* [n_service_cores] the io threads' cores
				      (btrt_pipeline_config.io_cores), or NULL */
	uint32_t n_service_cores;
	uint32_t load_threads;     /* the io source's load farm without
				      --load-threads or BTRT_LOAD_THREADS
				      (PIPELINE_LOAD_THREADS); 0: 1 */
	uint32_t check_threads;    /* the io sink's check farm without
				      --check-threads or BTRT_CHECK_THREADS
				      (PIPELINE_CHECK_THREADS, chosen by btc:
				      docs/scheduler.md, "The io farms");
				      0: 1 */
	/* The cost model the schedules were chosen with, or NULL (no profiling
	 * table: --adapt only forces switches); with it, schedule_pus[i] is the
	 * model PU of every chunk of schedule i. */
	const struct btrt_model *model;
	const uint32_t *const *schedule_pus;
	/* How the CPU chunks' OpenMP teams wait (btrt_omp_env_init;
	 * PIPELINE_OMP_WAIT, btc_gen_omp_spin): spin only where every
	 * thread has cores of its own. 0: passive. */
	enum btrt_omp_wait omp_wait;
	/* [app.n_buffers] 1: io.load refills the buffer every task (the
	 * profiling table's `# io_loads:`, PIPELINE_IO_LOADED), so a CUDA pool
	 * places it in pinned host memory (btrt_pool_config.io_loaded). NULL:
	 * the program probes it at start (btrt_probe_pool_create, one
	 * TaskObject in host memory and two loads; the report's
	 * `io_loaded_from`). */
	const unsigned char *io_loaded;
};

/* Runs the program over prog's tables with the command line argc/argv
 * (`--help` lists the options; docs/runtime.md). Returns the process's
 * exit status: 0 after a verified run (and --list, --help), 1 when the run
 * failed (a kernel, the output check, a device: a message on stderr and,
 * with --failure FILE, the structured failure there), 2 for a bad command
 * line or a pool that cannot fit in memory, 128 + the signal when SIGINT
 * or SIGTERM stopped it (nothing written to --report or --trace then).
 * May re-execute the process once (btrt_omp_env_init). */
int btrt_program_main(const struct btrt_program *prog, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
