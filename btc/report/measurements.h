/* Measurements made elsewhere: the tuning runs copied back from a device
 * (a generated program's reports, a main job's report, or CSV), read into
 * the planned schedules' entries (docs/report.md, "Measurements files").
 * The command over them is driver/calibrate.h. */
#ifndef BTC_MEASUREMENTS_H
#define BTC_MEASUREMENTS_H

#include <stdbool.h>

#include "front/device.h"
#include "sched/plan.h"
#include "report/entry.h"
#include "util/diag.h"

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

#endif
