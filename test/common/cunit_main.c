/* cunit_main.c: main() of every CUnit test executable; the contract
 * (options, register functions, exit status) is in cunit_main.h. */
#include "cunit_main.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

/* What a run found, counted from CUnit's failure records and summary. */
struct verdict {
	unsigned init_failed, cleanup_failed, inactive, asserts_failed;
	unsigned tests_failed, suites_failed, tests_run;
	CU_ErrorCode error;
};

static void usage(FILE *f, const char *argv0)
{
	const struct btc_test_program *p = &btc_test_program;
	fprintf(f, "usage: %s [-r SUITE [-t TEST]] [-l]\nsuites:", argv0);
	for (size_t i = 0; i < p->n_suites; i++)
		fprintf(f, " %s", p->suites[i].name);
	fputc('\n', f);
}

static void count(struct verdict *v)
{
	memset(v, 0, sizeof *v);
	for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext) {
		switch (f->type) {
		case CUF_SuiteInitFailed: v->init_failed++; break;
		case CUF_SuiteCleanupFailed: v->cleanup_failed++; break;
		case CUF_SuiteInactive:
		case CUF_TestInactive: v->inactive++; break;
		case CUF_AssertFailed: v->asserts_failed++; break;
		}
	}
	v->tests_failed = CU_get_number_of_tests_failed();
	v->suites_failed = CU_get_number_of_suites_failed();
	v->tests_run = CU_get_number_of_tests_run();
	v->error = CU_get_error();
}

static int failed(const struct verdict *v)
{
	return v->init_failed || v->cleanup_failed || v->inactive || v->asserts_failed ||
	       v->tests_failed || v->suites_failed || v->tests_run == 0 ||
	       v->error != CUE_SUCCESS;
}

/* Registers the selected suites; returns 0, or 1 (message printed).
 * *registered and *skipped count them. */
static int register_suites(const char *only, int *registered, int *skipped)
{
	const struct btc_test_program *p = &btc_test_program;
	for (size_t i = 0; i < p->n_suites; i++) {
		const struct btc_test_suite *s = &p->suites[i];
		if (only && strcmp(only, s->name) != 0)
			continue;
		int rc = s->reg();
		if (rc == BTC_TEST_SKIP) {
			(*skipped)++;
			continue;
		}
		if (rc != 0) {
			fprintf(stderr, "%s: FAIL: cannot register suite %s (%d)\n", p->name,
				s->name, rc);
			return 1;
		}
		if (!CU_get_suite(s->name)) {
			fprintf(stderr, "%s: FAIL: suite %s registered nothing under its name\n",
				p->name, s->name);
			return 1;
		}
		(*registered)++;
	}
	return 0;
}

/* Registers and runs the selected suites; returns the exit status. */
static int run(const char *only, const char *test)
{
	const struct btc_test_program *p = &btc_test_program;
	int registered = 0, skipped = 0;
	if (register_suites(only, &registered, &skipped))
		return 1;
	if (registered == 0) {
		fprintf(stderr, "%s: SKIP: every selected suite lacks its hardware\n", p->name);
		return BTC_TEST_SKIP;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (test) {
		CU_pSuite s = CU_get_suite(only);
		CU_pTest t = s ? CU_get_test(s, test) : NULL;
		if (!t) {
			fprintf(stderr, "%s: no test '%s' in suite '%s'\n", p->name, test, only);
			return 2;
		}
		CU_basic_run_test(s, t);
	} else {
		CU_basic_run_tests();
	}
	struct verdict v;
	count(&v);
	if (failed(&v)) {
		fprintf(stderr, "%s: FAIL: %u suite init and %u cleanup failures, %u failed "
			"suites, %u of %u tests failed, %u failed assertions, %u inactive, "
			"CUnit error %d\n", p->name, v.init_failed, v.cleanup_failed,
			v.suites_failed, v.tests_failed, v.tests_run, v.asserts_failed,
			v.inactive, (int)v.error);
		return 1;
	}
	if (skipped) {
		fprintf(stderr, "%s: SKIP: %u tests passed, %d suites skipped for lack of "
			"hardware\n", p->name, v.tests_run, skipped);
		return BTC_TEST_SKIP;
	}
	fprintf(stderr, "%s: PASS: %u tests\n", p->name, v.tests_run);
	return 0;
}

int main(int argc, char **argv)
{
	const struct btc_test_program *p = &btc_test_program;
	const char *only = NULL, *test = NULL;
	int opt;
	if (p->start)
		p->start(argv);
	while ((opt = getopt(argc, argv, "r:t:lh")) != -1) {
		switch (opt) {
		case 'r': only = optarg; break;
		case 't': test = optarg; break;
		case 'l':
			for (size_t i = 0; i < p->n_suites; i++)
				puts(p->suites[i].name);
			return 0;
		case 'h': usage(stdout, argv[0]); return 0;
		default: usage(stderr, argv[0]); return 2;
		}
	}
	if (optind < argc || (test && !only)) {
		usage(stderr, argv[0]);
		return 2;
	}
	if (only) {
		size_t i = 0;
		while (i < p->n_suites && strcmp(only, p->suites[i].name) != 0)
			i++;
		if (i == p->n_suites) {
			fprintf(stderr, "%s: no suite '%s'\n", p->name, only);
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (btc_test_check_vk_validation(p->name))
		return 1;
	if (p->timeout_s)
		alarm(p->timeout_s);
	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "%s: FAIL: CU_initialize_registry: %s\n", p->name,
			CU_get_error_msg());
		return 1;
	}
	int status = run(only, test);
	CU_cleanup_registry();
	return status;
}
