/* The suites of driver-tests, in `-l` order; main() is the shared runner
 * (test/common/cunit_main.h). */
#include "cunit_main.h"
#include "suites.h"

static const struct btc_test_suite suites[] = {
	{ "sha256", register_sha256_suite },
	{ "files", register_files_suite },
	{ "result", register_result_suite },
	{ "signals", register_signals_suite },
	{ "diagnose", register_diagnose_suite },
	{ "stats", register_stats_suite },
	{ "calib", register_calib_suite },
	{ "fsafe", register_fsafe_suite },
	{ "colocate", register_colocate_suite },
	{ "workload-calib", register_workload_calib_suite },
	{ "workload-capacity", register_workload_capacity_suite },
	{ "tune-sim", register_tune_sim_suite },
	{ "tune-replay", register_tune_replay_suite },
};

const struct btc_test_program btc_test_program = {
	.name = "driver-tests",
	.suites = suites,
	.n_suites = sizeof suites / sizeof suites[0],
};
