/* The end-to-end jobs of the paper's Fig. 2: profile (BT-Profiler, with a
 * cache), schedule (BT-Optimizer), generate and build (BT-Implementer),
 * tune on the device, run the winner on real input, report. */
#ifndef BTC_JOB_H
#define BTC_JOB_H

#include <stdbool.h>

#include "front/app.h"
#include "front/device.h"
#include "sched/plan.h"
#include "front/table.h"
#include "driver/request.h"


/* The main job: profile (or cache), schedule, generate, build, tune, run
 * the winner with verification, write trace, SVG timeline, heatmap and the
 * report JSON (report/result.h), print a summary. Every run of every
 * schedule is checked against the sequential reference. Returns the exit
 * status: 0 when every run verified; 1 on an error, or when a schedule
 * failed (named: schedule, stage, task), unless opt->keep_going, where
 * failed schedules are marked and left out of every choice and the status
 * is 0 when the chosen schedule verified, 1 when none did;
 * BTC_EXIT_INTERRUPTED (130) after SIGINT or SIGTERM, children stopped and
 * temporary files and the report removed (docs/report.md). */
int btc_job_main(const struct btc_app *app, const struct btc_device *dev,
		 const struct btc_request *opt, struct btc_diag *d);

#endif
