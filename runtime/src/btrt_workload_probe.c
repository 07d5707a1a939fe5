/* The same-PU capacity probe of a several-stream program (--share-probe;
 * btrt_workload_internal.h; docs/runtime.md "Several streams",
 * docs/scheduler.md "Same-PU capacity"). It measures, with the program's
 * own mechanism, how much profiled GPU work the GPU delivers per second
 * while n streams' GPU chunks run on it at once: every stream its own GPU
 * context (its own Vulkan queue, on one device where it has a queue per
 * stream, else a device of its own, as btrt_workload_main makes them; or
 * its own CUDA streams in the process's one context), its own pool and its
 * own dispatcher thread,
 * pinned where joint candidate 0 pins it, CUDA waits spinning or yielding
 * as in candidate 0's run (btrt_workload_main decides, env).
 *
 * Per stream, one profiler rig (btrt_profiler_internal.h) per stage of its
 * app with a kernel for the GPU, each stage's input made once; a burst is
 * the items one stage runs in about BURST_MS alone. Alone: every burst of
 * every stream timed with nothing else running (the least of 2 runs),
 * a_{s,j} ms. Together, for n = 2 .. the streams that have GPU stages
 * (taken one app after the other: octree#0, alexnet#0, octree#1, ...):
 * the first n streams each loop over their bursts on a thread of their
 * own for a window W; stream s completes bursts worth w_s = sum of their
 * a_{s,j} ms of alone time in its busy time b_s (from the common start to
 * the end of its last burst, >= W), and
 *
 *   kappa(n) = sum_s w_s / b_s        (PU-ms of profiled work per ms)
 *
 * repeated REPS times: the rows `@share,PU*n,isolated,MEAN,SD,REPS` on
 * stdout (docs/app-format.md), which btc reads (driver/share_probe.c). */
#include "btrt_profiler_internal.h"
#include "btrt_program_internal.h"
#include "btrt_workload_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BURST_MS 10.0
#define REPS 3

struct probe_stream {
	uint32_t index;            /* in the workload */
	struct btrt_profiling ctx;
	struct btrt_profiler_pu pu;
	int core;
	struct btrt_profiler_rig *rigs;
	int n_rigs;
	uint64_t *burst;           /* [n_rigs] items of a burst */
	double *alone_ms;          /* [n_rigs] a burst's time alone */
	/* one window together */
	uint64_t start_ns, window_ns;
	double work_ms, busy_ms;
	int rc;
	struct btrt_error err;
};

/* The GPU PU of the workload's schedules: the first chunk not on a CPU. */
static int find_gpu(const struct btrt_workload *w, const char **name, enum btrt_pu_kind *kind)
{
	for (uint32_t i = 0; i < w->n_streams; i++) {
		const struct btrt_program *p = w->streams[i].prog;
		for (uint32_t s = 0; s < p->n_schedules; s++)
			for (uint32_t c = 0; c < p->schedules[s].n_chunks; c++)
				if (p->schedules[s].chunks[c].pu != BTRT_PU_CPU) {
					*name = p->schedules[s].chunks[c].name;
					*kind = p->schedules[s].chunks[c].pu;
					return 0;
				}
	}
	return -1;
}

/* Stream i's GPU context (Vulkan: on vk_share's device when not NULL,
 * on its queue with same_queue, else a device of its own with n_vk
 * queues, as btrt_workload_main makes them), io, buffer probes and rigs.
 * 0, 1 (no stage of its app runs on the GPU: not probed), or -1 with
 * x->err. */
static int setup(const struct btrt_workload *w, const struct btrt_env *env,
		 const struct btrt_workload_options *o, const struct btrt_vk *vk_share,
		 int same_queue, uint32_t n_vk, struct probe_stream *x)
{
	const struct btrt_program *prog = w->streams[x->index].prog;
	const struct btrt_app *app = &prog->app;
	int n = 0;
	for (uint32_t s = 0; s < app->n_stages; s++)
		n += btrt_profiler_stage_runs_on(app, s, &x->pu);
	if (!n)
		return 1;
	const int *io;
	uint32_t n_io;
	btrt_workload_service(w, o, x->index, &io, &n_io, &x->core);
	x->pu.cores = x->core >= 0 ? &x->core : NULL;
	x->pu.n_cores = x->core >= 0 ? 1 : 0;
	x->ctx.app = app;
	x->ctx.env = *env;
	if (x->pu.kind == BTRT_PU_VULKAN) {
		struct btrt_vk_config vc = { .device = NULL, .validation = -1,
					     .share = vk_share, .same_queue = same_queue,
					     .queues = n_vk,
					     .n_buffers = app->n_buffers,
					     .shaders = app->shaders, .n_shaders = app->n_shaders };
		btrt_env_vk_config(env, &vc);
		if (btrt_vk_create(&x->ctx.vk, &vc, &x->err))
			return -1;
	} else {
		struct btrt_cuda_config cc = { .device = -1, .mem = BTRT_CUDA_MEM_AUTO };
		btrt_env_cuda_config(env, &cc);
		if (btrt_cuda_create(&x->ctx.cuda, &cc, &x->err))
			return -1;
	}
	char ioerr[256] = "";
	const char *input = o->input[x->index] ? o->input[x->index] : app->default_input;
	if (!(x->ctx.io_state = app->io->open(input, app->params, ioerr, sizeof ioerr)))
		return btrt_error_set(&x->err, BTRT_E_IO, 0, "input: %s", ioerr);
	x->ctx.io_loaded = calloc(app->n_buffers + 1, 1);
	x->ctx.touched = calloc(app->n_buffers + 1, sizeof(uint64_t));
	x->rigs = calloc((size_t)n, sizeof *x->rigs);
	x->burst = calloc((size_t)n, sizeof *x->burst);
	x->alone_ms = calloc((size_t)n, sizeof *x->alone_ms);
	if (!x->ctx.io_loaded || !x->ctx.touched || !x->rigs || !x->burst || !x->alone_ms)
		return btrt_error_set(&x->err, BTRT_E_NOMEM, 0, "out of memory");
	if (btrt_profiler_probe_buffers(&x->ctx, &x->err))
		return -1;
	for (uint32_t s = 0; s < app->n_stages; s++) {
		if (!btrt_profiler_stage_runs_on(app, s, &x->pu))
			continue;
		struct btrt_profiler_rig *r = &x->rigs[x->n_rigs];
		if (btrt_profiler_rig_init(r, &x->ctx, &x->pu, &x->err))
			return -1;
		x->n_rigs++;
		if (btrt_profiler_rig_prepare(r, (int)s, &x->err) ||
		    btrt_profiler_rig_run(r, 1, NULL, NULL, &x->err))
			return -1;
		uint64_t t0 = btrt_now_ns();
		if (btrt_profiler_rig_run(r, 2, NULL, NULL, &x->err))
			return -1;
		double item_ms = (double)(btrt_now_ns() - t0) / 2e6;
		double k = item_ms > 0 ? BURST_MS / item_ms : 1000;
		x->burst[x->n_rigs - 1] = k < 1 ? 1 : k > 1000 ? 1000 : (uint64_t)k;
	}
	return 0;
}

static void teardown(struct probe_stream *x, const struct btrt_workload *w)
{
	for (int j = 0; j < x->n_rigs; j++)
		btrt_profiler_rig_free(&x->rigs[j]);
	if (x->ctx.io_state)
		w->streams[x->index].prog->app.io->close(x->ctx.io_state, NULL);
	btrt_pool_destroy(x->ctx.probe_pool);
	btrt_vk_destroy(x->ctx.vk);
	btrt_cuda_destroy(x->ctx.cuda);
	free(x->ctx.io_loaded);
	free(x->ctx.touched);
	free(x->rigs);
	free(x->burst);
	free(x->alone_ms);
}

/* Each burst alone: the least of two runs. */
static int time_alone(struct probe_stream *x)
{
	for (int j = 0; j < x->n_rigs; j++) {
		x->alone_ms[j] = INFINITY;
		for (int k = 0; k < 2; k++) {
			uint64_t t0 = btrt_now_ns();
			if (btrt_profiler_rig_run(&x->rigs[j], x->burst[j], NULL, NULL, &x->err))
				return -1;
			x->alone_ms[j] = fmin(x->alone_ms[j], (double)(btrt_now_ns() - t0) / 1e6);
		}
	}
	return 0;
}

/* One stream's loop over its bursts until the window has passed. */
static void *together(void *arg)
{
	struct probe_stream *x = arg;
	x->work_ms = 0;
	x->rc = 0;
	uint64_t now;
	while ((now = btrt_now_ns()) < x->start_ns) /* the common start */
		nanosleep(&(struct timespec){0, 100000}, NULL);
	for (int j = 0; now - x->start_ns < x->window_ns && !atomic_load(btrt_stop_signal());
	     j = (j + 1) % x->n_rigs) {
		if ((x->rc = btrt_profiler_rig_run(&x->rigs[j], x->burst[j], NULL, NULL, &x->err)))
			break;
		x->work_ms += x->alone_ms[j];
		now = btrt_now_ns();
	}
	x->busy_ms = (double)(now - x->start_ns) / 1e6;
	return NULL;
}

/* kappa of the n streams in order[0..n) over one window; -1 on failure. */
static double window(struct probe_stream *ps, const uint32_t *order, uint32_t n, double window_ms,
		     struct btrt_error *err)
{
	pthread_t th[64];
	uint64_t start = btrt_now_ns() + 2000000; /* the threads start together */
	uint32_t started = 0;
	for (uint32_t k = 0; k < n; k++) {
		struct probe_stream *x = &ps[order[k]];
		x->start_ns = start;
		x->window_ns = (uint64_t)(window_ms * 1e6);
		if (pthread_create(&th[k], NULL, together, x))
			break;
		started++;
	}
	for (uint32_t k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	if (started < n) {
		btrt_error_set(err, BTRT_E_SYS, 0, "could not start a probe thread");
		return -1;
	}
	double kappa = 0;
	for (uint32_t k = 0; k < n; k++) {
		struct probe_stream *x = &ps[order[k]];
		if (x->rc) {
			*err = x->err;
			return -1;
		}
		kappa += x->busy_ms > 0 ? x->work_ms / x->busy_ms : 0;
	}
	return kappa;
}

int btrt_workload_share_probe(const struct btrt_workload *w, const char *argv0,
			      const struct btrt_env *env, const struct btrt_workload_options *o)
{
	const char *gpu;
	enum btrt_pu_kind kind;
	if (find_gpu(w, &gpu, &kind)) {
		printf("share-probe: no schedule of the workload runs a chunk on a GPU: nothing "
		       "to measure\n");
		return 0;
	}
	struct probe_stream *ps = calloc(w->n_streams, sizeof *ps);
	uint32_t *order = calloc(w->n_streams, sizeof *order), n = 0;
	int rc = 1;
	if (!ps || !order) {
		fprintf(stderr, "%s: out of memory\n", argv0);
		goto out;
	}
	for (uint32_t i = 0; i < w->n_streams; i++) {
		ps[i].index = i;
		ps[i].core = -1;
		ps[i].pu = (struct btrt_profiler_pu){ .name = gpu, .kind = kind, .base = -1,
						      .rest = -1, .measured = 1 };
	}
	/* Vulkan: the devices and queues of the program's runs
	 * (btrt_vk_streams_choose; BTRT_VK_STREAMS overrides) */
	uint32_t n_vk = 0;
	for (uint32_t i = 0; kind == BTRT_PU_VULKAN && i < w->n_streams; i++)
		for (uint32_t s = 0; s < w->streams[i].prog->app.n_stages; s++)
			if (btrt_profiler_stage_runs_on(&w->streams[i].prog->app, s, &ps[i].pu)) {
				n_vk++;
				break;
			}
	const struct btrt_vk *vk_share = NULL;
	enum btrt_vk_streams vk_mode = env->vk_streams;
	/* one app after the other: by the stream's rank among its app's, then index */
	for (uint32_t rank = 0; n < w->n_streams && rank < w->n_streams; rank++)
		for (uint32_t i = 0; i < w->n_streams; i++) {
			uint32_t r = 0;
			for (uint32_t k = 0; k < i; k++)
				r += w->streams[k].prog == w->streams[i].prog;
			if (r != rank)
				continue;
			int one_q = vk_mode == BTRT_VK_STREAMS_QUEUE;
			int src = setup(w, env, o, vk_share, one_q, one_q ? 1 : n_vk, &ps[i]);
			if (!vk_share && ps[i].ctx.vk) {
				vk_mode = btrt_vk_streams_choose(env->vk_streams,
								 btrt_vk_cpu_device(ps[i].ctx.vk),
								 btrt_vk_queue_count(ps[i].ctx.vk), n_vk);
				if (vk_mode != BTRT_VK_STREAMS_EACH)
					vk_share = ps[i].ctx.vk;
			}
			if (src == 0 && time_alone(&ps[i]))
				src = -1;
			if (src < 0) {
				fprintf(stderr, "%s: share-probe: stream %u (%s): %s: %s\n", argv0, i,
					w->streams[i].prog->app.name, btrt_strerror(ps[i].err.kind),
					ps[i].err.msg);
				goto out;
			}
			if (src == 0)
				order[n++] = i;
		}
	printf("share-probe: %s (%s), %u streams with GPU stages; bursts of about %.0f ms, "
	       "windows of %.0f ms, %d each\n",
	       gpu, kind == BTRT_PU_CUDA ? "cuda" : "vulkan", n, BURST_MS, o->share_probe_ms, REPS);
	fflush(stdout);
	for (uint32_t k = 2; k <= n && k <= 64; k++) {
		double v[REPS], mean = 0, var = 0;
		struct btrt_error err;
		for (int r = 0; r < REPS; r++) {
			if ((v[r] = window(ps, order, k, o->share_probe_ms, &err)) < 0) {
				fprintf(stderr, "%s: share-probe: %s: %s\n", argv0,
					btrt_strerror(err.kind), err.msg);
				goto out;
			}
			if (atomic_load(btrt_stop_signal()))
				goto out;
			mean += v[r] / REPS;
		}
		for (int r = 0; r < REPS; r++)
			var += (v[r] - mean) * (v[r] - mean) / (REPS - 1);
		printf("share-probe: %u streams together on %s: x%.3f of the work alone per unit "
		       "time (windows", k, gpu, mean);
		for (int r = 0; r < REPS; r++)
			printf(" %.3f", v[r]);
		printf(")\n");
		printf("@share,%s*%u,isolated,%.6f,%.6f,%d\n", gpu, k, mean, sqrt(var), REPS);
		fflush(stdout);
	}
	rc = 0;
out:
	for (uint32_t i = 0; ps && i < w->n_streams; i++)
		teardown(&ps[i], w);
	free(ps);
	free(order);
	if (atomic_load(btrt_stop_signal()))
		rc = 128 + atomic_load(btrt_stop_signal());
	return rc;
}
