/* Co-run slowdowns of several apps on one chip (issue 27; docs/scheduler.md
 * "Several apps", "What is measured"): the `@corun` rows of each app's
 * profiling table, measured on this machine with the apps' generated
 * profilers (driver/profile_corun.c). */
#ifndef BTC_DRIVER_PROFILE_CORUN_H
#define BTC_DRIVER_PROFILE_CORUN_H

#include <stdbool.h>

#include "driver/request.h"
#include "front/app.h"
#include "front/device.h"
#include "util/diag.h"

/* The longest one measuring run (a profiler's --pus run, or an occupant's
 * start) may take, in s, times --run-timeout-factor; then it is killed. */
#define BTC_CORUN_BOUND_S 60.0

/* One app of the workload: borrowed, must outlive the call. */
struct btc_corun_app {
	const struct btc_app *app;
	const char *table_path; /* its profiling table (btc_job_profile's *path):
				   the @corun rows are written into it */
	const char *input;      /* its profiler's --input; NULL: the app's default */
};

/* Measures and writes the co-run slowdowns of every app against the others:
 * for app A, every ordered pair (p, q) of distinct PUs of dev such that A
 * has a kernel on p and another app B one on q:
 *
 *   factor_B(p, q) = median over A's stages s on p of
 *                    T_s(p | B's stages occupy q) / T_s(p alone)
 *
 * every time the mean of a one-stage chunk in the profiler's isolated
 * mode (its --pus p run: warm-up 1, --max-reps opt->profile_max_reps),
 * the co-run time taken while B's profiler runs `--occupy q` (B's own
 * stages on q in turn, ~20 ms bursts) in a process group of its own, the
 * solo time the mean of A's runs on p just before and just after it. The
 * row `@corun,p/q,isolated,F,SD,N` gets F = max over the other apps B of
 * factor_B (the joint model has one slowdown per pair), SD the standard
 * deviation of that B's per-stage ratios, N their count; the table's
 * `# corun_with:` line names the apps measured against. The rows replace
 * any @corun rows of the table, written atomically (the table is loaded
 * back before the rename); an app whose table already holds isolated
 * @corun rows measured against exactly these apps is skipped (cached)
 * unless opt->reprofile. Progress: one line per pair on stdout. Every
 * run is bounded (BTC_CORUN_BOUND_S x opt->tune.timeout_factor); an
 * occupant is stopped after each measurement, on every error and on
 * SIGINT/SIGTERM (btc_bg_stop), and dies with btc.
 *
 * Builds each app's profiler (btc_job_profiler_build): dev must be this
 * machine (`host`), else it prints how to profile there and returns
 * false. n_apps < 2: nothing to do (true). Returns false after reporting
 * an error (a table is then left as it was). */
bool btc_profile_corun(const struct btc_corun_app *apps, int n_apps,
		       const struct btc_device *dev, const struct btc_request *opt,
		       struct btc_diag *d);

#endif
