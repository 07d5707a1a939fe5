/* The commands that run on this machine: `btc profile` (BT-Profiler) and
 * `btc tune`, the main job (also `btc APP.yaml --run`). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btc_config.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/workload.h"
#include "driver/job.h"
#include "driver/calibrate.h"
#include "driver/profile.h"
#include "driver/profile_corun.h"
#include "driver/share_probe.h"
#include "driver/workload_job.h"
#include "driver/workload_judge.h"
#include "front/cores_here.h"
#include "front/table.h"
#include "util/fsafe.h"
#include "util/proc.h"

/* Copies the profiling table to path (--output of btc profile), written
 * once through btc_write_file_atomic. */
static void write_table(struct btc_table *t, const struct btc_app *app,
			const struct btc_device *dev, const char *path, struct btc_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		btc_panic("out of memory");
	free(t->btc_version); /* the loaded table's own, replaced by this btc's */
	t->btc_version = btc_xstrdup(BTC_VERSION);
	btc_table_write(t, app, dev, f);
	fclose(f);
	btc_write_file_atomic(path, buf, len, 0, d);
	free(buf);
}

/* `btc profile A.yaml B.yaml ... --device DEV`: each app's table as
 * `btc profile A.yaml` makes it (cached per app), then the co-run
 * slowdowns of each app against the others into its table
 * (driver/profile_corun.h; docs/scheduler.md "Several apps"), then the
 * GPU's same-PU factor for the workload (--streams; driver/share_probe.h). */
static int profile_apps(const struct btc_cli_options *o)
{
	if (o->output || o->defines.n || o->input) {
		fprintf(stderr, "btc: %s applies to one app, not to several (btc profile A.yaml "
				"B.yaml ...)\n",
			o->output ? "-o" : o->defines.n ? "-D" : "--input");
		return 2;
	}
	if (o->n_positional > BTC_WORKLOAD_MAX_APPS) {
		fprintf(stderr, "btc: at most %d apps\n", BTC_WORKLOAD_MAX_APPS);
		return 2;
	}
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	int n = o->n_positional;
	struct btc_app *apps[BTC_WORKLOAD_MAX_APPS] = {0};
	char *paths[BTC_WORKLOAD_MAX_APPS] = {0};
	struct btc_corun_app ca[BTC_WORKLOAD_MAX_APPS];
	struct btc_device *dev = btc_cli_load_device(o->device, o, &d);
	if (dev && btc_device_check_cores_here(dev, true, NULL, 0, &d))
		btc_device_free(dev), dev = NULL;
	for (int a = 0; a < n; a++) {
		apps[a] = btc_app_load(o->positional[a], NULL, NULL, 0, &d);
		for (int b = 0; apps[a] && b < a; b++)
			if (apps[b] && !strcmp(apps[b]->name, apps[a]->name))
				btc_error(&d, btc_joint_app_name_loc(o->positional[a]),
					  "two apps named '%s' (the other: %s)", apps[a]->name,
					  o->positional[b]);
	}
	if (dev && !d.errors) {
		struct btc_request jo;
		btc_cli_request(o, BTC_CMD_PROFILE, &jo);
		bool ok = true;
		for (int a = 0; a < n && !btc_interrupted(); a++) {
			struct btc_table *t = NULL;
			bool got = btc_job_profile(apps[a], dev, &jo, &t, &paths[a], &d);
			btc_table_free(t);
			if (got)
				printf("profiling table: %s\n", paths[a]);
			ok &= got;
			ca[a] = (struct btc_corun_app){apps[a], paths[a], NULL};
		}
		if (ok && !btc_interrupted() && btc_profile_corun(ca, n, dev, &jo, &d) &&
		    !btc_interrupted()) {
			/* then the same-PU factor of the workload's GPU, with
			 * the joint program's mechanism (driver/share_probe.h) */
			struct btc_joint_request jr;
			btc_cli_joint_request(o, &jr);
			if (jr.same_pu == BTC_SAME_PU_PROBE)
				btc_profile_share(&jr, dev, NULL, o->force, jo.reprofile, &d);
			else
				printf("profile: same-PU factor: not measured (--same-pu none, the "
				       "default: factor 1; --same-pu probe measures it)\n");
		}
		else if (!d.errors && !btc_interrupted())
			printf("profile: the co-run slowdowns (@corun rows) are measured on this "
			       "machine only (--device host), once every app's table is here\n");
	}
	for (int a = 0; a < n; a++) {
		free(paths[a]);
		btc_app_free(apps[a]);
	}
	btc_device_free(dev);
	if (btc_interrupted())
		return BTC_EXIT_INTERRUPTED;
	return d.errors ? 1 : 0;
}

int btc_cmd_profile(const struct btc_cli_options *o)
{
	if (o->n_positional > 1)
		return profile_apps(o);
	if (o->streams.n || btc_cli_given(o, BTC_OPT_SAME_PU)) {
		fprintf(stderr, "btc: %s applies to several apps (btc profile A.yaml B.yaml "
				"...), not to one\n", o->streams.n ? "--streams" : "--same-pu");
		return 2;
	}
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_cli_load_app(o, &d);
	struct btc_device *dev = btc_cli_load_device(o->device, o, &d);
	if (dev && btc_device_check_cores_here(dev, true, NULL, 0, &d))
		btc_device_free(dev), dev = NULL;
	if (app && dev) {
		struct btc_request jo;
		btc_cli_request(o, BTC_CMD_PROFILE, &jo);
		struct btc_table *t = NULL;
		char *path = NULL;
		if ((!o->output || btc_output_check("-o", o->output, &d)) &&
		    btc_job_profile(app, dev, &jo, &t, &path, &d)) {
			printf("profiling table: %s\n", path);
			if (o->output)
				write_table(t, app, dev, o->output, &d);
		}
		btc_table_free(t);
		free(path);
	}
	btc_device_free(dev);
	btc_app_free(app);
	if (btc_interrupted())
		return BTC_EXIT_INTERRUPTED;
	return d.errors ? 1 : 0;
}

/* The workload job: several apps or streams (driver/workload_job.h). */
static int tune_workload(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	if (!btc_cli_workload_options_ok(o))
		return 2;
	if (!o->workload && o->n_positional == 0) {
		fprintf(stderr, "btc: missing argument\n");
		btc_cli_command_usage(BTC_CMD_TUNE, stderr);
		return 2;
	}
	struct btc_device *dev = btc_cli_load_device(o->device, o, &d);
	/* --measurements: an offline re-judgement of the job's reports, no
	 * run here (driver/workload_job.h) */
	if (dev && !o->measurements.n && btc_device_check_cores_here(dev, true, NULL, 0, &d))
		btc_device_free(dev), dev = NULL;
	int status = 1;
	if (dev) {
		struct btc_request jo;
		btc_cli_request(o, BTC_CMD_TUNE, &jo);
		/* the re-judgement plans on the job's table modes (btc_cli_request
		 * leaves them to one app's --measurements) */
		if (o->measurements.n && !btc_cli_given(o, BTC_OPT_MODE))
			btc_plan_default_modes(&jo.plan);
		struct btc_joint_request jr;
		btc_cli_joint_request(o, &jr);
		if (!jr.top_k)
			jr.top_k = BTC_JOINT_PROGRAM_K;
		if (o->measurements.n) {
			status = 0;
			for (int i = 0; i < o->measurements.n; i++)
				status |= btc_workload_rejudge(&jr, dev, &jo, o->measurements.v[i], &d);
		} else {
			status = btc_workload_job(&jr, dev, &jo, &d);
		}
		if (!status && d.errors)
			status = 1;
	}
	btc_device_free(dev);
	return status;
}

int btc_cmd_tune(const struct btc_cli_options *o)
{
	if (o->n_positional != 1 || btc_cli_is_workload(o))
		return tune_workload(o);
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	if (o->measurements.n && !o->table) {
		fprintf(stderr, "btc: --measurements needs --table (the table the device's build "
				"was planned on)\n");
		return 2;
	}
	struct btc_app *app = btc_cli_load_app(o, &d);
	struct btc_device *dev = btc_cli_load_device(o->device, o, &d);
	/* the main job runs here; calibration only reads measurements */
	if (dev && !o->measurements.n && btc_device_check_cores_here(dev, true, NULL, 0, &d))
		btc_device_free(dev), dev = NULL;
	int status = 1;
	if (app && dev) {
		struct btc_request jo;
		btc_cli_request(o, BTC_CMD_TUNE, &jo);
		if (o->measurements.n)
			status = btc_job_calibrate(app, dev, &jo, o->measurements.v,
						   o->measurements.n, &d);
		else
			status = btc_job_main(app, dev, &jo, &d);
		if (!status && d.errors)
			status = 1;
	}
	btc_device_free(dev);
	btc_app_free(app);
	return status;
}
