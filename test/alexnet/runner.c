/* CUnit runner of the AlexNet tests: `alexnet_tests [-r SUITE]`, SUITE one
   of readers, prune, cpu, vulkan (default: all). Exits 77 (meson: SKIP) when
   only suites that need absent hardware were asked for. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "btc_config.h"
#include "suites.h"

struct suite {
	const char *name;
	int (*reg)(void);
};

static const struct suite suites[] = {
	{"readers", alexnet_register_readers},
	{"prune", alexnet_register_prune},
	{"cpu", alexnet_register_cpu},
	{"vulkan", alexnet_register_vulkan},
};

int main(int argc, char **argv)
{
	const char *only = NULL;
	int opt;
	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt == 'r') {
			only = optarg;
		} else {
			fprintf(stderr, "usage: %s [-r readers|prune|cpu|vulkan]\n", argv[0]);
			return 2;
		}
	}
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	int registered = 0, skipped = 0;
	for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
		if (only && strcmp(only, suites[i].name) != 0)
			continue;
		int rc = suites[i].reg();
		if (rc == 77) {
			fprintf(stderr, "alexnet: suite %s skipped (no device)\n", suites[i].name);
			skipped++;
		} else if (rc != 0) {
			fprintf(stderr, "alexnet: cannot register suite %s\n", suites[i].name);
			CU_cleanup_registry();
			return 1;
		} else {
			registered++;
		}
	}
	if (registered == 0) {
		CU_cleanup_registry();
		if (skipped)
			return 77;
		fprintf(stderr, "alexnet: no suite named %s\n", only ? only : "?");
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
