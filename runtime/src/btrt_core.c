/* Errors, clock, backoff and the out-of-line parts of the SPSC ring. */
#include "btrt.h"
#include "btrt_ring.h"
#include "btrt_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define btrt_cpu_relax() _mm_pause()
#elif defined(__aarch64__)
#define btrt_cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define btrt_cpu_relax() ((void)0)
#endif

#define BTRT_ERR_STR_(name, val, str) case name: return str;
const char *btrt_strerror(enum btrt_errkind kind)
{
	switch (kind) {
	BTRT_ERRORS(BTRT_ERR_STR_)
	}
	return "unknown error";
}
#undef BTRT_ERR_STR_

void btrt_error_clear(struct btrt_error *err)
{
	if (!err)
		return;
	err->kind = BTRT_OK;
	err->code = 0;
	err->chunk = -1;
	err->stage = -1;
	err->seq = UINT64_MAX;
	err->msg[0] = '\0';
}

int btrt_error_set(struct btrt_error *err, enum btrt_errkind kind, int code,
		   const char *fmt, ...)
{
	if (!err)
		return -1;
	err->kind = kind;
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

uint64_t btrt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int btrt_vec_reserve(void **data, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 1024;
	void *p = realloc(*data, nc * sz);
	if (!p)
		return -1;
	*data = p;
	*cap = nc;
	return 0;
}

/* ---- ring ------------------------------------------------------------- */

int btrt_ring_spsc_init(struct btrt_ring_spsc *r, size_t capacity)
{
	if (capacity == 0 || (capacity & (capacity - 1)) != 0) {
		errno = EINVAL;
		return -1;
	}
	memset(r, 0, sizeof *r);
	r->slots = calloc(capacity, sizeof *r->slots);
	if (!r->slots) {
		errno = ENOMEM;
		return -1;
	}
	r->mask = capacity - 1;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	return 0;
}

void btrt_ring_spsc_destroy(struct btrt_ring_spsc *r)
{
	free(r->slots);
	r->slots = NULL;
}

static _Thread_local uint32_t thread_spin_ns = BTRT_BACKOFF_SPIN_NS;

void btrt_backoff_set_spin(uint32_t spin_ns)
{
	thread_spin_ns = spin_ns;
}

static uint32_t spin_budget(void)
{
	static atomic_long env_spin = -2; /* -2 unread, -1 unset */
	long e = atomic_load_explicit(&env_spin, memory_order_relaxed);
	if (e == -2) {
		const char *v = getenv("BTRT_SPIN_NS");
		e = v && *v ? strtol(v, NULL, 10) : -1;
		atomic_store_explicit(&env_spin, e, memory_order_relaxed);
	}
	return e >= 0 ? (uint32_t)e : thread_spin_ns;
}

int btrt_backoff_wait(struct btrt_backoff *b)
{
	/* The first rounds spin without reading the clock. */
	if (b->n++ < 64) {
		btrt_cpu_relax();
		return 0;
	}
	uint64_t now = btrt_now_ns();
	if (b->t0 == 0)
		b->t0 = now;
	uint64_t waited = now - b->t0;
	if (waited < spin_budget()) {
		for (int i = 0; i < 16; i++)
			btrt_cpu_relax();
		return 0;
	}
	if (waited < BTRT_BACKOFF_YIELD_NS) {
		sched_yield();
		return 1;
	}
	if (b->sleep_ns == 0) {
		b->sleep_ns = 1000;
#ifdef __linux__
		/* Linux pads every sleep by the thread's timer slack (50 us by
		 * default), which would dominate short waits: ask for 1 us, once
		 * per thread. */
		static _Thread_local int slack_set;
		if (!slack_set) {
			prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
			slack_set = 1;
		}
#endif
	}
	struct timespec ts = { 0, (long)b->sleep_ns };
	nanosleep(&ts, NULL);
	b->sleep_ns *= 2;
	if (b->sleep_ns > BTRT_BACKOFF_MAX_SLEEP_NS)
		b->sleep_ns = BTRT_BACKOFF_MAX_SLEEP_NS;
	return 1;
}

bool btrt_ring_spsc_push(struct btrt_ring_spsc *r, void *p, const atomic_int *stop)
{
	struct btrt_backoff b;
	btrt_backoff_reset(&b);
	if (btrt_ring_spsc_try_push(r, p))
		return true;
	r->push_stats.waits++;
	while (!btrt_ring_spsc_try_push(r, p)) {
		/* relaxed: stop is a hint to give up; the error itself is
		 * published under the pipeline's mutex. */
		if (stop && atomic_load_explicit(stop, memory_order_relaxed))
			return false;
		r->push_stats.polls += (uint64_t)btrt_backoff_wait(&b);
	}
	return true;
}

void *btrt_ring_spsc_pop(struct btrt_ring_spsc *r, const atomic_int *stop)
{
	struct btrt_backoff b;
	btrt_backoff_reset(&b);
	void *p = btrt_ring_spsc_try_pop(r);
	if (p)
		return p;
	r->pop_stats.waits++;
	while (!(p = btrt_ring_spsc_try_pop(r))) {
		/* relaxed: see btrt_ring_spsc_push. */
		if (stop && atomic_load_explicit(stop, memory_order_relaxed))
			return NULL;
		r->pop_stats.polls += (uint64_t)btrt_backoff_wait(&b);
	}
	return p;
}

int btrt_omp_env_init(char **argv)
{
	if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") || getenv("KMP_BLOCKTIME") ||
	    getenv("BTRT_OMP_ENV_DONE") || !argv || !argv[0])
		return 0;
	setenv("OMP_WAIT_POLICY", "passive", 1);
	setenv("BTRT_OMP_ENV_DONE", "1", 1);
	execv("/proc/self/exe", argv);
	return -1; /* exec failed: go on with the OpenMP runtime's default */
}
