/* Helpers the runtime benchmarks share: a host TaskObject pool and a
 * pipeline run that end the benchmark on error, and the median of a
 * series of rounds. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <btrt_pipeline.h>
#include <btrt_pool.h>
#include <stdint.h>

/* A host pool of n_tasks plain struct btrt_task; prints the error and
 * exits 1 when it cannot be made. Owned by the caller
 * (btrt_pool_destroy). */
struct btrt_pool *bench_pool(uint32_t n_tasks);

/* btrt_pipeline_run(cfg); prints the error and exits 1 when the run
 * fails. The run is the caller's (btrt_run_free). */
struct btrt_run *bench_run(const struct btrt_pipeline_config *cfg);

/* The command line of a benchmark of items per run and interleaved
 * rounds: `-t items` (at least 20) and `-r rounds` (clamped to 1..32),
 * *items and *rounds holding the defaults on entry. Prints the usage and
 * exits 2 on any other option. */
void bench_items_rounds(int argc, char **argv, uint64_t *items, int *rounds);

/* qsort's comparison of doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* The median of v[n], n >= 1 (v is sorted in place). */
double bench_median(double *v, int n);

#endif
