/* SPSC ring: capacity rules, wrap-around, full/empty, blocking and
 * waking both sides, stop waking a blocked side, and 10^7 items across two
 * pinned threads with sequence checks (plus items through a ring of two
 * where every wait blocks). */
#include "suites.h"

#include <btrt_pipeline.h>
#include <btrt_ring.h>
#include <CUnit/CUnit.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#ifndef BTRT_TEST_RING_ITEMS
#define BTRT_TEST_RING_ITEMS 10000000ull
#endif

#define P(i) ((void *)(uintptr_t)(i))

static void test_init_capacity(void)
{
	struct btrt_ring_spsc r;
	CU_ASSERT_EQUAL(btrt_ring_spsc_init(&r, 0), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(btrt_ring_spsc_init(&r, 6), -1);
	CU_ASSERT_EQUAL(btrt_ring_spsc_init(&r, 1), 0);
	CU_ASSERT_EQUAL(btrt_ring_spsc_capacity(&r), 1);
	CU_ASSERT_TRUE(btrt_ring_spsc_try_push(&r, P(5)));
	CU_ASSERT_FALSE(btrt_ring_spsc_try_push(&r, P(6)));
	CU_ASSERT_PTR_EQUAL(btrt_ring_spsc_try_pop(&r), P(5));
	CU_ASSERT_PTR_NULL(btrt_ring_spsc_try_pop(&r));
	btrt_ring_spsc_destroy(&r);
}

static void test_layout(void)
{
	struct btrt_ring_spsc r;
	uintptr_t h = (uintptr_t)&r.head, t = (uintptr_t)&r.tail, s = (uintptr_t)&r.slots;
	CU_ASSERT_TRUE(h / BTRT_CACHE_LINE != t / BTRT_CACHE_LINE);
	CU_ASSERT_TRUE(s / BTRT_CACHE_LINE != t / BTRT_CACHE_LINE);
	CU_ASSERT_TRUE(s / BTRT_CACHE_LINE != h / BTRT_CACHE_LINE);
	CU_ASSERT_EQUAL(sizeof r % BTRT_CACHE_LINE, 0);
}

static void test_wrap_around(void)
{
	struct btrt_ring_spsc r;
	CU_ASSERT_EQUAL_FATAL(btrt_ring_spsc_init(&r, 4), 0);
	uintptr_t next_in = 1, next_out = 1;
	/* Uneven fill levels so the indices cross the mask at every offset. */
	for (int round = 0; round < 1000; round++) {
		int fill = 1 + round % 4;
		for (int k = 0; k < fill; k++)
			CU_ASSERT_TRUE(btrt_ring_spsc_try_push(&r, P(next_in++)));
		if (fill == 4)
			CU_ASSERT_FALSE(btrt_ring_spsc_try_push(&r, P(999999)));
		CU_ASSERT_EQUAL(btrt_ring_spsc_size(&r), (size_t)fill);
		int drain = fill - (round % 2);
		for (int k = 0; k < drain; k++)
			CU_ASSERT_PTR_EQUAL(btrt_ring_spsc_try_pop(&r), P(next_out++));
		while (btrt_ring_spsc_size(&r) > 0)
			CU_ASSERT_PTR_EQUAL(btrt_ring_spsc_try_pop(&r), P(next_out++));
		CU_ASSERT_PTR_NULL(btrt_ring_spsc_try_pop(&r));
	}
	CU_ASSERT_EQUAL(next_in, next_out);
	CU_ASSERT_TRUE(next_in > 2000);
	btrt_ring_spsc_destroy(&r);
}

struct xfer {
	struct btrt_ring_spsc ring;
	int core;
	uint64_t n;
	uint64_t errors;
	atomic_int stop;
};

static void *producer(void *arg)
{
	struct xfer *x = arg;
	btrt_pin_self(&x->core, 1, NULL);
	for (uint64_t i = 1; i <= x->n; i++)
		if (!btrt_ring_spsc_push(&x->ring, P(i), &x->stop))
			break;
	return NULL;
}

static void test_two_threads(void)
{
	static struct xfer x; /* cache-line aligned members: keep off the stack */
	int cores[2];
	test_two_cores(cores);
	CU_ASSERT_EQUAL_FATAL(btrt_ring_spsc_init(&x.ring, 1024), 0);
	x.n = BTRT_TEST_RING_ITEMS;
	x.core = cores[0];
	x.errors = 0;
	atomic_init(&x.stop, 0);
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, producer, &x), 0);
	btrt_pin_self(&cores[1], 1, NULL);
	for (uint64_t i = 1; i <= x.n; i++) {
		void *p = btrt_ring_spsc_pop(&x.ring, NULL);
		if (p != P(i)) {
			x.errors++;
			if (x.errors < 5)
				fprintf(stderr, "ring: got %p, expected item %llu\n", p, (unsigned long long)i);
		}
	}
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(x.errors, 0);
	CU_ASSERT_PTR_NULL(btrt_ring_spsc_try_pop(&x.ring));
	btrt_ring_spsc_destroy(&x.ring);
}

static void test_stop_unblocks(void)
{
	struct btrt_ring_spsc r;
	atomic_int stop;
	atomic_init(&stop, 1);
	CU_ASSERT_EQUAL_FATAL(btrt_ring_spsc_init(&r, 2), 0);
	CU_ASSERT_PTR_NULL(btrt_ring_spsc_pop(&r, &stop));
	CU_ASSERT_TRUE(btrt_ring_spsc_push(&r, P(1), &stop));
	CU_ASSERT_TRUE(btrt_ring_spsc_push(&r, P(2), &stop));
	CU_ASSERT_FALSE(btrt_ring_spsc_push(&r, P(3), &stop));
	btrt_ring_spsc_destroy(&r);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Until the flag says a side announced its sleep, and a little longer so
 * that it is in the kernel. */
static void wait_asleep(const _Atomic uint32_t *flag)
{
	while (!atomic_load(flag))
		sleep_ms(1);
	sleep_ms(20);
}

struct blocker {
	struct btrt_ring_spsc ring;
	atomic_int stop;
	void *got;
	int pushed;
};

static void *block_pop(void *arg)
{
	struct blocker *b = arg;
	btrt_backoff_set(0, 0);
	b->got = btrt_ring_spsc_pop(&b->ring, &b->stop);
	return NULL;
}

static void *block_push(void *arg)
{
	struct blocker *b = arg;
	btrt_backoff_set(0, 0);
	b->pushed = btrt_ring_spsc_push(&b->ring, P(2), &b->stop);
	return NULL;
}

/* A consumer blocked on an empty ring is woken by the push, once. */
static void test_pop_blocks_and_wakes(void)
{
	static struct blocker b;
	CU_ASSERT_EQUAL_FATAL(btrt_ring_spsc_init(&b.ring, 4), 0);
	atomic_init(&b.stop, 0);
	b.got = NULL;
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, block_pop, &b), 0);
	wait_asleep(&b.ring.pop_sleep);
	CU_ASSERT_TRUE(btrt_ring_spsc_try_push(&b.ring, P(7)));
	pthread_join(th, NULL);
	CU_ASSERT_PTR_EQUAL(b.got, P(7));
	CU_ASSERT_EQUAL(b.ring.pop_stats.waits, 1);
	CU_ASSERT_TRUE(b.ring.pop_stats.blocks >= 1);
	CU_ASSERT_EQUAL(b.ring.push_stats.wakes, 1);
	CU_ASSERT_EQUAL(atomic_load(&b.ring.pop_sleep), 0);
	/* Nobody sleeps: pushing issues no wake-up. */
	CU_ASSERT_TRUE(btrt_ring_spsc_try_push(&b.ring, P(8)));
	CU_ASSERT_EQUAL(b.ring.push_stats.wakes, 1);
	btrt_ring_spsc_destroy(&b.ring);
}

/* A producer blocked on a full ring is woken by the pop. */
static void test_push_blocks_and_wakes(void)
{
	static struct blocker b;
	CU_ASSERT_EQUAL_FATAL(btrt_ring_spsc_init(&b.ring, 1), 0);
	atomic_init(&b.stop, 0);
	b.pushed = 0;
	CU_ASSERT_TRUE(btrt_ring_spsc_try_push(&b.ring, P(1)));
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, block_push, &b), 0);
	wait_asleep(&b.ring.push_sleep);
	CU_ASSERT_PTR_EQUAL(btrt_ring_spsc_try_pop(&b.ring), P(1));
	pthread_join(th, NULL);
	CU_ASSERT_TRUE(b.pushed);
	CU_ASSERT_PTR_EQUAL(btrt_ring_spsc_try_pop(&b.ring), P(2));
	CU_ASSERT_TRUE(b.ring.push_stats.blocks >= 1);
	CU_ASSERT_EQUAL(b.ring.pop_stats.wakes, 1);
	btrt_ring_spsc_destroy(&b.ring);
}

/* A stop request wakes a blocked consumer and a blocked producer. */
static void test_stop_wakes(void)
{
	static struct blocker b;
	CU_ASSERT_EQUAL_FATAL(btrt_ring_spsc_init(&b.ring, 1), 0);
	atomic_init(&b.stop, 0);
	b.got = P(99);
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, block_pop, &b), 0);
	wait_asleep(&b.ring.pop_sleep);
	atomic_store(&b.stop, 1);
	btrt_ring_spsc_wake(&b.ring);
	pthread_join(th, NULL);
	CU_ASSERT_PTR_NULL(b.got);

	atomic_store(&b.stop, 0);
	b.pushed = 1;
	CU_ASSERT_TRUE(btrt_ring_spsc_try_push(&b.ring, P(1)));
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, block_push, &b), 0);
	wait_asleep(&b.ring.push_sleep);
	atomic_store(&b.stop, 1);
	btrt_ring_spsc_wake(&b.ring);
	pthread_join(th, NULL);
	CU_ASSERT_FALSE(b.pushed);
	btrt_ring_spsc_destroy(&b.ring);
}

/* Items through a ring of two, both threads on one core, no spin phase:
 * nearly every wait blocks, so a lost wake-up would hang here (the
 * runner's alarm fails it) and the sequence check catches the rest. */
static void *lockstep_producer(void *arg)
{
	struct xfer *x = arg;
	btrt_pin_self(&x->core, 1, NULL);
	btrt_backoff_set(0, 0);
	for (uint64_t i = 1; i <= x->n; i++)
		if (!btrt_ring_spsc_push(&x->ring, P(i), &x->stop))
			break;
	return NULL;
}

static void test_lockstep_blocking(void)
{
	static struct xfer x;
	int cores[2];
	test_two_cores(cores);
	CU_ASSERT_EQUAL_FATAL(btrt_ring_spsc_init(&x.ring, 2), 0);
	x.n = BTRT_TEST_RING_ITEMS / 100;
	x.core = cores[0];
	x.errors = 0;
	atomic_init(&x.stop, 0);
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, lockstep_producer, &x), 0);
	btrt_pin_self(&cores[0], 1, NULL);
	btrt_backoff_set(0, 0);
	for (uint64_t i = 1; i <= x.n; i++)
		x.errors += btrt_ring_spsc_pop(&x.ring, NULL) != P(i);
	pthread_join(th, NULL);
	btrt_backoff_set(BTRT_BACKOFF_SPIN_NS, 0);
	CU_ASSERT_EQUAL(x.errors, 0);
	const struct btrt_wait_stats *pu = &x.ring.push_stats, *po = &x.ring.pop_stats;
	fprintf(stderr, " (%llu items; push: %llu waits, %llu blocks, %llu wakes; "
		"pop: %llu waits, %llu blocks, %llu wakes) ", (unsigned long long)x.n,
		(unsigned long long)pu->waits, (unsigned long long)pu->blocks,
		(unsigned long long)pu->wakes, (unsigned long long)po->waits,
		(unsigned long long)po->blocks, (unsigned long long)po->wakes);
	CU_ASSERT_TRUE(pu->blocks > 0 && po->blocks > 0);
	btrt_ring_spsc_destroy(&x.ring);
}

int suite_ring_register(void)
{
	CU_pSuite s = CU_add_suite("ring", NULL, NULL);
	if (!s)
		return -1;
	if (!CU_add_test(s, "init and capacity", test_init_capacity) ||
	    !CU_add_test(s, "cache-line layout", test_layout) ||
	    !CU_add_test(s, "wrap-around", test_wrap_around) ||
	    !CU_add_test(s, "stop unblocks waits", test_stop_unblocks) ||
	    !CU_add_test(s, "a blocked pop wakes on push", test_pop_blocks_and_wakes) ||
	    !CU_add_test(s, "a blocked push wakes on pop", test_push_blocks_and_wakes) ||
	    !CU_add_test(s, "stop wakes blocked sides", test_stop_wakes) ||
	    !CU_add_test(s, "lockstep through a ring of two, blocking", test_lockstep_blocking) ||
	    !CU_add_test(s, "items across two pinned threads", test_two_threads))
		return -1;
	return 0;
}
