/* btrt_io_parallel (btrt.h): an app io's one-off work before a run (the
 * input's open, the check's references) shared among the process's
 * cores. */
#include "btrt.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#define MAX_THREADS 64

struct share {
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	size_t n;
	atomic_size_t next;
};

static void *worker(void *arg)
{
	struct share *sh = arg;
	for (size_t i; (i = atomic_fetch_add(&sh->next, 1)) < sh->n;)
		sh->fn(sh->ctx, i);
	return NULL;
}

size_t btrt_io_parallel(size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
	if (n == 0)
		return 0;
	struct share sh = {.fn = fn, .ctx = ctx, .n = n};
	atomic_init(&sh.next, 0);
	cpu_set_t cpus;
	size_t n_th = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? (size_t)CPU_COUNT(&cpus) : 1;
	if (n_th > n)
		n_th = n;
	if (n_th > MAX_THREADS)
		n_th = MAX_THREADS;
	pthread_t th[MAX_THREADS];
	size_t started = 0;
	while (started + 1 < n_th && pthread_create(&th[started], NULL, worker, &sh) == 0)
		started++;
	worker(&sh); /* the caller takes items too, and the rest */
	for (size_t t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	return started + 1;
}
