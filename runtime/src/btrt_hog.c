/* CPU hogs and the task-number plan of btrt_hog.h; the CUDA hog is in
 * btrt_hog_cuda.cu (btrt_hog_cuda_none.c without CUDA). */
#include "btrt_hog.h"
#include "btrt_hog_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct cpu_spinner {
	struct btrt_hog *h;
	int core;
	pthread_t th;
};

struct btrt_hog {
	atomic_int stop;
	uint32_t n;
	struct cpu_spinner *sp;    /* [n] CPU hog */
	void *cuda;                /* CUDA hog state (btrt_hog_cuda.cu) */
};

static void *spin(void *arg)
{
	struct cpu_spinner *s = arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(s->core, &set);
	sched_setaffinity(0, sizeof set, &set); /* best effort: checked at start */
	volatile uint64_t x = 1;
	/* relaxed: the flag only ends the loop. */
	while (!atomic_load_explicit(&s->h->stop, memory_order_relaxed))
		for (int i = 0; i < 4096; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	return NULL;
}

int btrt_hog_cpu_start(struct btrt_hog **out, const int *cores, uint32_t n,
		       struct btrt_error *err)
{
	*out = NULL;
	if (!n || !cores)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "hog: no cores");
	for (uint32_t i = 0; i < n; i++)
		if (cores[i] < 0 || cores[i] >= CPU_SETSIZE)
			return btrt_error_set(err, BTRT_E_INVAL, cores[i], "hog: core %d out of range",
					      cores[i]);
	struct btrt_hog *h = calloc(1, sizeof *h);
	if (!h || !(h->sp = calloc(n, sizeof *h->sp))) {
		free(h);
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "hog: out of memory");
	}
	atomic_init(&h->stop, 0);
	for (uint32_t i = 0; i < n; i++) {
		h->sp[i].h = h;
		h->sp[i].core = cores[i];
		int e = pthread_create(&h->sp[i].th, NULL, spin, &h->sp[i]);
		if (e) {
			btrt_hog_stop(h);
			return btrt_error_set(err, BTRT_E_SYS, e, "hog: pthread_create: %s", strerror(e));
		}
		h->n = i + 1;
	}
	*out = h;
	return 0;
}

int btrt_hog_cuda_start(struct btrt_hog **out, int device, double kernel_ms,
			struct btrt_error *err)
{
	*out = NULL;
	struct btrt_hog *h = calloc(1, sizeof *h);
	if (!h)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "hog: out of memory");
	atomic_init(&h->stop, 0);
	if (btrt_hog_cuda_begin(&h->cuda, device, kernel_ms > 0 ? kernel_ms : 1.0, err)) {
		free(h);
		return -1;
	}
	*out = h;
	return 0;
}

void btrt_hog_stop(struct btrt_hog *h)
{
	if (!h)
		return;
	atomic_store_explicit(&h->stop, 1, memory_order_relaxed);
	for (uint32_t i = 0; i < h->n; i++)
		pthread_join(h->sp[i].th, NULL);
	if (h->cuda)
		btrt_hog_cuda_end(h->cuda);
	free(h->sp);
	free(h);
}

static void plan_start(struct btrt_hog_plan *p, uint64_t seq)
{
	if (p->n_cpu_cores && !p->cpu_hog &&
	    btrt_hog_cpu_start(&p->cpu_hog, p->cpu_cores, p->n_cpu_cores, &p->err))
		p->failed = 1;
	if (p->cuda && !p->cuda_hog &&
	    btrt_hog_cuda_start(&p->cuda_hog, p->cuda_device, p->cuda_kernel_ms, &p->err))
		p->failed = 1;
	if (p->log) {
		fprintf(p->log, "hog: started after task %llu:", (unsigned long long)seq);
		for (uint32_t i = 0; p->cpu_hog && i < p->n_cpu_cores; i++)
			fprintf(p->log, "%s%d", i ? "," : " busy threads on cores ", p->cpu_cores[i]);
		if (p->cuda_hog)
			fprintf(p->log, " spin kernels of %.2f ms on the CUDA GPU",
				p->cuda_kernel_ms > 0 ? p->cuda_kernel_ms : 1.0);
		if (p->failed)
			fprintf(p->log, " (failed: %s)", p->err.msg);
		fprintf(p->log, "\n");
	}
}

void btrt_hog_plan_finish(struct btrt_hog_plan *p)
{
	btrt_hog_stop(p->cpu_hog);
	btrt_hog_stop(p->cuda_hog);
	p->cpu_hog = p->cuda_hog = NULL;
}

int btrt_hog_plan_on_task_done(void *ctx, const struct btrt_task_done *d)
{
	struct btrt_hog_plan *p = ctx;
	if (d->seq < p->first)
		return 0; /* before the count (the extra warm-up tasks) */
	uint64_t checked = d->seq - p->first + 1;
	if (!p->started && checked >= p->from && (!p->to || checked < p->to)) {
		p->started = 1;
		plan_start(p, d->seq);
	}
	if (p->started && !p->stopped && p->to && checked >= p->to) {
		p->stopped = 1;
		btrt_hog_plan_finish(p);
		if (p->log)
			fprintf(p->log, "hog: stopped after task %llu\n", (unsigned long long)d->seq);
	}
	return 0;
}
