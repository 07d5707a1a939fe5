/* A tiny reader of the reference implementation's profiling layout
 * (`stage,little,medium,big,vulkan,cuda,device,run`, 1-based stages, 0.0 =
 * no such PU, runs appended), private to the scheduler's tests and
 * benchmark: the mean over runs of every (stage, PU), PUs that are 0.0 on
 * every row dropped. */
#ifndef BTC_TEST_SCHED_REF_TABLE_H
#define BTC_TEST_SCHED_REF_TABLE_H

#include "sched/optimizer.h"

struct ref_table {
	int n_stages, n_pus;
	double *time_ms;           /* [n_stages * n_pus] means */
	const char *pu_names[5];   /* static strings */
};

/* Returns 0, or -1 with a message on stderr. */
int ref_table_load(const char *path, struct ref_table *t);
void ref_table_free(struct ref_table *t);

#endif
