/* runner_contract.c: one suite per outcome of the shared CUnit runner
 * (test/common/cunit_main.h), for runner-contract.sh to check its exit
 * status: each suite below but "pass" must make the runner exit non-zero
 * (or 77 for a skip). */
#include <CUnit/CUnit.h>

#include "cunit_main.h"

static void passes(void) { CU_ASSERT_EQUAL(1 + 1, 2); }
static void fails(void) { CU_ASSERT_EQUAL(1 + 1, 3); }
static int init_fails(void) { return -1; }
static int cleanup_fails(void) { return -1; }
static int data_init(void) { return btc_test_need_data("runner-contract/no-such-file.bin"); }

static int add(const char *name, CU_InitializeFunc init, CU_CleanupFunc clean,
	       CU_TestFunc test)
{
	CU_pSuite s = CU_add_suite(name, init, clean);
	return s && (!test || CU_add_test(s, test == fails ? "fails" : "passes", test)) ? 0 : -1;
}

static int reg_pass(void) { return add("pass", NULL, NULL, passes); }
static int reg_assert(void) { return add("assert", NULL, NULL, fails); }
static int reg_init(void) { return add("init", init_fails, NULL, passes); }
static int reg_cleanup(void) { return add("cleanup", NULL, cleanup_fails, passes); }
static int reg_data(void) { return add("data", data_init, NULL, passes); }
static int reg_empty(void) { return add("empty", NULL, NULL, NULL); }
static int reg_register(void) { return -1; }
static int reg_unnamed(void) { return add("not-its-name", NULL, NULL, passes); }
static int reg_vulkan(void)
{
	return btc_test_skip(BTC_TEST_HW_VULKAN, "contract vulkan", "no Vulkan device (on purpose)");
}
static int reg_cuda(void)
{
	return btc_test_skip(BTC_TEST_HW_CUDA, "contract cuda", "no CUDA device (on purpose)");
}

static const struct btc_test_suite suites[] = {
	{ "pass", reg_pass },         /* 0 */
	{ "assert", reg_assert },     /* 1: an assertion failed */
	{ "init", reg_init },         /* 1: suite init failed */
	{ "cleanup", reg_cleanup },   /* 1: suite cleanup failed */
	{ "data", reg_data },         /* 1: test data missing (an init failure) */
	{ "empty", reg_empty },       /* 1: no test ran */
	{ "register", reg_register }, /* 1: registration failed */
	{ "unnamed", reg_unnamed },   /* 1: no suite under the table's name */
	{ "vulkan", reg_vulkan },     /* 77; 1 with BTC_REQUIRE_VULKAN=1 */
	{ "cuda", reg_cuda },         /* 77; 1 with BTC_REQUIRE_CUDA=1 */
};

const struct btc_test_program btc_test_program = {
	.name = "runner_contract",
	.suites = suites,
	.n_suites = sizeof suites / sizeof suites[0],
};
