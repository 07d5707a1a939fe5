/* Same-PU capacities measured on this machine (issue 27; docs/scheduler.md
 * "Same-PU capacity"): the joint program's --share-probe (runtime
 * btrt_workload_probe.c) run and read, the `@share` rows written into the
 * apps' tables (docs/app-format.md). Used by `btc profile A.yaml B.yaml`
 * and by the workload job (`--run`). */
#ifndef BTC_DRIVER_SHARE_PROBE_H
#define BTC_DRIVER_SHARE_PROBE_H

#include <stdbool.h>

#include "front/table.h"
#include "sched/joint_plan.h"
#include "util/diag.h"

/* Whether the workload has a same-PU factor to measure: at least two
 * streams whose apps have a kernel for one usable GPU PU (not forbidden,
 * the --gpu kind), on this machine. */
bool btc_share_probe_wanted(const struct btc_joint_plan *j);

/* "octree*4,alexnet_dense*4": the workload's apps and stream counts (the
 * `# share_with:` of the rows). Caller frees. */
char *btc_share_with(const struct btc_joint_plan *j);

/* Whether every app's table already holds @share rows measured with this
 * workload (its `# share_with:` equal to btc_share_with): the cached case. */
bool btc_share_cached(const struct btc_joint_plan *j);

/* Runs the built joint program prog with --share-probe (stdout echoed,
 * killed after BTC_SHARE_PROBE_BOUND_S s) and reads its @share rows into
 * *out (a new table of j's first app on j's device, rows only;
 * btc_table_free; NULL when the program printed none: no GPU chunk).
 * *secs: how long it ran. Returns false after reporting (the program
 * failed, timed out, or printed a row btc cannot read). */
#define BTC_SHARE_PROBE_BOUND_S 600.0
bool btc_share_probe_run(const struct btc_joint_plan *j, const char *prog, struct btc_table **out,
			 double *secs, struct btc_diag *d);

/* Replaces the @share rows and `# share_with:` of the table at path (app
 * on dev) by t's isolated rows and `with`; the result is loaded back as a
 * check before it replaces the file. Returns false after reporting. */
bool btc_share_write_rows(const char *path, const struct btc_app *app,
			  const struct btc_device *dev, const struct btc_table *t, const char *with,
			  struct btc_diag *d);

/* `btc profile A.yaml B.yaml ... --device host` after every table and its
 * @corun rows: plans the workload r (its --streams; one stream per app
 * by default) on the tables just profiled, and when it has a same-PU
 * factor to measure and the tables hold none measured with it, builds
 * its joint program (in dir, e.g. build/btc/octree+alexnet_dense-host),
 * runs --share-probe and writes the rows into every app's table (the
 * cache); reprofile (--reprofile): measures even when cached. Prints what it did; returns false after reporting. */
bool btc_profile_share(const struct btc_joint_request *r, const struct btc_device *dev,
		       const char *dir, bool force, bool reprofile, struct btc_diag *d);

#endif
