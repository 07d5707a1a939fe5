/* A tiny reader of the reference implementation's profiling layout
 * (`stage,little,medium,big,vulkan,cuda,device,run`, 1-based stages, 0.0 =
 * no such PU, runs appended), private to the scheduler's tests and
 * benchmark: the mean over runs of every (stage, PU), PUs that are 0.0 on
 * every row dropped. */
#ifndef BTC_TEST_SCHED_REF_TABLE_H
#define BTC_TEST_SCHED_REF_TABLE_H

#include <stddef.h>

#include "sched/optimizer.h"

struct ref_table {
	int n_stages, n_pus;
	double *time_ms;           /* [n_stages * n_pus] means */
	const char *pu_names[5];   /* static strings */
};

/* Returns 0, or -1 with a message on stderr. */
int ref_table_load(const char *path, struct ref_table *t);
void ref_table_free(struct ref_table *t);

/* The reference tables are PROFILES/DEVICE/APP/MODE.csv: these 2 devices,
 * these 3 apps, in the modes "interference" and "isolated" (12 tables). */
extern const char *const ref_devices[2];
extern const char *const ref_apps[3];

/* Loads PROFILES/DEVICE/APP/MODE.csv (profiles: the reference profiles'
 * folder) into t; its path goes to path[n]. Returns 0, or -1 with a
 * message on stderr. */
int ref_table_load_named(const char *profiles, const char *device, const char *app,
			 const char *mode, char *path, size_t n, struct ref_table *t);

/* The scheduling problem over t's means and PU names (borrowed from t). */
struct btc_sched_problem ref_table_problem(const struct ref_table *t);

#endif
