/* For people: SVG pictures of a profiling table and of a pipeline run,
 * tables of main-job reports. */
#ifndef BTC_REPORT_H
#define BTC_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "front/app.h"
#include "front/device.h"
#include "util/diag.h"
#include "front/table.h"

/* Heatmap of the table's `mode`: stages x PUs, ms per stage, log colour
 * scale; grey where a stage has no kernel. Writes path. */
bool btc_report_heatmap_svg(const struct btc_table *t, const struct btc_app *app,
			    const struct btc_device *dev, enum btc_mode mode, const char *path,
			    struct btc_diag *d);

/* Gantt chart of the "X" events of a Chrome trace-event JSON file (as
 * btrt writes it): one row per track, one box per task and stage, the
 * last window_ms of the run (0: all). */
bool btc_report_gantt_svg(const char *trace_path, const char *svg_path, double window_ms,
			  struct btc_diag *d);

struct btc_report;

/* Scatter plot of predicted (x) vs measured (y) ms per task, log-log, of
 * the report's verified schedules: each table mode uncalibrated, and the
 * fit mode calibrated (leave-one-out), one marker style per model, the
 * measured 95 % interval as a whisker, the line y = x. Writes path. */
bool btc_report_fit_svg(const struct btc_report *r, const char *path, struct btc_diag *d);

/* Tabulates main-job report JSON files (btc ... --run --report, read by
 * btc_report_read): one markdown row per report to md, the same as CSV to
 * csv (with the fluid bound and the chosen schedule's efficiency), every
 * tuned schedule (predicted under both table modes, calibrated LOO, the
 * measured median with its interval, runs, status, efficiency) to cand_csv,
 * and the fit of every model of every report (schema 3: Pearson r,
 * Spearman rho, median and max |measured/predicted - 1|, predicted best
 * within 5 %) as a second markdown table and to fit_csv; the CSV files may
 * be NULL. Absent values (a failed schedule's time, a speedup without
 * both sides) print as n/a in markdown and nan or empty in CSV. Reports
 * unreadable files. */
bool btc_report_tables(char *const *paths, int n, FILE *md, FILE *csv, FILE *cand_csv,
		       FILE *fit_csv, struct btc_diag *d);

#endif
