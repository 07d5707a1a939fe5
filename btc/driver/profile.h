/* BT-Profiler as a job: the profiling table of (app, device, kernel
 * sources) from the cache (driver/cache.h), or generated, built and run
 * on this machine and cached. */
#ifndef BTC_DRIVER_PROFILE_H
#define BTC_DRIVER_PROFILE_H

#include <stdbool.h>

#include "driver/request.h"

/* BT-Profiler on this machine: returns the cached table for (app, device,
 * hash of the kernel sources) when there is one, else generates the
 * profiler, builds it, runs it and caches its table (written atomically,
 * so an interrupted run leaves no partial file). *path: the table file
 * (caller frees). For a device that is not `host`, writes the profiler
 * project and prints how to run it there instead (returns false). */
bool btc_job_profile(const struct btc_app *app, const struct btc_device *dev,
		     const struct btc_request *opt, struct btc_table **table, char **path,
		     struct btc_diag *d);

/* The profiler program of (app, dev) on this machine: writes the
 * baselines' project (the profiler lives beside them) into the job
 * directory and builds it; *prog: the program's path (caller frees).
 * For a device that is not `host`, or without a toolchain, prints how to
 * build and run it there instead and returns false. */
bool btc_job_profiler_build(const struct btc_app *app, const struct btc_device *dev,
			    const struct btc_request *opt, char **prog, struct btc_diag *d);

#endif
