/* btrt_program_main: the pipeline program over a generated program's
 * tables (btrt_program.h). A statically wired software pipeline
 * (BetterTogether, paper Sec. III-E): one dispatcher thread per chunk,
 * SPSC queues between them, a fixed pool of TaskObjects recycled from the
 * last chunk to the first. A farm (replicated chunk, "{cpu,gpu}:0-8") is
 * one chunk entry per PU with the same .farm id: whichever is free takes
 * the next task, and the tasks leave it in input order; a chunk with a
 * core count ("big[2]:0-3") runs on its own share of its PU's cores.
 *
 * SIGINT / SIGTERM stop the run: no further task is admitted, the
 * pipeline stops and joins its threads, GPU work finishes, nothing is
 * written to --report or --trace, and the program exits 128 + the signal
 * (130 for SIGINT, 143 for SIGTERM). A second signal ends it at once. A
 * signal that was ignored when the program started stays ignored. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "btrt_cuda.h"
#include "btrt_env.h"
#include "btrt_fsafe.h"
#include "btrt_hog.h"
#include "btrt_program_internal.h"
#include "btrt_internal.h"
#include "btrt_model.h"
#include "btrt_trace.h"
#include "btrt_watchdog.h"


/* --adapt runs every schedule of the build: the GPU context of their GPU
 * API and a pool for the largest (chunks, and default pool size). */
static void adapt_needs(const struct btrt_program *prog, enum btrt_backend *backend,
			uint32_t *max_chunks, uint32_t *max_pool)
{
	for (uint32_t i = 0; i < prog->n_schedules; i++) {
		const struct btrt_program_schedule *s = &prog->schedules[i];
		if (btrt_program_schedule_backend(s) != BTRT_BACKEND_HOST)
			*backend = btrt_program_schedule_backend(s);
		*max_chunks = BTRT_MAX(*max_chunks, s->n_chunks);
		*max_pool = BTRT_MAX(*max_pool, s->pool);
	}
}

/* The adaptive run of base's stream, from schedule o->schedule, over the
 * schedules the pool's backend serves. *scheds receives their table
 * (malloc'ed; the result refers to it: free it after *res). Returns 0, or
 * -1 with err. */
static int adapt_run(const struct btrt_program *prog, const struct btrt_program_options *o,
		     const struct btrt_pipeline_config *base, enum btrt_backend backend,
		     struct btrt_adapt_schedule **scheds, struct btrt_adapt_result **res,
		     struct btrt_error *err)
{
	struct btrt_adapt_schedule *as = calloc(prog->n_schedules, sizeof *as);
	*scheds = as;
	if (!as)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "adaptive run: out of memory");
	for (uint32_t i = 0; i < prog->n_schedules; i++) {
		const struct btrt_program_schedule *s = &prog->schedules[i];
		enum btrt_backend b = btrt_program_schedule_backend(s);
		as[i] = (struct btrt_adapt_schedule){
			s->label, s->chunks, s->n_chunks,
			prog->model ? prog->schedule_pus[i] : NULL, s->predicted_ms,
			b != BTRT_BACKEND_HOST && b != backend };
	}
	if (prog->model && btrt_adapt_check_model(prog->model, as, prog->n_schedules, err))
		return -1;
	struct btrt_adapt_config ac = { .base = base, .model = prog->model,
					.scheds = as, .n_scheds = prog->n_schedules,
					.start = (uint32_t)o->schedule };
	btrt_adapt_options_init(&ac.opt);
	ac.opt.force_every = (uint64_t)o->adapt_force;
	if (o->adapt_window)
		ac.opt.window = (uint32_t)o->adapt_window;
	if (o->adapt_window_ms)
		ac.opt.window_ms = (double)o->adapt_window_ms;
	if (o->adapt_threshold)
		ac.opt.threshold = (double)o->adapt_threshold / 100.0;
	if (o->adapt_margin)
		ac.opt.margin = (double)o->adapt_margin / 100.0;
	ac.opt.log = o->adapt_log ? stdout : NULL;
	return btrt_adapt_run(&ac, res, err);
}

/* The stage whose output a failed check names: the last stage that
 * writes the buffer the io's message names (`buffer 'NAME'`, the io check's
 * convention: docs/app-format.md), else the last stage (the final
 * output). *what receives "buffer 'NAME'" or "the final output". */
static uint32_t checked_stage(const struct btrt_program *prog, const char *msg, char *what,
			      size_t len)
{
	uint32_t stage = prog->app.n_stages - 1;
	const char *b = strstr(msg, "buffer '");
	snprintf(what, len, "the final output");
	for (uint32_t k = 0; b && k < prog->app.n_buffers; k++) {
		size_t n = strcspn(b + 8, "'");
		if (strlen(prog->app.buffers[k].name) != n || strncmp(prog->app.buffers[k].name, b + 8, n))
			continue;
		for (uint32_t st = 0; st < prog->app.n_stages; st++)
			for (uint32_t w = 0; w < prog->app.stages[st].n_writes; w++)
				if (prog->app.stages[st].writes[w] == k) {
					stage = st;
					snprintf(what, len, "buffer '%s'", prog->app.buffers[k].name);
				}
	}
	return stage;
}

/* A failed check: names the buffer it compares and the stage that wrote
 * it (checked_stage), that stage's chunk and PU, and the schedule's
 * placement (which stages ran where), so that the author knows which
 * kernel to suspect. Fills err's stage and chunk (-1: a farm). */
static void explain_check_failure(const struct btrt_program *prog, const char *argv0,
				  long schedule, struct btrt_error *err)
{
	const struct btrt_program_schedule *s = &prog->schedules[schedule];
	char what[160];
	uint32_t stage = checked_stage(prog, err->msg, what, sizeof what);
	uint32_t c = 0;
	while (c + 1 < s->n_chunks && stage >= s->chunks[c].first_stage + s->chunks[c].n_stages)
		c++;
	const struct btrt_chunk *ch = &s->chunks[c];
	const char *last = stage + 1 == prog->app.n_stages ? " (the last)" : "";
	err->stage = (int)stage;
	err->chunk = ch->farm ? -1 : (int)c;
	if (ch->farm)
		fprintf(stderr,
			"%s: the check compares %s, written by stage %u '%s'%s, "
			"run by a farm: whichever of its workers took the task (--trace shows which); "
			"schedule %ld places the stages %s\n",
			argv0, what, stage, prog->app.stages[stage].name, last, schedule, s->label);
	else
		fprintf(stderr,
			"%s: the check compares %s, written by stage %u '%s'%s, "
			"run by chunk %u on PU '%s' (%s kernel); schedule %ld places the stages %s\n",
			argv0, what, stage, prog->app.stages[stage].name, last, c, ch->name,
			ch->pu == BTRT_PU_VULKAN ? "vulkan" : ch->pu == BTRT_PU_CUDA ? "cuda" : "cpu",
			schedule, s->label);
	fprintf(stderr,
		"%s: a wrong kernel of any stage may show here; run the other schedules "
		"(--list) to see which placements fail\n", argv0);
}

/* Everything a run holds, released by release(). */
struct program_run {
	struct btrt_vk *vk;
	struct btrt_cuda *cuda;
	struct btrt_pool *pool, *probe_pool;
	struct btrt_run *srun;          /* a static run's records */
	struct btrt_adapt_result *ares; /* an adaptive run's */
	struct btrt_adapt_schedule *ascheds; /* its schedules */
	const struct btrt_run *run;
	void *io_state;
	struct btrt_ofile trace_out, report_out; /* written, not yet published */
	struct btrt_program_setup setup;
};

/* ms since t0 (btrt_now_ns), and t0 moved to now */
static double lap_ms(uint64_t *t0)
{
	uint64_t t = btrt_now_ns(), d = t - *t0;
	*t0 = t;
	return (double)d / 1e6;
}

/* The GPU context of backend: a failure ends the run unless --adapt
 * started from a schedule that does not need it. Returns 0 (*backend
 * BTRT_BACKEND_HOST when the GPU schedules are left out), or -1 with err. */
static int create_gpu(const struct btrt_program *prog, const char *argv0,
		      const struct btrt_env *env, const struct btrt_program_options *o,
		      struct program_run *r,
		      enum btrt_backend *backend, struct btrt_error *err)
{
	int needed = !o->adapt || btrt_program_schedule_backend(&prog->schedules[o->schedule]) == *backend;
	if (*backend == BTRT_BACKEND_VULKAN) {
		struct btrt_vk_config vc = { .device = NULL, .validation = -1,
					     .n_buffers = prog->app.n_buffers,
					     .shaders = prog->app.shaders, .n_shaders = prog->app.n_shaders };
		btrt_env_vk_config(env, &vc);
		if (btrt_vk_create(&r->vk, &vc, err) && needed)
			return -1;
	} else if (*backend == BTRT_BACKEND_CUDA) {
		struct btrt_cuda_config cc = { .device = -1, .mem = BTRT_CUDA_MEM_AUTO };
		btrt_env_cuda_config(env, &cc);
		if (btrt_cuda_create(&r->cuda, &cc, err) && needed)
			return -1;
	}
	if (*backend != BTRT_BACKEND_HOST && !r->vk && !r->cuda) {
		/* --adapt from a CPU schedule: the GPU schedules are left out */
		fprintf(stderr, "%s: --adapt: %s; the schedules that need it are left out\n",
			argv0, err->msg);
		*backend = BTRT_BACKEND_HOST;
	}
	return 0;
}

/* The pool of the run: --pool, else the schedule's default (the largest
 * of the build's with --adapt) but at most --tasks; io-loaded inputs in
 * pinned host memory on CUDA (btrt_pool_config.io_loaded: the build's
 * btrt_program.io_loaded, else found on the probe pool, kept until the
 * end: btrt_probe_pool_create), and the GPU use of every buffer in
 * schedule s (btrt_pool_config.gpu_touched: on CUDA the buffers no GPU
 * stage touches in host memory, on CUDA and Vulkan a GPU chunk's private
 * ones on the device; s NULL under --adapt, which may switch to any
 * schedule). Returns 0, or -1 with err. */
static int create_pool(const struct btrt_program *prog, const struct btrt_program_schedule *s,
		       struct btrt_pool_config *pc, struct program_run *r, struct btrt_error *err)
{
	unsigned char *io_loaded = calloc(prog->app.n_buffers + 1, 1);
	unsigned char *gpu_touched = calloc(prog->app.n_buffers + 1, 1);
	int rc = -1;
	if (!io_loaded || !gpu_touched) {
		free(io_loaded);
		free(gpu_touched);
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "pool: out of memory");
	}
	uint64_t t = btrt_now_ns();
	if (btrt_program_gpu_pool_inputs(prog, s, r->io_state, pc, io_loaded, gpu_touched,
					 &r->probe_pool, &r->setup.io_loaded_from, err))
		goto out;
	if (r->setup.io_loaded_from && !strcmp(r->setup.io_loaded_from, "probe"))
		r->setup.pool_io_probe_ms = (double)(btrt_now_ns() - t) / 1e6;
	pc->vk = r->vk;
	pc->cuda = r->cuda;
	if (btrt_pool_create(&r->pool, pc, err))
		goto out;
	btrt_pool_setup_ms(r->pool, &r->setup.pool_probe_ms, &r->setup.pool_zero_ms);
	r->setup.pool = r->pool;
	for (uint32_t i = 0; i < btrt_pool_size(r->pool); i++)
		prog->app.bind(btrt_pool_task(r->pool, i), prog->app.params);
	rc = 0;
out:
	pc->io_loaded = NULL; /* borrowed during btrt_pool_create only */
	pc->gpu_touched = NULL;
	free(io_loaded);
	free(gpu_touched);
	return rc;
}

/* The summary of a verified run on stdout. */
static void print_summary(const struct btrt_program *prog, const struct btrt_program_options *o,
			  const struct program_run *r, double ms_per_task)
{
	uint64_t items = btrt_run_items(r->run);
	if (!o->quiet)
		btrt_run_print(r->run, stdout);
	if (r->ares && !o->quiet) {
		uint64_t from = 0;
		double after = btrt_adapt_after_switch_ns(r->ares, (uint64_t)o->warmup_run, &from) / 1e6;
		uint32_t k = btrt_adapt_final_schedule(r->ares);
		btrt_adapt_print(r->ares, stdout, o->adapt_log);
		printf("adapt: schedule %u (%s) at the end", k, prog->schedules[k].label);
		if (after > 0)
			printf("; %.4f ms/task from task %llu on", after, (unsigned long long)from);
		printf("\n");
	}
	uint64_t w = (uint64_t)o->warmup_run;
	char asked[64] = ""; /* the pool's first uses made the warm-up longer */
	if (o->warmup_run != o->warmup)
		snprintf(asked, sizeof asked, ", %ld asked, one per TaskObject", o->warmup);
	printf("verified %llu tasks (%llu warm-up%s + %llu measured) against the sequential "
	       "reference; %.4f ms/task in steady state, %.1f tasks/s\n",
	       (unsigned long long)items, (unsigned long long)w, asked,
	       (unsigned long long)btrt_run_steady_items(r->run, w),
	       ms_per_task, ms_per_task > 0 ? 1000.0 / ms_per_task : 0.0);
}

/* The trace and the report of a verified run, written to temporary files
 * (btrt_fsafe.h) and renamed into place only when both are whole and no
 * signal came. Returns 0, or -1 with err (err->kind BTRT_OK: a message was
 * printed). */
static int write_outputs(const struct btrt_program *prog, const struct btrt_program_options *o,
			 struct program_run *r, double ms_per_task, struct btrt_error *err)
{
	if (o->trace) {
		if (btrt_ofile_open(&r->trace_out, o->trace, err))
			return -1;
		if (r->ares)
			btrt_adapt_trace_events(r->ares, r->trace_out.f);
		else
			btrt_run_trace_events(r->run, r->trace_out.f);
		fputs(BTRT_TRACE_TAIL, r->trace_out.f);
		if (btrt_ofile_close(&r->trace_out, err))
			return -1;
	}
	if (o->report) {
		struct btrt_program_outcome out = {
			o->schedule, r->run, r->ares, ms_per_task, 1, NULL, btrt_pool_size(r->pool),
			&r->setup};
		char *text = btrt_report_text(o->report, prog, o, &out);
		if (!text)
			return -1;
		int bad = btrt_ofile_open(&r->report_out, o->report, err);
		if (!bad) {
			fputs(text, r->report_out.f);
			bad = btrt_ofile_close(&r->report_out, err);
		}
		free(text);
		if (bad)
			return -1;
	}
	/* Only whole outputs of an uninterrupted run appear. */
	if (atomic_load(btrt_stop_signal()))
		return -1;
	if ((r->trace_out.tmp && btrt_ofile_publish(&r->trace_out, err)) ||
	    (r->report_out.tmp && btrt_ofile_publish(&r->report_out, err)))
		return -1;
	return 0;
}

/* A failed run: the explanation of a failed check first, then the error as
 * the last line of stderr; the failure (--failure) and, with run records,
 * the report (--report, "verified": false) as JSON. */
static void report_failure(const struct btrt_program *prog, const char *argv0,
			   struct btrt_program_options *o, const struct program_run *r,
			   struct btrt_error *err)
{
	if (r->ares) /* the schedule that ran the failed task */
		o->schedule = btrt_adapt_final_schedule(r->ares);
	if (err->kind == BTRT_E_CHECK)
		explain_check_failure(prog, argv0, o->schedule, err);
	fprintf(stderr, "%s: %s: %s\n", argv0, btrt_strerror(err->kind), err->msg);
	if (o->failure)
		btrt_failure_write(o->failure, err, o->schedule);
	struct btrt_program_outcome out = {
		o->schedule, r->run, r->ares, 0.0, 0, err, r->pool ? btrt_pool_size(r->pool) : 0,
		NULL};
	if (r->run && o->report)
		btrt_report_write(o->report, prog, o, &out);
}

static void release(const struct btrt_program *prog, const struct btrt_program_options *o,
		    struct program_run *r, int sig)
{
	btrt_ofile_discard(&r->trace_out); /* still there: not published */
	btrt_ofile_discard(&r->report_out);
	if (r->io_state)
		prog->app.io->close(r->io_state, o->quiet || sig ? NULL : stdout);
	btrt_run_free(r->srun);
	btrt_adapt_free(r->ares);
	free(r->ascheds);
	btrt_pool_destroy(r->pool);
	btrt_pool_destroy(r->probe_pool);
	btrt_vk_destroy(r->vk);
	btrt_cuda_destroy(r->cuda);
}

/* The check workers of the run: --check-threads, else BTRT_CHECK_THREADS,
 * else the build's choice; 1 where the checks stay on one thread
 * (--digests: lines in input order; --adapt and the hogs: on_task_done). */
static uint32_t check_threads(const struct btrt_program *prog, const struct btrt_env *env,
			      const struct btrt_program_options *o)
{
	uint32_t k = o->check_threads ? (uint32_t)o->check_threads
		     : env->check_threads ? env->check_threads : prog->check_threads;
	if (o->digests || o->adapt || o->n_hog_cores || o->hog_gpu_ms || prog->app.io->check_serial)
		return 1;
	return BTRT_MAX(1u, BTRT_MIN(k, BTRT_CHECK_THREADS_MAX));
}

/* The loaders of the run: --load-threads, else BTRT_LOAD_THREADS, else
 * the build's choice; 1 where the loads stay on one thread (--adapt and
 * the hogs: on_task_done reads each task's load time). */
static uint32_t load_threads(const struct btrt_program *prog, const struct btrt_env *env,
			     const struct btrt_program_options *o)
{
	uint32_t k = o->load_threads ? (uint32_t)o->load_threads
		     : env->load_threads ? env->load_threads : prog->load_threads;
	if (o->adapt || o->n_hog_cores || o->hog_gpu_ms || prog->app.io->load_serial)
		return 1;
	return BTRT_MAX(1u, BTRT_MIN(k, BTRT_LOAD_THREADS_MAX));
}

/* The run of a parsed command line. Returns the exit status. */
static int run_program(const struct btrt_program *prog, const char *argv0,
		       const struct btrt_env *env, struct btrt_program_options *o)
{
	const struct btrt_program_schedule *s = &prog->schedules[o->schedule];
	enum btrt_backend backend = btrt_program_schedule_backend(s);
	uint32_t max_chunks = s->n_chunks, max_pool = s->pool, k_check = check_threads(prog, env, o);
	uint32_t k_load = load_threads(prog, env, o);
	if (o->adapt)
		adapt_needs(prog, &backend, &max_chunks, &max_pool);
	/* one TaskObject per position (loaders, chunk entries, check workers)
	 * and BTRT_POOL_SLACK more */
	max_pool = btrt_model_default_pool(max_pool, k_load, k_check);
	size_t *counts = calloc(prog->app.n_buffers + 1, sizeof *counts);
	if (!counts) {
		fprintf(stderr, "%s: out of memory\n", argv0);
		return 1;
	}
	for (uint32_t b = 0; b < prog->app.n_buffers; b++)
		counts[b] = prog->app.buffer_count(prog->app.params, b);
	struct btrt_pool_config pc = {
		.task_size = prog->app.task_size,
		.n_tasks = (uint32_t)(o->pool ? o->pool : max_pool < o->tasks ? (long)max_pool : o->tasks),
		.buffers = prog->app.buffers, .counts = counts, .n_buffers = prog->app.n_buffers,
		.backend = backend,
	};
	btrt_env_pool_config(env, &pc);
	if (btrt_program_check_pool_memory(argv0, &pc, max_chunks)) {
		free(counts);
		return 2;
	}
	struct btrt_error err;
	btrt_error_clear(&err);
	struct program_run r = { 0 };
	struct btrt_hog_plan hog = { .cpu_cores = o->hog_cores, .n_cpu_cores = o->n_hog_cores,
				     .cuda = o->hog_gpu_ms > 0, .cuda_device = -1,
				     .cuda_kernel_ms = (double)o->hog_gpu_ms,
				     .from = (uint64_t)o->hog_from, .to = (uint64_t)o->hog_to,
				     .log = o->quiet ? NULL : stdout };
	int rc = 1;
	uint64_t t0 = btrt_now_ns();
	if (create_gpu(prog, argv0, env, o, &r, &backend, &err))
		goto fail;
	r.setup.gpu_ms = lap_ms(&t0);
	btrt_error_clear(&err); /* a GPU left out of --adapt is no failure */
	pc.backend = backend;
	char ioerr[256] = "";
	static char opening[160];
	snprintf(opening, sizeof opening, "the open of the input %s",
		 o->input ? o->input : "(the app's default)");
	btrt_watch_begin(-1, opening, NULL, 0);
	r.io_state = prog->app.io->open(o->input, prog->app.params, ioerr, sizeof(ioerr));
	btrt_watch_leave();
	if (!r.io_state) {
		btrt_program_input_failed(prog, argv0, o, ioerr);
		goto out;
	}
	r.setup.input_open_ms = lap_ms(&t0);
	if (create_pool(prog, o->adapt ? NULL : s, &pc, &r, &err))
		goto fail;
	r.setup.pool_ms = lap_ms(&t0);
	/* every slot's first use before the measured window (issue 25) */
	uint64_t wr;
	btrt_model_warmup((uint64_t)o->tasks, (uint64_t)o->warmup, btrt_pool_size(r.pool), &wr,
			  &o->tasks_run);
	o->warmup_run = (long)wr;
	o->hog_first = o->tasks_run - (uint64_t)o->tasks;
	hog.first = o->hog_first;
	if (!o->quiet && (k_check > 1 || k_load > 1))
		printf("%s on %s, schedule %ld (%s): %s; %llu tasks, pool %u, %u load and %u check "
		       "threads\n", prog->app.name, prog->device, o->schedule, s->kind, s->label,
		       (unsigned long long)o->tasks_run, btrt_pool_size(r.pool), k_load, k_check);
	else if (!o->quiet)
		printf("%s on %s, schedule %ld (%s): %s; %llu tasks, pool %u\n", prog->app.name,
		       prog->device, o->schedule, s->kind, s->label, (unsigned long long)o->tasks_run,
		       btrt_pool_size(r.pool));
	fflush(stdout);
	struct btrt_pipeline_config cfg = {
		.app = prog->app.name,
		.stages = prog->app.stages, .n_stages = prog->app.n_stages,
		.chunks = s->chunks, .n_chunks = s->n_chunks,
		.pool = r.pool, .io = prog->app.io, .io_state = r.io_state,
		.io_cores = prog->service_cores, .n_io_cores = prog->n_service_cores,
		.n_items = o->tasks_run, .check = 1,
		.check_out = o->digests ? stdout : NULL,
		.vk = r.vk, .cuda = r.cuda,
		.interrupt = btrt_stop_signal(),
		.check_threads = k_check,
		.load_threads = k_load,
	};
	btrt_env_pipeline_config(env, &cfg);
	if (o->n_hog_cores || o->hog_gpu_ms) {
		cfg.on_task_done = btrt_hog_plan_on_task_done;
		cfg.on_task_done_ctx = &hog;
	}
	int arc;
	lap_ms(&t0);
	if (o->adapt) {
		arc = adapt_run(prog, o, &cfg, backend, &r.ascheds, &r.ares, &err);
		r.run = r.ares ? btrt_adapt_records(r.ares) : NULL;
	} else {
		arc = btrt_pipeline_run(&cfg, &r.srun, &err);
		r.run = r.srun;
	}
	r.setup.pipeline_ms = lap_ms(&t0);
	btrt_hog_plan_finish(&hog);
	if (arc)
		goto fail;
	if (atomic_load(btrt_stop_signal()))
		goto out;
	if (hog.failed) {
		err = hog.err; /* no figure under a hog that did not run */
		goto fail;
	}
	double ms_per_task = btrt_run_steady_ns(r.run, (uint64_t)o->warmup_run) / 1e6;
	print_summary(prog, o, &r, ms_per_task);
	if (!write_outputs(prog, o, &r, ms_per_task, &err))
		rc = 0;
	else if (err.kind != BTRT_OK)
		goto fail;
	goto out;
fail:
	if (!atomic_load(btrt_stop_signal())) /* else the run stopped because it was asked to */
		report_failure(prog, argv0, o, &r, &err);
out:;
	int sig = atomic_load(btrt_stop_signal());
	if (sig && rc != 0) {
		fprintf(stderr, "%s: %s: stopped after %llu checked tasks; no report or trace written\n",
			argv0, sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal",
			(unsigned long long)(r.run ? btrt_run_items(r.run) : 0));
		rc = 128 + sig;
	}
	release(prog, o, &r, sig);
	free(counts);
	return rc;
}

int btrt_program_main(const struct btrt_program *prog, int argc, char **argv)
{
	/* OpenMP teams wait passively between kernels (an idle pipeline must
	 * not burn the cores other chunks need) unless every thread has cores
	 * of its own; may re-execute once. */
	btrt_omp_env_init(argv, prog->omp_wait);
	struct btrt_env env; /* the BTRT_* variables, read once */
	struct btrt_error err;
	if (btrt_env_init(&env, &err)) {
		fprintf(stderr, "%s: %s\n", argv[0], err.msg);
		return 2;
	}
	btrt_stop_signals_catch();
	struct btrt_program_options o;
	if (btrt_program_parse(prog, argc, argv, &o))
		return 2;
	if (o.help) {
		btrt_program_usage(prog, stdout, argv[0]);
		return 0;
	}
	if (o.list) {
		if (o.list == 2)
			return btrt_program_list_json(prog, stdout) ? 1 : 0;
		btrt_program_list(prog, stdout);
		return 0;
	}
	/* A bad output fails now, not after the run (btrt_fsafe.h). */
	const char *outs[][2] = { { "--report", o.report }, { "--trace", o.trace },
				  { "--failure", o.failure } };
	for (int i = 0; i < 3; i++)
		if (outs[i][1] && btrt_output_check(outs[i][0], outs[i][1], &err)) {
			fprintf(stderr, "%s: %s\n", argv[0], err.msg);
			return 2;
		}
	if (o.adapt && !prog->model && !o.adapt_force) {
		fprintf(stderr, "%s: --adapt: this build has no cost model (generated without a "
			"profiling table): regenerate with --table, or force switches with "
			"--adapt-force N\n", argv[0]);
		return 2;
	}
	struct btrt_guard g = { argv[0], "run", o.failure, o.schedule, 0, env.stop_timeout_s };
	btrt_guard_install(&g);
	btrt_guard_running(1); /* a kernel's exit() is reported from now on */
	int rc = run_program(prog, argv[0], &env, &o);
	btrt_guard_running(0);
	return rc;
}
