/* BT-Profiler as a job: find the cached table for (app, device, kernel
 * sources), or build the profiler beside the baselines, run it into a
 * temporary file in the cache directory and rename that into place. An
 * interrupt stops the profiler and removes the temporary file. With core
 * counts (issue 16) the profiler also measures every CPU stage on 1, 2,
 * 4, ... of each CPU PU's cores, and the table is cached apart (NAME.cores.csv). */
#include "driver/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "driver/build.h"
#include "driver/claim.h"
#include "driver/project.h"
#include "driver/cache.h"
#include "util/fsafe.h"
#include "util/infile.h"
#include "util/out.h"
#include "util/proc.h"
#include "util/runstatus.h"
#include "util/str.h"

/* The "message" of the profiler's --failure JSON ("stage 1 'add' on PU
 * 'cpu' (task 3) crashed with SIGSEGV"), or NULL when it wrote none. */
static char *failure_message(const char *path)
{
	cJSON *j = btc_read_json(path, NULL, NULL);
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
	char *msg = cJSON_IsString(m) ? btc_xstrdup(m->valuestring) : NULL;
	cJSON_Delete(j);
	return msg;
}

/* Runs the built profiler into a temporary file and renames it to cached. */
static bool run_profiler(const struct btc_app *app, const struct btc_device *dev,
			 const struct btc_request *opt, char *prog, const char *cached,
			 struct btc_table **table, struct btc_diag *d)
{
	char *tmp = btc_xasprintf("%s.tmp.%ld", cached, (long)getpid());
	char reps[16], min_reps[16];
	snprintf(reps, sizeof(reps), "%d", opt->profile_max_reps);
	/* the profiler's default minimum (10) would refuse --max-reps 2..9 */
	snprintf(min_reps, sizeof(min_reps), "%d",
		 opt->profile_max_reps < 10 ? opt->profile_max_reps : 10);
	/* A kernel's crash or exit(): the profiler names its stage and PU
	 * there (docs/runtime.md, "Faults in kernels"). */
	char *failure = btc_xasprintf("%s.failure.json", tmp);
	char *argv[12] = {prog, "-o", tmp, "--max-reps", reps, "--min-reps", min_reps,
			  "--failure", failure};
	int n = 9;
	if (opt->core_counts)
		argv[n++] = "--core-counts";
	if (opt->input) {
		argv[n++] = "--input";
		argv[n++] = (char *)opt->input;
	}
	argv[n] = NULL;
	printf("profile: %s on %s, every stage on every PU%s, isolated, under interference and placed\n",
	       app->name, dev->name,
	       opt->core_counts ? " (CPU PUs also on 1, 2, 4, ... of their cores)" : "");
	fflush(stdout);
	struct btc_run_io io = {NULL, NULL, false};
	double limit = opt->tune.timeout_factor * BTC_PROFILE_BOUND_S;
	bool timed_out;
	/* A kernel's _exit(): named from the run status (util/runstatus.h) */
	struct btc_runstatus rs;
	btc_runstatus_open(&rs);
	int rc = btc_run_bounded(argv, &io, limit, &timed_out);
	char *ran = btc_runstatus_text(&rs, rc);
	btc_runstatus_close(&rs);
	bool ok = false;
	char how[96];
	if (rc == 0 && !btc_interrupted() && !ran) {
		*table = btc_table_load(tmp, NULL, app, dev, BTC_MODE_INTERFERENCE, d);
		ok = *table && rename(tmp, cached) == 0;
	} else if (timed_out) {
		btc_error(d, (struct btc_loc){prog, 0, 0},
			  "the profiler ran past its time limit of %.0f s (--run-timeout-factor %g x "
			  "%g s) and was killed; the stage it was in is the last it printed above",
			  limit, opt->tune.timeout_factor, BTC_PROFILE_BOUND_S);
	} else {
		char *said = btc_interrupted() ? NULL : failure_message(failure);
		if (!said && !btc_interrupted())
			said = ran, ran = NULL;
		btc_error(d, (struct btc_loc){prog, 0, 0}, "%s (%s)%s%s",
			  btc_interrupted() ? "profiling interrupted" : "the profiler failed",
			  btc_status_text(rc, how, sizeof(how)), said ? ": " : "", said ? said : "");
		free(said);
	}
	free(ran);
	unlink(tmp); /* whatever is left of it */
	/* ... and the profiler's own temporary file of it (TMP.tmp.PID),
	 * left where the process ended with no handler run (_exit, SIGKILL) */
	char *dir = btc_dir_name(cached);
	btc_remove_stale_tmp(dir);
	free(dir);
	unlink(failure);
	free(failure);
	free(tmp);
	return ok;
}

bool btc_job_profiler_build(const struct btc_app *app, const struct btc_device *dev,
			    const struct btc_request *opt, char **prog, struct btc_diag *d)
{
	*prog = NULL;
	/* A project with the baselines only: the profiler lives beside them. */
	char *dir = btc_job_dir(opt->out_dir, app, dev, d);
	struct btc_plan_options po = opt->plan;
	po.n_specs = 0;
	po.baselines_only = true;
	struct btc_plan *plan = NULL;
	bool built = false, ok = false;
	if (!dir || !btc_job_dir_claim(dir, d) || !(plan = btc_plan(app, dev, NULL, NULL, &po, d)) ||
	    !btc_project_make(plan, dir, true, opt->force, &built, NULL, d))
		goto out;
	if (!built || strcmp(dev->name, "host")) {
		printf("profile: the profiler for %s is in %s; build it for the device, run\n"
		       "  %s-profiler -o %s-%s.csv%s\n"
		       "there, and pass the table back with --table.\n",
		       dev->name, dir, app->name, app->name, dev->name,
		       opt->core_counts ? " --core-counts" : "");
		goto out;
	}
	*prog = btc_xasprintf("%s/build/%s-profiler", dir, app->name);
	ok = true;
out:
	btc_plan_free(plan);
	free(dir);
	return ok;
}

bool btc_job_profile(const struct btc_app *app, const struct btc_device *dev,
		     const struct btc_request *opt, struct btc_table **table, char **path,
		     struct btc_diag *d)
{
	btc_install_signal_handlers(); /* `btc profile` comes here directly */
	*table = NULL;
	const char *cache_dir = opt->cache_dir ? opt->cache_dir : BTC_CACHE_DEFAULT_DIR;
	char *cached = btc_cache_table_path(cache_dir, app, dev, d);
	if (!cached)
		return false;
	size_t len = strlen(cached);
	if (opt->core_counts && len > 4 && !strcmp(cached + len - 4, ".csv")) {
		/* A table with the core-count rows is a different table. */
		char *c = btc_xasprintf("%.*s.cores.csv", (int)(len - 4), cached);
		free(cached);
		cached = c;
	}
	if (!btc_output_dir_check("--cache", cache_dir, d) || !btc_mkdirs(cache_dir, d) ||
	    !btc_dir_lock(cache_dir, true, d)) {
		free(cached);
		return false;
	}
	btc_remove_stale_tmp(cache_dir);
	if (!opt->reprofile && access(cached, F_OK) == 0) {
		/* A cached table that does not load (truncated by a full disk
		 * or a crash) is discarded and measured again: a warning, never
		 * an error the job then ignores. */
		struct btc_diag quiet;
		btc_diag_init(&quiet, NULL);
		*table = btc_table_load(cached, NULL, app, dev, BTC_MODE_INTERFERENCE, &quiet);
		if (*table) {
			printf("profile: cached table %s (same app, device and kernel sources)\n",
			       cached);
			*path = cached;
			return true;
		}
		const char *why = strstr(quiet.first, "error: ");
		btc_warning(d, (struct btc_loc){cached, 0, 0},
			    "the cached table does not load (%s); discarded, profiling again",
			    why ? why + 7 : "unreadable");
		unlink(cached);
	}

	char *prog = NULL;
	bool ok = false;
	if (!btc_job_profiler_build(app, dev, opt, &prog, d) || !btc_mkdirs(cache_dir, d))
		goto out;
	ok = run_profiler(app, dev, opt, prog, cached, table, d);
	if (ok) {
		*path = cached;
		cached = NULL;
	}
out:
	free(prog);
	free(cached);
	return ok;
}
