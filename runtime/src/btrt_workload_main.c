/* btrt_workload_main: the several-stream program over a generated
 * workload's tables (btrt_workload.h; docs/runtime.md, "Several
 * streams"). Each stream gets what btrt_program_main gives one: its GPU
 * work's own submission path (a Vulkan queue and command pools of its
 * own, on the program's one Vulkan device where that device has a queue
 * per stream, or CUDA streams of its own in the process's CUDA context),
 * its io state and its TaskObject pool; then
 * btrt_streams_run runs them all at once. SIGINT / SIGTERM stop every
 * stream (exit 128 + the signal, nothing written), as in btrt_program.c. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "btrt_cuda.h"
#include "btrt_env.h"
#include "btrt_model.h"
#include "btrt_program_internal.h"
#include "btrt_trace.h"
#include "btrt_workload_internal.h"
#include "btrt_watchdog.h"


/* Everything one stream holds. */
struct stream_res {
	const struct btrt_workload_stream *ws;
	const struct btrt_program_schedule *sched;
	struct btrt_vk *vk;
	struct btrt_cuda *cuda;
	struct btrt_pool *pool, *probe_pool;
	void *io_state;
	size_t *counts;
	struct btrt_chunk *chunks; /* [sched->n_chunks] the stream's copy of
				      the schedule's chunks, GPU dispatchers
				      moved to the stream's service core, CPU
				      chunks to their core sets */
	int gpu_core;
	uint64_t prepare_ns;       /* prepare_stream's wall time */
	uint64_t warmup, tasks;    /* the stream's warm-up and tasks run
				      (btrt_model_warmup: one warm-up task
				      at least per TaskObject of its pool) */
};

/* Stream i's chunk table, r->chunks (malloc'ed, release_stream frees):
 * the schedule's chunks with its GPU dispatchers on core gpu (gpu < 0:
 * the schedule's cores), each CPU chunk with a core set in
 * split[0..n_split) on those cores, its OpenMP team that many threads.
 * Returns 0, or -1 with err. */
static int place_chunks(struct stream_res *r, int gpu, const struct btrt_workload_cores *split,
			uint32_t n_split, struct btrt_error *err)
{
	const struct btrt_program_schedule *s = r->sched;
	r->gpu_core = gpu;
	if (!(r->chunks = malloc(s->n_chunks * sizeof *r->chunks)))
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	memcpy(r->chunks, s->chunks, s->n_chunks * sizeof *r->chunks);
	for (uint32_t c = 0; c < s->n_chunks; c++)
		if (r->chunks[c].pu != BTRT_PU_CPU && gpu >= 0) {
			r->chunks[c].cores = &r->gpu_core;
			r->chunks[c].n_cores = 1;
		} else if (r->chunks[c].pu == BTRT_PU_CPU && c < n_split && split[c].cores) {
			r->chunks[c].cores = split[c].cores;
			r->chunks[c].n_cores = split[c].n_cores;
		}
	return 0;
}

/* Stream i's GPU context, io and pool, and its pipeline config. A Vulkan
 * stream's context is made on vk_share's device (vk_share's queue with
 * same_queue, else a queue of its own while the device has one:
 * btrt_vk.h), or, with vk_share NULL, on a new device with n_vk queues.
 * Returns 0, 2 (a pool too large for memory), or -1 with err. */
static int prepare_stream(const struct btrt_workload *w, const char *argv0,
			  const struct btrt_env *env,
			  const struct btrt_workload_options *o, uint32_t i,
			  const struct btrt_vk *vk_share, int same_queue, uint32_t n_vk,
			  struct stream_res *r, struct btrt_stream_run *sr, struct btrt_error *err)
{
	const struct btrt_program *prog = r->ws->prog;
	const struct btrt_program_schedule *s = r->sched;
	enum btrt_backend backend = btrt_program_schedule_backend(s);
	const int *io_cores;
	uint32_t n_io_cores;
	int gpu;
	btrt_workload_service(w, o, i, &io_cores, &n_io_cores, &gpu);
	uint32_t n_split;
	const struct btrt_workload_cores *split = btrt_workload_chunk_cores(w, o, i, &n_split);
	if (place_chunks(r, gpu, split, n_split, err))
		return -1;
	if (!(r->counts = calloc(prog->app.n_buffers + 1, sizeof *r->counts)))
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	for (uint32_t b = 0; b < prog->app.n_buffers; b++)
		r->counts[b] = prog->app.buffer_count(prog->app.params, b);
	/* one TaskObject per loader, chunk entry and check worker, and slack
	 * (btrt_model_default_pool; the io farms of the environment, 1 each) */
	uint32_t pool = btrt_model_default_pool(s->pool, env->load_threads, env->check_threads);
	struct btrt_pool_config pc = {
		.task_size = prog->app.task_size,
		.n_tasks = (uint32_t)((long)pool < o->tasks_of[i] ? (long)pool : o->tasks_of[i]),
		.buffers = prog->app.buffers, .counts = r->counts, .n_buffers = prog->app.n_buffers,
		.backend = backend,
	};
	btrt_env_pool_config(env, &pc);
	if (btrt_program_check_pool_memory(argv0, &pc, s->n_chunks))
		return 2;
	if (backend == BTRT_BACKEND_VULKAN) {
		struct btrt_vk_config vc = { .device = NULL, .validation = -1,
					     .share = vk_share, .same_queue = same_queue,
					     .queues = n_vk,
					     .n_buffers = prog->app.n_buffers,
					     .shaders = prog->app.shaders, .n_shaders = prog->app.n_shaders };
		btrt_env_vk_config(env, &vc);
		if (btrt_vk_create(&r->vk, &vc, err))
			return -1;
	} else if (backend == BTRT_BACKEND_CUDA) {
		struct btrt_cuda_config cc = { .device = -1, .mem = BTRT_CUDA_MEM_AUTO };
		btrt_env_cuda_config(env, &cc);
		if (btrt_cuda_create(&r->cuda, &cc, err))
			return -1;
	}
	char ioerr[256] = "";
	const char *input = o->input[i] ? o->input[i] : prog->app.default_input;
	if (!(r->io_state = prog->app.io->open(input, prog->app.params, ioerr, sizeof ioerr)))
		return btrt_error_set(err, BTRT_E_IO, 0, "stream %u (%s): input: %s", i, prog->app.name,
				      ioerr);
	unsigned char *io_loaded = calloc(prog->app.n_buffers + 1, 1);
	unsigned char *gpu_touched = calloc(prog->app.n_buffers + 1, 1);
	const char *from; /* not reported per stream */
	int rc = 0;
	if (!io_loaded || !gpu_touched)
		rc = btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	else
		rc = btrt_program_gpu_pool_inputs(prog, s, r->io_state, &pc, io_loaded, gpu_touched,
						  &r->probe_pool, &from, err);
	pc.vk = r->vk;
	pc.cuda = r->cuda;
	if (!rc)
		rc = btrt_pool_create(&r->pool, &pc, err);
	free(io_loaded);
	free(gpu_touched);
	if (rc)
		return -1;
	for (uint32_t t = 0; t < btrt_pool_size(r->pool); t++)
		prog->app.bind(btrt_pool_task(r->pool, t), prog->app.params);
	/* every slot's first use before the measured window (issue 25) */
	btrt_model_warmup((uint64_t)o->tasks_of[i], (uint64_t)o->warmup_of[i], btrt_pool_size(r->pool),
			  &r->warmup, &r->tasks);
	sr->cfg = (struct btrt_pipeline_config){
		.app = prog->app.name,
		.stages = prog->app.stages, .n_stages = prog->app.n_stages,
		.chunks = r->chunks, .n_chunks = s->n_chunks,
		.pool = r->pool, .io = prog->app.io, .io_state = r->io_state,
		.io_cores = io_cores, .n_io_cores = n_io_cores,
		.n_items = r->tasks, .check = 1,
		.vk = r->vk, .cuda = r->cuda,
		.interrupt = btrt_stop_signal(),
	};
	btrt_env_pipeline_config(env, &sr->cfg);
	sr->rate = o->rate[i];
	sr->turn = (uint64_t)o->turn_of[i];
	return 0;
}

/* Stream k's Vulkan device: the first stream k' of the run on the same
 * device; -1 without a Vulkan context. */
static int vk_device_of(const struct stream_res *res, uint32_t k)
{
	if (!res[k].vk)
		return -1;
	uint32_t d = 0;
	while (d < k && !btrt_vk_same_device(res[d].vk, res[k].vk))
		d++;
	return (int)d;
}

/* ", Vulkan queue Q of device D" for stream k's context, "" without one;
 * static storage. */
static const char *vk_line(const struct stream_res *res, uint32_t k)
{
	static char line[64];
	if (!res[k].vk)
		return "";
	snprintf(line, sizeof line, ", Vulkan queue %u of device %d",
		 btrt_vk_queue_index(res[k].vk), vk_device_of(res, k));
	return line;
}

static void release_stream(struct stream_res *r, int quiet)
{
	if (r->io_state)
		r->ws->prog->app.io->close(r->io_state, quiet ? NULL : stdout);
	btrt_pool_destroy(r->pool);
	btrt_pool_destroy(r->probe_pool);
	btrt_vk_destroy(r->vk);
	btrt_cuda_destroy(r->cuda);
	free(r->counts);
	free(r->chunks);
}

/* Stream figures of a verified run; chunk_share malloc'ed. */
static void figures(const struct btrt_workload_options *o, uint32_t i, const struct stream_res *r,
		    const struct btrt_stream_run *sr, struct btrt_workload_figures *f)
{
	const struct btrt_run *run = sr->run;
	*f = (struct btrt_workload_figures){
		.stream = i, .app = r->ws->prog->app.name, .label = r->sched->label,
		.schedule = o->schedule[i], .rate = o->rate[i], .share = o->share[i], .run = run,
		.tasks = btrt_run_items(run),
		.warmup = r->warmup, .warmup_requested = o->warmup_of[i],
		.pool = btrt_pool_size(r->pool),
		.ms_per_task = btrt_run_steady_ns(run, r->warmup) / 1e6,
		.wall_ms = (double)btrt_run_wall_ns(run) / 1e6,
		.n_chunks = r->sched->n_chunks, .chunks = r->chunks,
	};
	f->tasks_per_s = f->ms_per_task > 0 ? 1000.0 / f->ms_per_task : 0.0;
	f->chunk_share = calloc(f->n_chunks + 1, sizeof *f->chunk_share);
	uint64_t n = btrt_run_items(run);
	uint64_t *ns = calloc(n + 1, sizeof *ns);
	for (uint32_t c = 0; f->chunk_share && ns && c < f->n_chunks; c++) {
		uint64_t k = btrt_run_chunk_times(run, c, ns, n), busy = 0;
		for (uint64_t t = 0; t < k; t++)
			busy += ns[t];
		f->chunk_share[c] = f->wall_ms > 0 ? (double)busy / 1e6 / f->wall_ms : 0.0;
	}
	free(ns);
}

static void print_figures(const struct btrt_workload_figures *f, const struct btrt_workload_options *o)
{
	if (!o->quiet)
		btrt_run_print(f->run, stdout);
	char asked[64] = ""; /* the pool's first uses made the warm-up longer */
	if (f->warmup != (uint64_t)f->warmup_requested)
		snprintf(asked, sizeof asked, ", %ld asked, one per TaskObject", f->warmup_requested);
	printf("stream %u (%s): verified %llu tasks (%llu warm-up%s) against the sequential "
	       "reference; %.4f ms/task in steady state, %.1f tasks/s; PU shares:", f->stream,
	       f->app, (unsigned long long)f->tasks, (unsigned long long)f->warmup, asked,
	       f->ms_per_task, f->tasks_per_s);
	for (uint32_t c = 0; c < f->n_chunks && f->chunk_share; c++)
		printf(" %s %.0f%%", f->chunks[c].name, 100.0 * f->chunk_share[c]);
	printf("\n");
}

/* PATH.tmp, malloc'ed (NULL: out of memory). */
static char *tmp_path(const char *path)
{
	size_t n = strlen(path) + 5;
	char *t = malloc(n);
	if (t)
		snprintf(t, n, "%s.tmp", path);
	return t;
}

/* The trace and the report of a verified run, written to PATH.tmp and
 * renamed into place only when no signal came: they appear whole or not
 * at all. Returns 0, or -1 after a message. */
static int write_outputs(const struct btrt_workload *w, const char *argv0,
			 const struct btrt_workload_options *o,
			 const struct btrt_workload_figures *f, uint32_t n)
{
	struct btrt_error err;
	btrt_error_clear(&err);
	char *trace_tmp = o->trace ? tmp_path(o->trace) : NULL;
	char *report_tmp = o->report ? tmp_path(o->report) : NULL;
	int rc = (o->trace && !trace_tmp) || (o->report && !report_tmp) ? -1 : 0;
	if (!rc && o->trace) {
		const struct btrt_run **runs = calloc(n, sizeof *runs);
		const char **names = calloc(n, sizeof *names);
		char (*buf)[160] = calloc(n, sizeof *buf);
		rc = !runs || !names || !buf ? -1 : 0;
		for (uint32_t k = 0; !rc && k < n; k++) {
			runs[k] = f[k].run;
			snprintf(buf[k], sizeof buf[k], "stream %u %s", f[k].stream, f[k].app);
			names[k] = buf[k];
		}
		if (!rc && btrt_runs_write_trace(runs, names, n, trace_tmp, &err)) {
			fprintf(stderr, "%s: --trace: %s\n", argv0, err.msg);
			rc = -1;
		}
		free(runs);
		free(names);
		free(buf);
	}
	if (!rc && o->report && btrt_workload_report_write(report_tmp, w, o, f, n))
		rc = -1;
	if (!rc && atomic_load(btrt_stop_signal()))
		rc = -1;
	if (!rc && ((trace_tmp && rename(trace_tmp, o->trace)) ||
		    (report_tmp && rename(report_tmp, o->report)))) {
		fprintf(stderr, "%s: cannot rename the outputs into place: %s\n", argv0,
			strerror(errno));
		rc = -1;
	}
	if (trace_tmp)
		remove(trace_tmp); /* still there: not renamed */
	if (report_tmp)
		remove(report_tmp);
	free(trace_tmp);
	free(report_tmp);
	return rc;
}

/* --start-gate READY,GO: every stream is prepared; say so (create READY)
 * and wait until GO exists, polling every 0.2 ms, or until a signal. A
 * READY that cannot be made is said, and the streams start at once. */
static void start_gate(void *ctx)
{
	const char *spec = ctx, *go = strchr(spec, ',') + 1;
	char ready[4096];
	snprintf(ready, sizeof ready, "%.*s", (int)(go - 1 - spec), spec);
	FILE *f = fopen(ready, "w");
	if (!f || fclose(f)) {
		fprintf(stderr, "--start-gate: cannot create %s: %s; starting now\n", ready,
			strerror(errno));
		return;
	}
	struct timespec ts = { 0, 200000 };
	while (access(go, F_OK) != 0 && !atomic_load(btrt_stop_signal()))
		nanosleep(&ts, NULL);
}

/* The CUDA dispatchers' wait (docs/runtime.md, "Several streams"): with
 * the plan's placement, when the running streams' GPU dispatchers
 * outnumber the distinct service cores that serve them and their io
 * threads, spinning waits (CUDA's default with one context and more
 * cores than contexts) would take those cores from the io threads and
 * from each other: they yield instead, as CUDA's own heuristic does when
 * waiters outnumber processors. BTRT_CUDA_SYNC, when set, decides. 1:
 * yield. */
static int cuda_yield(const struct btrt_workload *w, const struct btrt_env *env,
		      const struct btrt_workload_options *o)
{
	if (env->cuda_sync != BTRT_CUDA_SYNC_DEFAULT || o->placement_app || !w->n_joint)
		return 0;
	int cores[3 * 64], n_cores = 0, n_disp = 0;
	for (uint32_t i = 0; i < w->n_streams; i++) {
		if (!o->run[i])
			continue;
		const struct btrt_program_schedule *s = &w->streams[i].prog->schedules[o->schedule[i]];
		const int *c = w->joint[o->joint].streams[i].service_cores;
		n_disp += btrt_program_schedule_backend(s) == BTRT_BACKEND_CUDA && c[2] >= 0;
		for (int r = 0; r < 3; r++) {
			int dup = c[r] < 0;
			for (int k = 0; k < n_cores && !dup; k++)
				dup = cores[k] == c[r];
			if (!dup && n_cores < (int)(sizeof cores / sizeof cores[0]))
				cores[n_cores++] = c[r];
		}
	}
	return n_disp > n_cores;
}

static int run_workload(const struct btrt_workload *w, const char *argv0,
			const struct btrt_env *env_in, const struct btrt_workload_options *o)
{
	struct btrt_env env_copy = *env_in;
	const struct btrt_env *env = &env_copy;
	if (cuda_yield(w, env_in, o)) {
		env_copy.cuda_sync = BTRT_CUDA_SYNC_YIELD;
		if (!o->quiet)
			printf("CUDA dispatchers yield while they wait (more of them than service "
			       "cores; BTRT_CUDA_SYNC overrides)\n");
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < w->n_streams; i++)
		n += o->run[i];
	struct stream_res *res = calloc(n, sizeof *res);
	struct btrt_stream_run *sr = calloc(n, sizeof *sr);
	struct btrt_workload_figures *fig = calloc(n, sizeof *fig);
	uint32_t *index = calloc(n, sizeof *index);
	struct btrt_error err;
	btrt_error_clear(&err);
	int rc = 1;
	if (!res || !sr || !fig || !index) {
		fprintf(stderr, "%s: out of memory\n", argv0);
		goto out;
	}
	/* The Vulkan streams' devices and queues (btrt_vk_streams_choose;
	 * docs/runtime.md, "Several streams"): on a GPU one device and one
	 * queue for all, on llvmpipe a queue each where its device has one per
	 * stream, else a device each; BTRT_VK_STREAMS=one|each|queue
	 * overrides. Chosen once the first device is made (its type and
	 * queues); it has a queue per stream unless the queue is asked for. */
	uint32_t n_vk = 0;
	for (uint32_t i = 0; i < w->n_streams; i++)
		n_vk += o->run[i] && btrt_program_schedule_backend(
			&w->streams[i].prog->schedules[o->schedule[i]]) == BTRT_BACKEND_VULKAN;
	const struct btrt_vk *vk_share = NULL;
	enum btrt_vk_streams vk_mode = env->vk_streams;
	for (uint32_t i = 0, k = 0; i < w->n_streams; i++) {
		if (!o->run[i])
			continue;
		index[k] = i;
		res[k].ws = &w->streams[i];
		res[k].sched = &w->streams[i].prog->schedules[o->schedule[i]];
		uint64_t t_prep = btrt_now_ns();
		int one_q = vk_mode == BTRT_VK_STREAMS_QUEUE;
		int prc = prepare_stream(w, argv0, env, o, i, vk_share, one_q, one_q ? 1 : n_vk,
					 &res[k], &sr[k], &err);
		res[k].prepare_ns = btrt_now_ns() - t_prep;
		if (!vk_share && res[k].vk) {
			vk_mode = btrt_vk_streams_choose(env->vk_streams, btrt_vk_cpu_device(res[k].vk),
							 btrt_vk_queue_count(res[k].vk), n_vk);
			if (vk_mode != BTRT_VK_STREAMS_EACH)
				vk_share = res[k].vk;
		}
		k++;
		if (prc == 2) {
			rc = 2;
			goto out;
		}
		if (prc) {
			fprintf(stderr, "%s: %s: %s\n", argv0, btrt_strerror(err.kind), err.msg);
			goto out;
		}
		if (!o->quiet)
			printf("stream %u: %s on %s, schedule %ld (%s): %s; %llu tasks, pool %u%s%s%s%s\n",
			       i, res[k - 1].ws->prog->app.name, w->device, o->schedule[i],
			       res[k - 1].sched->kind, res[k - 1].sched->label, (unsigned long long)res[k - 1].tasks,
			       btrt_pool_size(res[k - 1].pool),
			       o->rate[i] > 0 ? ", paced" : o->share[i] > 0 ? ", fair share" : "",
			       o->placement_app ? ", its app's service cores" : "",
			       btrt_workload_chunk_cores(w, o, i, &(uint32_t){0}) ?
			       ", CPU chunks on their own core sets" : "",
			       vk_line(res, k - 1));
	}
	fflush(stdout);
	double *share = calloc(n, sizeof *share);
	int fair = 0;
	for (uint32_t k = 0; share && k < n; k++)
		fair |= (share[k] = o->share[index[k]]) > 0;
	struct btrt_streams_opts so = { .turn = (uint64_t)o->multiplex, .together = o->together,
					.gate = o->gate ? start_gate : NULL,
					.gate_ctx = (void *)o->gate, .share = fair ? share : NULL };
	int arc = btrt_streams_run_opts(sr, n, &so, &err);
	free(share);
	if (atomic_load(btrt_stop_signal()))
		goto out;
	if (arc) {
		fprintf(stderr, "%s: %s: %s\n", argv0, btrt_strerror(err.kind), err.msg);
		goto out;
	}
	for (uint32_t k = 0; k < n; k++) {
		figures(o, index[k], &res[k], &sr[k], &fig[k]);
		fig[k].prepare_ms = (double)res[k].prepare_ns / 1e6;
		fig[k].vk_device = vk_device_of(res, k);
		fig[k].vk_queue = res[k].vk ? (int)btrt_vk_queue_index(res[k].vk) : -1;
		print_figures(&fig[k], o);
	}
	if (!write_outputs(w, argv0, o, fig, n) && !atomic_load(btrt_stop_signal()))
		rc = 0;
out:;
	int sig = atomic_load(btrt_stop_signal());
	if (sig && rc != 0) {
		uint64_t done = 0;
		for (uint32_t k = 0; sr && k < n; k++)
			done += sr[k].run ? btrt_run_items(sr[k].run) : 0;
		fprintf(stderr, "%s: %s: stopped every stream after %llu checked tasks in all; "
			"no report or trace written\n", argv0,
			sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal",
			(unsigned long long)done);
		rc = 128 + sig;
	}
	for (uint32_t k = 0; res && sr && fig && k < n; k++) {
		if (res[k].ws)
			release_stream(&res[k], o->quiet || sig);
		btrt_run_free(sr[k].run);
		free(fig[k].chunk_share);
	}
	free(res);
	free(sr);
	free(fig);
	free(index);
	return rc;
}

int btrt_workload_main(const struct btrt_workload *w, int argc, char **argv)
{
	/* passive: several streams' teams may share cores (--share) */
	btrt_omp_env_init(argv, BTRT_OMP_WAIT_PASSIVE);
	struct btrt_env env;
	struct btrt_error err;
	if (btrt_env_init(&env, &err)) {
		fprintf(stderr, "%s: %s\n", argv[0], err.msg);
		return 2;
	}
	btrt_stop_signals_catch();
	struct btrt_workload_options o;
	int rc;
	if (btrt_workload_parse(w, argc, argv, &o))
		rc = 2;
	else if (o.help) {
		btrt_workload_usage(w, stdout, argv[0]);
		rc = 0;
	} else if (o.list) {
		btrt_workload_list(w, &o, stdout);
		rc = 0;
	} else if (o.list_json) {
		rc = btrt_workload_list_json(w, stdout) ? 1 : 0;
	} else if (o.share_probe) {
		/* CUDA dispatchers wait as they would in candidate 0's run */
		struct btrt_env pe = env;
		if (cuda_yield(w, &env, &o))
			pe.cuda_sync = BTRT_CUDA_SYNC_YIELD;
		rc = btrt_workload_share_probe(w, argv[0], &pe, &o);
	} else
		rc = run_workload(w, argv[0], &env, &o);
	btrt_workload_options_free(&o);
	return rc;
}
