/* The workload job (issue 27; docs/report.md, "The workload job"):
 * `btc A.yaml B.yaml --device host --run [--streams A=N] [--top K]
 * [--app-table A=T] [--report FILE]`, also with --workload W.yaml. */
#ifndef BTC_DRIVER_WORKLOAD_JOB_H
#define BTC_DRIVER_WORKLOAD_JOB_H

#include "driver/request.h"
#include "sched/joint_plan.h"

/* Profiles every app without a given table (cached, btc_job_profile),
 * plans the top K joint schedules (btc_joint_plan_make; r->plan is
 * replaced by opt->plan, the main job's modes), generates and builds one
 * program with every stream (driver/joint_project.h) and measures it
 * (btc_colocate_measure, driver/colocate.h): the joint candidates raced,
 * the winner against naive co-location and time multiplexing, per stream
 * and as the max-min normalised throughput with 95 % intervals. Prints
 * the result and, with opt->report, writes its JSON. Returns the exit
 * status: 0 when a joint candidate verified, 1 on an error or when none
 * did, BTC_EXIT_INTERRUPTED after SIGINT or SIGTERM. */
int btc_workload_job(const struct btc_joint_request *r, const struct btc_device *dev,
		     const struct btc_request *opt, struct btc_diag *d);

/* Prints the joint plan: each candidate's predicted M, naive
 * co-location's, the multi-app fluid bound and the same-PU factor. */
void btc_workload_print_plan(const struct btc_joint_plan *j);

#endif
