/* suite_io.c: the io source and sink threads (btrt_pipe.h): every task is
 * loaded on the source thread and checked on the sink (the caller's
 * thread), in input order, on their service cores; load and check of
 * different tasks overlap (read from the run's records, not from a
 * timing ratio). */
#include "suites.h"
#include "toy.h"

#include <btrt_pipeline.h>
#include <btrt_trace.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct btrt_chunk three[] = {
	{ "big", BTRT_PU_CPU, NULL, 0, 0, 2, NULL, NULL, 0 },
	{ "mid", BTRT_PU_CPU, NULL, 0, 2, 2, NULL, NULL, 0 },
	{ "little", BTRT_PU_CPU, NULL, 0, 4, 1, NULL, NULL, 0 },
};
/* A farm of two workers between two chunks. */
static const struct btrt_chunk farmed[] = {
	{ "head", BTRT_PU_CPU, NULL, 0, 0, 2, NULL, NULL, 0 },
	{ "w0", BTRT_PU_CPU, NULL, 0, 2, 2, NULL, NULL, 1 },
	{ "w1", BTRT_PU_CPU, NULL, 0, 2, 2, NULL, NULL, 1 },
	{ "tail", BTRT_PU_CPU, NULL, 0, 4, 1, NULL, NULL, 0 },
};
static const struct btrt_chunk one[] = {
	{ "all", BTRT_PU_CPU, NULL, 0, 0, 5, NULL, NULL, 0 },
};

static int pinning(void)
{
	const char *np = getenv("BTRT_NO_PIN");
	return !(np && *np && strcmp(np, "0") != 0);
}

/* Runs `items` items through chunks with io_cores[0..n_io-1]; asserts
 * that every item was loaded on one thread and checked on another (the
 * caller's), each on its service core, in input order, and that the
 * records show each item's check after its load and the checks one after
 * another. */
static void expect_in_order(const struct btrt_chunk *chunks, uint32_t n_chunks,
			    const int *io_cores, uint32_t n_io, int load_cpu, int check_cpu)
{
	struct toy_params p;
	toy_default_params(&p);
	const uint64_t items = 300;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	if (pinning()) {
		io.load_cpu1 = load_cpu + 1;
		io.check_cpu1 = check_cpu + 1;
	}
	struct btrt_run *run = NULL;
	struct btrt_error err;
	toy_io_cores = io_cores;
	toy_n_io_cores = n_io;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, chunks, n_chunks, 4, items, BTRT_BACKEND_HOST, NULL,
			 NULL, &io, NULL, &err);
	toy_keep_run = NULL;
	toy_io_cores = NULL;
	toy_n_io_cores = 0;
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.loaded, items);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.next_seq, items);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	/* one source thread, one sink thread: the caller's */
	CU_ASSERT_EQUAL(io.load_tids, 0);
	CU_ASSERT_EQUAL(io.check_tids, 0);
	CU_ASSERT_NOT_EQUAL(io.load_tid, io.check_tid);
	CU_ASSERT_EQUAL(io.check_tid, (long)syscall(SYS_gettid));
	CU_ASSERT_EQUAL(io.load_cpu_errors, 0);
	CU_ASSERT_EQUAL(io.check_cpu_errors, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	CU_ASSERT_EQUAL(btrt_run_items(run), items);
	uint64_t prev_end = 0, ls, le, cs, ce;
	for (uint64_t i = 0; i < items; i++) {
		CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(run, i, &ls, &le, &cs, &ce), 0);
		CU_ASSERT(ls > 0 && ls <= le && le <= cs && cs <= ce);
		CU_ASSERT(cs >= prev_end); /* checked after the previous one */
		prev_end = ce;
	}
	CU_ASSERT_EQUAL(btrt_run_io_times(run, items, &ls, &le, &cs, &ce), -1);
	btrt_run_free(run);
}

static void test_two_service_cores(void)
{
	int cores[2];
	test_two_cores(cores);
	expect_in_order(three, 3, cores, 2, cores[0], cores[1]);
}

static void test_one_service_core(void)
{
	int cores[2];
	test_two_cores(cores);
	expect_in_order(three, 3, &cores[1], 1, cores[1], cores[1]);
}

static void test_farm(void)
{
	int cores[2];
	test_two_cores(cores);
	expect_in_order(farmed, 4, cores, 2, cores[0], cores[1]);
}

static void test_unpinned(void)
{
	expect_in_order(one, 1, NULL, 0, -1, -1);
}

/* Load takes L, check C (sleeps: io waiting on a device), the chunk next
 * to nothing: the records must show a task's check overlapping a later
 * task's load (one io thread would run them one after the other). */
static void test_overlap(void)
{
	struct toy_params p;
	toy_default_params(&p);
	p.n = 16;
	p.load_sleep_us = 2000;
	p.check_sleep_us = 3000;
	const uint64_t items = 24;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_run *run = NULL;
	struct btrt_error err;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, one, 1, 4, items, BTRT_BACKEND_HOST, NULL, NULL, &io,
			 NULL, &err);
	toy_keep_run = NULL;
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	uint64_t overlapping = 0; /* items whose check overlaps a later load */
	for (uint64_t i = 0; i < items; i++) {
		uint64_t ls, le, cs, ce;
		CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(run, i, &ls, &le, &cs, &ce), 0);
		for (uint64_t j = i + 1; j < items; j++) {
			uint64_t ls2, le2, cs2, ce2;
			CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(run, j, &ls2, &le2, &cs2, &ce2), 0);
			if (ls2 < ce && cs < le2) {
				overlapping++;
				break;
			}
		}
	}
	fprintf(stderr, "  (%llu of %llu checks overlap a later load) ",
		(unsigned long long)overlapping, (unsigned long long)items);
	CU_ASSERT(overlapping > 0);
	btrt_run_free(run);
}

int suite_io_register(void)
{
	CU_pSuite s = CU_add_suite("io", NULL, NULL);
	if (!s || !CU_add_test(s, "in order, source and sink on two service cores", test_two_service_cores) ||
	    !CU_add_test(s, "in order, source and sink sharing one service core", test_one_service_core) ||
	    !CU_add_test(s, "in order through a farm", test_farm) ||
	    !CU_add_test(s, "in order, unpinned", test_unpinned) ||
	    !CU_add_test(s, "a check overlaps a later load", test_overlap))
		return -1;
	return 0;
}
