/* A workload (issue 27; docs/app-format.md "Workloads"): several apps on
 * one device, each with a number of streams (independent task streams of
 * the app, each with its own input) and a weight or a target rate. Given
 * as a YAML file
 *
 *     apps:
 *       - app: ../apps/octree.yaml      # relative to this file
 *         streams: 4                    # default 1
 *         weight: 2                     # maxmin / sum, default 1
 *         rate: 30                      # tasks/s per stream (objective rates)
 *         table: octree-pixel7a.csv     # optional, relative to this file
 *
 * or on the command line (`btc schedule A.yaml B.yaml --streams A=4
 * --weight B=2 --rate A=30 --app-table A=T.csv`, apps named by their
 * `name:`); the command line overrides the file. */
#ifndef BTC_WORKLOAD_H
#define BTC_WORKLOAD_H

#include <stdbool.h>

#include "util/diag.h"

#define BTC_WORKLOAD_MAX_APPS 16

struct btc_workload_entry {
	char *path;          /* the app's YAML, resolved (owned) */
	struct btc_loc loc;  /* where it was named (the file's `app:` value,
			      * or the app file itself for the command line) */
	int streams;         /* >= 1 */
	double weight;       /* > 0 */
	double rate_per_s;   /* tasks/s per stream, > 0; 0: not given */
	char *table;         /* resolved (owned), or NULL */
	struct btc_loc streams_loc, weight_loc, rate_loc; /* {0} when not from a file */
};

struct btc_workload {
	struct btc_workload_entry apps[BTC_WORKLOAD_MAX_APPS];
	int n_apps;
	char *file; /* the workload file's path (owned), or NULL */
};

/* Parses the workload file at path (text: its contents, for tests) into
 * *w (zeroed first). Reports every problem with file:line:col: unknown or
 * duplicate keys, a missing `app:`, values out of range, an app or table
 * file that does not exist (at its value). Returns false on any error. */
bool btc_workload_load(const char *path, const char *text, struct btc_workload *w,
		       struct btc_diag *d);

/* Appends the app at `path` (command line) with 1 stream, weight 1. */
bool btc_workload_add(struct btc_workload *w, const char *path, struct btc_diag *d);

void btc_workload_free(struct btc_workload *w);

#endif
