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
#include "driver/workload_job.h"
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

int btc_cmd_profile(const struct btc_cli_options *o)
{
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
	if (o->measurements.n) {
		fprintf(stderr, "btc: --measurements applies to one app, not to a workload\n");
		return 2;
	}
	if (!o->workload && o->n_positional == 0) {
		fprintf(stderr, "btc: missing argument\n");
		btc_cli_command_usage(BTC_CMD_TUNE, stderr);
		return 2;
	}
	struct btc_device *dev = btc_cli_load_device(o->device, o, &d);
	if (dev && btc_device_check_cores_here(dev, true, NULL, 0, &d))
		btc_device_free(dev), dev = NULL;
	int status = 1;
	if (dev) {
		struct btc_request jo;
		btc_cli_request(o, BTC_CMD_TUNE, &jo);
		struct btc_joint_request jr;
		btc_cli_joint_request(o, &jr);
		if (!jr.top_k)
			jr.top_k = BTC_JOINT_PROGRAM_K;
		status = btc_workload_job(&jr, dev, &jo, &d);
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
