/* Calibration from measurements made elsewhere: `btc tune APP.yaml
 * --device DEV --table T --measurements FILE...` reads the tuning runs
 * copied back from a device (report/measurements.h), recalibrates,
 * re-ranks and reports the fit without running anything (docs/report.md,
 * "Measurements files"). */
#ifndef BTC_DRIVER_CALIBRATE_H
#define BTC_DRIVER_CALIBRATE_H

#include "driver/request.h"

/* The command: plans the build as the main job would on opt->table (the
 * schedules the device's program holds, in its --schedule order; when
 * the first file is a main job's report and there is no --chunks, exactly
 * the report's schedules, in its order), reads
 * the files, fits and prints the fit (the same table as the main job's
 * report), writes opt->report (schema 3, no chosen schedule) and fit.svg
 * beside it when given. Returns the exit status (0, or 1 after a
 * reported error). */
int btc_job_calibrate(const struct btc_app *app, const struct btc_device *dev,
		      const struct btc_request *opt, const char *const *files, int n_files,
		      struct btc_diag *d);

#endif
