/* Calibration from measurements made elsewhere: `btc tune APP.yaml
 * --device DEV --table T --measurements FILE...` reads the tuning runs
 * copied back from a device, recalibrates, re-ranks and reports the fit
 * without running anything (docs/report.md, "Measurements files"). */
#ifndef BTC_MEASUREMENTS_H
#define BTC_MEASUREMENTS_H

#include <stdbool.h>

#include "driver/job.h"

/* Adds the runs in the file at path to entries[n] (btc_tune_entry_add),
 * one run per JSON file or CSV line. Two formats, told apart by the first
 * non-blank character ('{': JSON):
 *   JSON: a generated program's --report (schedule_index, verified,
 *         measured_ms_per_task, tasks, warmup, schedule.label); the label
 *         must be the planned schedule's; a run that did not verify marks
 *         the schedule failed;
 *   JSON: a main job's report (has "candidates"): each verified
 *         candidate's measured median, matched by label to the planned
 *         schedules (a label not planned is an error);
 *   CSV:  lines `schedule_index,measured_ms[,anything]`, ms per task;
 *         blank lines, '#' comments and a header line starting with
 *         "schedule_index" are skipped.
 * Reports (file:line) an index out of range, a bad number, a label that
 * does not match; returns false then. */
bool btc_measurements_read(const char *path, const struct btc_plan_schedule *scheds, int n,
			   const struct btc_device *dev, struct btc_tune_entry *entries,
			   struct btc_diag *d);

/* The command: plans the build as the main job would on opt->table (the
 * schedules the device's program holds, in its --schedule order; when
 * the first file is a main job's report and there is no --chunks, exactly
 * the report's schedules, in its order), reads
 * the files, fits and prints the fit (the same table as the main job's
 * report), writes opt->report (schema 3, no chosen schedule) and fit.svg
 * beside it when given. Returns the exit status (0, or 1 after a
 * reported error). */
int btc_job_calibrate(const struct btc_app *app, const struct btc_device *dev,
		      const struct btc_job_options *opt, const char *const *files, int n_files,
		      struct btc_diag *d);

#endif
