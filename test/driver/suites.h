/* CUnit suites of the driver (and its util helpers); one file per suite,
 * listed in suites.c and run by the shared runner
 * (test/common/cunit_main.h). */
#ifndef DRIVER_SUITES_H
#define DRIVER_SUITES_H

#include <CUnit/CUnit.h>

int register_sha256_suite(void);
int register_files_suite(void);
int register_result_suite(void);
int register_signals_suite(void);
int register_diagnose_suite(void);
int register_stats_suite(void);
int register_calib_suite(void);
int register_fsafe_suite(void);
int register_colocate_suite(void);
int register_workload_calib_suite(void);
int register_workload_capacity_suite(void);
int register_tune_sim_suite(void);
int register_tune_replay_suite(void);

#endif
