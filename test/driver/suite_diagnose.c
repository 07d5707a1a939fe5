/* driver/diagnose: which stages and PUs tell failing schedules from
 * passing ones, on synthetic pass/fail sets (no build, no run). */
#include <stdlib.h>
#include <string.h>

#include "report/diagnose.h"
#include "suites.h"

/* gray -> blur -> sobel -> hist on PUs big, little, vulkan. */
static struct btc_stage stages[4] = {{.name = "gray"}, {.name = "blur"},
				     {.name = "sobel"}, {.name = "hist"}};
static struct btc_app app = {.name = "edges", .stages = stages, .n_stages = 4};
static struct btc_device dev = {.name = "box", .n_pus = 3,
				.pus = {{.name = "big"}, {.name = "little"}, {.name = "vulkan"}}};

/* A schedule from up to three chunks {pu, first, last}. */
static struct btc_plan_schedule sched(int n, const int (*c)[3])
{
	struct btc_plan_schedule s = {0};
	s.s.n_chunks = n;
	for (int i = 0; i < n; i++)
		s.s.chunks[i] = (struct btc_sched_chunk){.pu = c[i][0], .first_stage = c[i][1], .last_stage = c[i][2]};
	return s;
}

static void test_one_stage(void)
{
	/* hist's Vulkan shader is wrong: every schedule that runs hist on
	 * vulkan fails, whatever the rest does. */
	struct btc_plan_schedule s[4] = {
		sched(2, (const int[][3]){{0, 0, 2}, {2, 3, 3}}),        /* fails */
		sched(2, (const int[][3]){{2, 0, 1}, {0, 2, 3}}),        /* passes */
		sched(1, (const int[][3]){{2, 0, 3}}),                   /* fails */
		sched(1, (const int[][3]){{1, 0, 3}}),                   /* passes */
	};
	bool failed[4] = {true, false, true, false};
	char *t = btc_diagnose_failures(&app, &dev, s, failed, 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(t, "every failing schedule (0, 2) runs stage 'hist' on vulkan; "
				  "every passing one (1, 3) runs it on big or little");
	free(t);
}

static void test_groups(void)
{
	/* Only the all-Vulkan baseline fails: every stage separates, in one group. */
	struct btc_plan_schedule s[2] = {
		sched(1, (const int[][3]){{2, 0, 3}}),
		sched(1, (const int[][3]){{0, 0, 3}}),
	};
	bool failed[2] = {true, false};
	char *t = btc_diagnose_failures(&app, &dev, s, failed, 2);
	CU_ASSERT_STRING_EQUAL(t, "every failing schedule (0) runs stages 'gray', 'blur', 'sobel', "
				  "'hist' on vulkan; every passing one (1) runs them on big");
	free(t);
}

static void test_no_separation(void)
{
	/* blur on vulkan fails in one schedule and passes in another: no stage
	 * separates, but sobel on little is used only by a failing one. */
	struct btc_plan_schedule s[3] = {
		sched(2, (const int[][3]){{2, 0, 1}, {1, 2, 3}}),        /* fails */
		sched(2, (const int[][3]){{2, 0, 1}, {0, 2, 3}}),        /* passes */
		sched(2, (const int[][3]){{1, 0, 1}, {0, 2, 3}}),        /* fails */
	};
	bool failed[3] = {true, false, true};
	char *t = btc_diagnose_failures(&app, &dev, s, failed, 3);
	CU_ASSERT_STRING_EQUAL(t, "stage 'gray' on little runs only in failing schedules (1 of 2); "
				  "stage 'blur' on little runs only in failing schedules (1 of 2); "
				  "stage 'sobel' on little runs only in failing schedules (1 of 2); "
				  "stage 'hist' on little runs only in failing schedules (1 of 2)");
	free(t);
}

static void test_edges(void)
{
	struct btc_plan_schedule s[2] = {
		sched(1, (const int[][3]){{2, 0, 3}}),
		sched(1, (const int[][3]){{0, 0, 3}}),
	};
	bool none[2] = {false, false}, all[2] = {true, true};
	CU_ASSERT_PTR_NULL(btc_diagnose_failures(&app, &dev, s, none, 2));
	char *t = btc_diagnose_failures(&app, &dev, s, all, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "every schedule failed its check (2 of 2)"));
	free(t);
	/* Same placement failing and passing: a race, not a PU. */
	struct btc_plan_schedule same[2] = {s[0], s[0]};
	bool one[2] = {true, false};
	t = btc_diagnose_failures(&app, &dev, same, one, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "no stage's PU tells the 1 failing schedule from the 1 passing one"));
	free(t);
}

int register_diagnose_suite(void)
{
	CU_pSuite s = CU_add_suite("diagnose", NULL, NULL);
	return !s || !CU_add_test(s, "one stage separates", test_one_stage) ||
	       !CU_add_test(s, "stages grouped", test_groups) ||
	       !CU_add_test(s, "no stage separates", test_no_separation) ||
	       !CU_add_test(s, "nothing or everything failed", test_edges);
}
