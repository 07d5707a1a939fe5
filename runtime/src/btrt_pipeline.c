/* Dispatcher threads, validation, end of stream and error stop, and
 * btrt_pipeline_run. The links between the threads (SPSC rings, and the
 * farm links around replicated chunks) are set up and wired by
 * btrt_farm.c; the io source and sink threads are btrt_io.c. */
#include "btrt_pipe.h"
#include "btrt_trace.h"
#include "btrt_watchdog.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static void cores_str(const struct btrt_chunk *c, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < c->n_cores && o + 12 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? "," : "", c->cores[i]);
}

/* Fills e's location and prefixes its message with chunk, stage and task. */
static void locate(struct btrt_error *e, const struct pipe *p, uint32_t ci,
		   int stage, const struct btrt_task *t)
{
	const struct btrt_chunk *c = &p->cfg->chunks[ci];
	char tmp[sizeof e->msg];
	memcpy(tmp, e->msg, sizeof tmp);
	e->chunk = (int)ci;
	e->stage = stage;
	e->seq = t ? t->seq : UINT64_MAX;
	char where[160];
	int n = snprintf(where, sizeof where, "chunk %u '%s'", ci, c->name ? c->name : "");
	if (stage >= 0)
		n += snprintf(where + n, sizeof where - (size_t)n, " stage %d '%s'", stage,
			      p->cfg->stages[stage].name ? p->cfg->stages[stage].name : "");
	if (t)
		snprintf(where + n, sizeof where - (size_t)n, " task %" PRIu64 " (slot %u)", t->seq, t->slot);
	snprintf(e->msg, sizeof e->msg, "%s: %s", where, tmp);
}

static int rec_stage(struct btrt_chunk_rec *r, uint64_t seq, uint32_t s, uint32_t gpu,
		     uint64_t a, uint64_t b)
{
	if (r->n_stages_rec >= r->limit * r->n_stages)
		return 0;
	if (btrt_vec_reserve((void **)&r->stages, &r->cap_stages, r->n_stages_rec, sizeof *r->stages))
		return -1;
	r->stages[r->n_stages_rec++] = (struct btrt_rec_stage){ seq, s, gpu, a, b };
	return 0;
}

/* Runs chunk ch's stages on t, starting at time a (ns); *b receives the
 * end time. CPU stages are timed back to back (one clock read per stage).
 * Returns 0 or -1 with e located. */
static int chunk_exec(struct chunk_rt *ch, struct btrt_task *t, struct btrt_error *e,
		      uint64_t a, uint64_t *b)
{
	int rc = 0;
	const struct btrt_chunk *c = ch->c;
	const struct btrt_stage *st = ch->p->cfg->stages;
	btrt_error_clear(e);
	if (c->body) {
		btrt_watch_begin((int)c->first_stage, st[c->first_stage].name, c->name, t->seq);
		rc = c->body(c->body_ctx, t, e);
		btrt_watch_end();
		*b = btrt_now_ns();
		if (rc == 0)
			return 0;
		if (e->kind == BTRT_OK)
			btrt_error_set(e, BTRT_E_KERNEL, -1, "chunk body failed");
		locate(e, ch->p, ch->idx, e->stage, t);
		return -1;
	}
	switch (c->pu) {
	case BTRT_PU_CPU:
		for (uint32_t k = 0; k < c->n_stages; k++) {
			uint32_t s = c->first_stage + k;
			btrt_watch_begin((int)s, st[s].name, c->name, t->seq);
			rc = st[s].cpu(t);
			btrt_watch_end();
			*b = btrt_now_ns();
			rec_stage(ch->rec, t->seq, s, 0, a, *b);
			a = *b;
			if (rc != 0) {
				btrt_error_set(e, BTRT_E_KERNEL, rc, "cpu kernel returned %d", rc);
				locate(e, ch->p, ch->idx, (int)s, t);
				return -1;
			}
		}
		return 0;
	case BTRT_PU_VULKAN:
	case BTRT_PU_CUDA: {
		memset(ch->gtimes, 0, c->n_stages * sizeof *ch->gtimes);
		e->stage = -1;
		btrt_watch_begin((int)c->first_stage, st[c->first_stage].name, c->name, t->seq);
		rc = c->pu == BTRT_PU_VULKAN
			? btrt_vk_chunk_exec(ch->gpu_state, t, ch->gtimes, e)
			: btrt_cuda_chunk_exec(ch->gpu_state, t, ch->gtimes, e);
		btrt_watch_end();
		*b = btrt_now_ns();
		if (rc != 0) {
			locate(e, ch->p, ch->idx, e->stage, t);
			return -1;
		}
		for (uint32_t k = 0; k < c->n_stages; k++)
			if (ch->gtimes[k].end_ns)
				rec_stage(ch->rec, t->seq, c->first_stage + k, 1,
					  ch->gtimes[k].start_ns, ch->gtimes[k].end_ns);
		return 0;
	}
	}
	return -1;
}

static int dispatcher_setup(struct chunk_rt *ch, struct btrt_error *e)
{
	btrt_pipe_set_backoff(ch->p->cfg, ch->idx);
	const struct btrt_chunk *c = ch->c;
	struct pipe *p = ch->p;
	char cs[128];
	if (p->pin && btrt_pin_self(c->cores, c->n_cores, e)) {
		cores_str(c, cs, sizeof cs);
		char tmp[sizeof e->msg];
		snprintf(tmp, sizeof tmp, "cannot pin dispatcher to cores {%.60s}: %.200s", cs, e->msg);
		memcpy(e->msg, tmp, sizeof tmp);
		return -1;
	}
#ifdef _OPENMP
	if (c->pu == BTRT_PU_CPU && c->n_cores > 0) {
		/* The dispatcher is the master of its own libgomp team (libgomp
		 * keeps one thread pool per master thread): size it to the PU and
		 * pin every worker to the same cores. Each worker gets an
		 * alternate signal stack, so that a kernel's stack overflow on
		 * it is named as the dispatcher's is (btrt_watchdog.h). */
		omp_set_dynamic(0);
		omp_set_num_threads((int)c->n_cores);
		int bad = 0, pin = p->pin;
#pragma omp parallel reduction(+ : bad)
		{
			struct btrt_error ignored;
			btrt_watch_thread_prepare();
			if (pin && btrt_pin_self(c->cores, c->n_cores, &ignored))
				bad++;
		}
		if (bad)
			return btrt_error_set(e, BTRT_E_SYS, 0, "cannot pin %d OpenMP workers", bad);
	}
#endif
	if (c->pu == BTRT_PU_CUDA && !c->body)
		return btrt_cuda_chunk_init(p->cfg->cuda, p->cfg, ch->idx, &ch->gpu_state, e);
	return 0;
}

static void *dispatcher(void *arg)
{
	struct chunk_rt *ch = arg;
	struct pipe *p = ch->p;
	struct btrt_error e;
	btrt_error_clear(&e);
	if (dispatcher_setup(ch, &e)) {
		locate(&e, p, ch->idx, -1, NULL);
		btrt_pipe_fail(p, &e);
	}
	/* release: the setup above (pinning, CUDA stream) happens before the io
	 * thread starts streaming (it acquires ready). */
	atomic_fetch_add_explicit(&p->ready, 1, memory_order_release);
	btrt_futex_wake(&p->ready, INT_MAX);
	struct btrt_chunk_rec *r = ch->rec;
	for (;;) {
		uint64_t seq;
		/* A worker of a farm claims the next task whichever worker ran
		 * the previous one (btrt_farm.h). */
		void *x = btrt_port_pop(ch->in, &p->stop, &seq);
		if (!x)
			break; /* stopped by an error */
		/* relaxed: a stop only ends the loop; tasks still queued are
		 * dropped instead of run. */
		if (atomic_load_explicit(&p->stop, memory_order_relaxed))
			break;
		if (x == BTRT_EOS_EXTRA)
			break; /* another worker of this farm forwards the end */
		if (x == BTRT_EOS) {
			if (btrt_port_push(ch->out, BTRT_EOS, seq, &p->stop) == -2)
				btrt_pipe_link_fail(p, ch->idx, seq);
			break;
		}
		struct btrt_task *t = x;
		if (t->seq != seq) {
			btrt_error_set(&e, BTRT_E_SYS, 0, "internal: task %" PRIu64
				       " arrived as item %" PRIu64, t->seq, seq);
			locate(&e, p, ch->idx, -1, t);
			btrt_pipe_fail(p, &e);
			break;
		}
		uint64_t a = btrt_now_ns(), b = a;
		int rc = chunk_exec(ch, t, &e, a, &b);
		if (r->n_tasks < r->limit &&
		    btrt_vec_reserve((void **)&r->tasks, &r->cap_tasks, r->n_tasks, sizeof *r->tasks) == 0)
			r->tasks[r->n_tasks++] = (struct btrt_rec_task){ t->seq, a, b };
		if (rc) {
			btrt_pipe_fail(p, &e);
			break;
		}
		if (p->task_ns)
			p->task_ns[(size_t)t->slot * p->cfg->n_chunks + ch->idx] = b - a;
		btrt_port_task_time(ch->in, b - a); /* a farm worker's admission */
		/* Never waits: every ring has room for the whole pool plus EOS,
		 * every farm link a slot for each task in flight. */
		int prc = btrt_port_push(ch->out, t, t->seq, &p->stop);
		if (prc == -2)
			btrt_pipe_link_fail(p, ch->idx, t->seq);
		if (prc)
			break;
	}
	if (ch->gpu_state && ch->c->pu == BTRT_PU_CUDA) {
		btrt_cuda_chunk_fini(ch->gpu_state);
		ch->gpu_state = NULL;
	}
	btrt_watch_leave();
	return NULL;
}

/* Sets bits in use[b] for the buffers of list l[0..n); -1 when one is out
 * of range. */
static int mark_buffers(const uint32_t *l, uint32_t n, uint32_t n_buffers, unsigned char *use,
			unsigned char bits)
{
	for (uint32_t i = 0; i < n; i++) {
		if (l[i] >= n_buffers)
			return -1;
		use[l[i]] |= bits;
	}
	return 0;
}

int btrt_chunks_gpu_touched(const struct btrt_stage *stages, uint32_t n_stages,
			    const struct btrt_chunk *chunks, uint32_t n_chunks,
			    const struct btrt_buffer_desc *buffers, uint32_t n_buffers,
			    unsigned char *touched)
{
	enum { GPU = 1, CPU = 2 }; /* marks while scanning the chunks */
	memset(touched, 0, n_buffers);
	for (uint32_t i = 0; i < n_chunks; i++) {
		const struct btrt_chunk *c = &chunks[i];
		if (c->first_stage > n_stages || c->n_stages > n_stages - c->first_stage)
			return -1;
		unsigned char bits = c->pu == BTRT_PU_CPU ? CPU : GPU;
		for (uint32_t s = c->first_stage; s < c->first_stage + c->n_stages; s++)
			if (mark_buffers(stages[s].reads, stages[s].n_reads, n_buffers, touched,
					 bits) ||
			    mark_buffers(stages[s].writes, stages[s].n_writes, n_buffers, touched,
					 bits))
				return -1;
	}
	/* GPU-only and not an output (the io check reads that): private */
	for (uint32_t b = 0; b < n_buffers; b++) {
		if (!(touched[b] & GPU))
			touched[b] = BTRT_GPU_UNTOUCHED;
		else if (touched[b] & CPU || btrt_stages_output(stages, n_stages, buffers, b))
			touched[b] = BTRT_GPU_SHARED;
		else
			touched[b] = BTRT_GPU_PRIVATE;
	}
	return 0;
}

static int validate(const struct btrt_pipeline_config *cfg, struct btrt_error *err)
{
	if (!cfg->stages || !cfg->n_stages || !cfg->chunks || !cfg->n_chunks)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "pipeline: no stages or no chunks");
	if (!cfg->pool || !cfg->io || !cfg->io->load)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "pipeline: pool and io->load are required");
	if (cfg->check && !cfg->io->check)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "pipeline: check requested but io->check is NULL");
	uint32_t next = 0;
	for (uint32_t i = 0; i < cfg->n_chunks; i++) {
		const struct btrt_chunk *c = &cfg->chunks[i];
		if (btrt_same_farm(cfg, i)) {
			const struct btrt_chunk *w = &cfg->chunks[i - 1];
			if (c->first_stage != w->first_stage || c->n_stages != w->n_stages)
				return btrt_error_set(err, BTRT_E_INVAL, 0,
					"pipeline: chunk %u (farm %u) covers stages %u..+%u, its farm %u..+%u",
					i, c->farm, c->first_stage, c->n_stages, w->first_stage, w->n_stages);
		} else {
			if (c->first_stage != next || c->n_stages == 0 ||
			    c->first_stage + c->n_stages > cfg->n_stages)
				return btrt_error_set(err, BTRT_E_INVAL, 0,
					"pipeline: chunk %u covers stages %u..+%u, expected to start at %u",
					i, c->first_stage, c->n_stages, next);
			next += c->n_stages;
		}
		if (c->n_cores && !c->cores)
			return btrt_error_set(err, BTRT_E_INVAL, 0, "pipeline: chunk %u has n_cores but no cores", i);
		if (c->pu == BTRT_PU_VULKAN && (!cfg->vk || btrt_pool_backend(cfg->pool) != BTRT_BACKEND_VULKAN))
			return btrt_error_set(err, BTRT_E_INVAL, 0,
				"pipeline: Vulkan chunk %u needs cfg->vk and a Vulkan pool", i);
		if (c->pu == BTRT_PU_CUDA && (!cfg->cuda || btrt_pool_backend(cfg->pool) != BTRT_BACKEND_CUDA))
			return btrt_error_set(err, BTRT_E_INVAL, 0,
				"pipeline: CUDA chunk %u needs cfg->cuda and a CUDA pool", i);
		if (c->body)
			continue;
		for (uint32_t s = c->first_stage; s < c->first_stage + c->n_stages; s++) {
			const struct btrt_stage *st = &cfg->stages[s];
			int ok = c->pu == BTRT_PU_CPU ? st->cpu != NULL
				: c->pu == BTRT_PU_CUDA ? st->cuda != NULL
				: c->pu == BTRT_PU_VULKAN ? (st->vk && st->n_vk) : 0;
			if (!ok)
				return btrt_error_set(err, BTRT_E_INVAL, 0,
					"pipeline: stage %u '%s' has no kernel for chunk %u's PU kind %d",
					s, st->name ? st->name : "", i, (int)c->pu);
		}
	}
	if (next != cfg->n_stages)
		return btrt_error_set(err, BTRT_E_INVAL, 0,
			"pipeline: chunks cover %u of %u stages", next, cfg->n_stages);
	return 0;
}

int btrt_pipeline_run(const struct btrt_pipeline_config *cfg, struct btrt_run **run_out,
		      struct btrt_error *err)
{
	btrt_error_clear(err);
	if (run_out)
		*run_out = NULL;
	if (validate(cfg, err))
		return -1;
	/* Whatever the checks of this run will need (reference outputs) is
	 * computed now, before anything is timed. */
	if (cfg->check && cfg->io->prepare) {
		char msg[256] = "";
		if (cfg->io->prepare(cfg->io_state, cfg->n_items, msg, sizeof msg) != 0)
			return btrt_error_set(err, BTRT_E_IO, -1, "preparing the output check: %s", msg);
	}
	/* relaxed: a signal handler's flag (see btrt_io.c). */
	if (cfg->interrupt && atomic_load_explicit(cfg->interrupt, memory_order_relaxed))
		return btrt_error_set(err, BTRT_E_INTR, atomic_load_explicit(cfg->interrupt, memory_order_relaxed),
				      "interrupted before the run started");
	struct pipe p;
	memset(&p, 0, sizeof p);
	p.cfg = cfg;
	atomic_init(&p.stop, 0);
	atomic_init(&p.ready, 0);
	pthread_mutex_init(&p.mu, NULL);
	p.pin = !cfg->no_pin;
	uint32_t nc = cfg->n_chunks;
	p.ch = calloc(nc, sizeof *p.ch);
	p.run = btrt_run_alloc(cfg);
	if (cfg->on_task_done) {
		p.task_ns = calloc((size_t)btrt_pool_size(cfg->pool) * nc, sizeof *p.task_ns);
		p.load_ns = calloc(btrt_pool_size(cfg->pool), sizeof *p.load_ns);
	}
	int rc = -1;
	if (!p.ch || !p.run || (cfg->on_task_done && (!p.task_ns || !p.load_ns))) {
		btrt_error_set(err, BTRT_E_NOMEM, 0, "pipeline: out of memory");
		goto out;
	}
	if (btrt_links_create(&p.links, cfg, err) || btrt_io_init(&p, err))
		goto out;
	for (uint32_t i = 0; i < nc; i++) {
		struct chunk_rt *ch = &p.ch[i];
		ch->p = &p;
		ch->idx = i;
		ch->c = &cfg->chunks[i];
		ch->in = &p.links.in[i];
		ch->out = &p.links.out[i];
		ch->rec = &p.run->chunks[i];
		ch->gtimes = calloc(ch->c->n_stages, sizeof *ch->gtimes);
		if (!ch->gtimes) {
			btrt_error_set(err, BTRT_E_NOMEM, 0, "pipeline: out of memory");
			goto out;
		}
		/* Vulkan command buffers are recorded here, before streaming. */
		if (ch->c->pu == BTRT_PU_VULKAN && !ch->c->body &&
		    btrt_vk_chunk_init(cfg->vk, cfg, i, &ch->gpu_state, err)) {
			locate(err, &p, i, err->stage, NULL);
			goto out;
		}
	}
	/* The caller's thread is the io sink: pin it to the sink's service
	 * cores (restored at the end). */
	cpu_set_t old_set;
	int restore = 0;
	const int *sink_cores;
	uint32_t n_sink_cores;
	btrt_io_thread_cores(cfg, BTRT_THREAD_SINK(cfg), &sink_cores, &n_sink_cores);
	if (p.pin && n_sink_cores) {
		if (sched_getaffinity(0, sizeof old_set, &old_set) == 0)
			restore = 1;
		if (btrt_pin_self(sink_cores, n_sink_cores, err))
			goto out;
	}
	for (uint32_t i = 0; i < nc; i++) {
		int e = pthread_create(&p.ch[i].th, NULL, dispatcher, &p.ch[i]);
		if (e) {
			struct btrt_error pe;
			btrt_error_clear(&pe);
			btrt_error_set(&pe, BTRT_E_SYS, e, "pthread_create for chunk %u: %s", i, strerror(e));
			btrt_pipe_fail(&p, &pe);
			break;
		}
		p.ch[i].started = 1;
	}
	btrt_pipe_set_backoff(cfg, BTRT_THREAD_SINK(cfg));
	/* Wait until every dispatcher is set up (or one failed): block on
	 * ready, which every dispatcher increments and wakes (a failing one
	 * sets stop first). */
	for (;;) {
		/* acquire: pairs with the dispatchers' release increments. */
		unsigned r = atomic_load_explicit(&p.ready, memory_order_acquire);
		/* relaxed: the stop flag only ends the wait. */
		if (r >= nc || atomic_load_explicit(&p.stop, memory_order_relaxed))
			break;
		btrt_futex_wait(&p.ready, r); /* sleeps only while ready == r */
	}
	/* Stream: the source thread loads ahead while this thread, the sink,
	 * checks behind. */
	p.run->t0 = btrt_now_ns();
	if (!atomic_load_explicit(&p.stop, memory_order_relaxed) && btrt_io_start_source(&p) == 0)
		btrt_io_sink(&p);
	if (p.source_started)
		pthread_join(p.source_th, NULL);
	for (uint32_t i = 0; i < nc; i++)
		if (p.ch[i].started)
			pthread_join(p.ch[i].th, NULL);
	if (restore)
		sched_setaffinity(0, sizeof old_set, &old_set);
	/* Every thread is joined: its ports' counts are final, and the
	 * source's io records can take the sink's check times. */
	for (uint32_t t = 0; t < nc; t++)
		btrt_port_wait_stats(&p.links.in[t], &p.links.out[t], &p.run->waits[t]);
	btrt_backoff_set(BTRT_BACKOFF_SPIN_NS, 0);
	if (p.failed) {
		*err = p.err;
	} else {
		rc = 0;
	}
out:
	if (p.ch)
		for (uint32_t i = 0; i < nc; i++) {
			if (p.ch[i].gpu_state && p.ch[i].c->pu == BTRT_PU_VULKAN)
				btrt_vk_chunk_fini(p.ch[i].gpu_state);
			free(p.ch[i].gtimes);
		}
	btrt_io_finish(&p);
	btrt_links_destroy(&p.links);
	free(p.ch);
	free(p.task_ns);
	free(p.load_ns);
	pthread_mutex_destroy(&p.mu);
	if (run_out)
		*run_out = p.run;
	else
		btrt_run_free(p.run);
	return rc;
}
