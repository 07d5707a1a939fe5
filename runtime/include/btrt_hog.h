/* btrt_hog.h: interference on purpose, for tests and benchmarks of
 * adaptive pipelines (btrt_adapt.h; docs/runtime.md, "Adaptive
 * pipelines"): busy threads pinned to chosen cores, or a stream of spin
 * kernels that keeps a CUDA GPU busy, started and stopped at given task
 * numbers of a run. */
#ifndef BTRT_HOG_H
#define BTRT_HOG_H

#include "btrt.h"
#include "btrt_pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

struct btrt_hog;

/* Starts one thread per entry of cores[0..n-1], pinned to that core (also
 * under BTRT_NO_PIN: the disturbance is the point), each spinning on
 * arithmetic until btrt_hog_stop. Returns 0, or -1 with err (BTRT_E_INVAL
 * for n == 0, BTRT_E_SYS, BTRT_E_NOMEM). */
int btrt_hog_cpu_start(struct btrt_hog **out, const int *cores, uint32_t n,
		       struct btrt_error *err);

/* Starts a host thread that keeps CUDA device `device` (-1: the current
 * one) busy: back-to-back launches, on a stream of its own, of a kernel
 * whose blocks (4 per SM, 256 threads) each spin for kernel_ms on the
 * GPU clock. Returns 0, or -1 with err (BTRT_E_NODEV without CUDA,
 * BTRT_E_CUDA, BTRT_E_SYS). */
int btrt_hog_cuda_start(struct btrt_hog **out, int device, double kernel_ms,
			struct btrt_error *err);

/* Stops the hog's threads, joins them and frees h (NULL: nothing). */
void btrt_hog_stop(struct btrt_hog *h);

/* A hog started once `from` tasks are checked and stopped once `to` are
 * (0: at the end of the run), counting from task `first` of the stream:
 * the program's --hog-* options, whose count leaves out the extra
 * warm-up tasks that one per TaskObject adds (btrt_model_warmup; docs/
 * runtime.md "The warm-up"), so that the hogs stand where they stood
 * relative to the measured tasks whatever the pool. The tasks in flight
 * at those moments run partly with it. Use
 * btrt_hog_plan_on_task_done as btrt_pipeline_config.on_task_done (or
 * btrt_adapt_config.base's) with ctx = the plan. */
struct btrt_hog_plan {
	const int *cpu_cores;      /* [n_cpu_cores] CPU hog, or n_cpu_cores 0 */
	uint32_t n_cpu_cores;
	int cuda;                  /* nonzero: a CUDA hog too */
	int cuda_device;           /* -1: current */
	double cuda_kernel_ms;     /* <= 0: 1 ms */
	uint64_t from, to;         /* checked tasks, counted from `first` */
	uint64_t first;            /* the sequence number of the count's first
				      task; the tasks before it are not counted
				      (0: every task) */
	FILE *log;                 /* NULL, or a line per start / stop */
	/* state */
	struct btrt_hog *cpu_hog, *cuda_hog;
	int started, stopped;
	int failed;                /* a hog did not start: err says why */
	struct btrt_error err;
};
/* Never asks the run to stop (returns 0). */
int btrt_hog_plan_on_task_done(void *plan, const struct btrt_task_done *d);
/* Stops whatever of the plan still runs (call after the run). */
void btrt_hog_plan_finish(struct btrt_hog_plan *p);

#ifdef __cplusplus
}
#endif
#endif
