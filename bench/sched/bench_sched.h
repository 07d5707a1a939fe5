/* Shared by the parts of sched-bench (bench_sched.c, bench_multi.c). */
#ifndef BTC_BENCH_SCHED_H
#define BTC_BENCH_SCHED_H

#include <stdbool.h>

/* Runs argv reps times (stdout to /dev/null), prints wall and CPU
 * medians and minima under label. */
void time_process(const char *label, char *const argv[], int reps);

/* 7. several apps (issue 27): whole-process `btc schedule A B [C]` on the
 * reference tables, and btc_multi_solve on random 2 x 9 x 4 and 3 x 9 x 4
 * workloads. btc may be NULL (in-process part only). */
void multi_bench(const char *btc, bool quick);

/* 7.'s in-process rows of the default solver alone (btc_multi_solve on the
 * same random workloads). */
void multi_solve_bench(bool quick);
/* Part 7b: the joint space with farms and core splits
 * (`sched-bench --multi-larger`); three: its 3-app rows with co-run
 * slowdowns alone (`--multi-larger3`; the same workloads). */
void multi_larger_bench(const char *btc, bool quick, bool three);

/* 8. the fluid and the assignment bound on the 12 reference tables, the
 * paper's space and with farms, with their solve times (bench_bound.c). */
void bound_bench(void);

#endif
