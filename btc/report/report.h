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

/* The name of a report's run in tables and legends: the file name
 * without ".json" ("octree-cuda-g1"), or for DIR/report.json the folder's
 * name. Writes at most n bytes to buf. */
void btc_report_run_label(const char *path, char *buf, size_t n);

/* A candidate's measured median for a table: "12.345" and its interval
 * "[12.000, 12.500]" ("[n/a]" without one) when verified, else its run
 * status ("failed", ...) and "". */
struct btc_report_candidate;
void btc_report_measured_text(const struct btc_report_candidate *c, char *meas, size_t n_meas,
			      char *ci, size_t n_ci);

/* The candidates of r as a table on f, one row each: index, kind, label,
 * predicted ms (the table's mode that fits best, r->fit_mode), calibrated
 * leave-one-out ms, measured median ms with its 95 % interval (or the run
 * status), runs and calibrated rank; the table `btc tune --measurements`
 * prints. */
void btc_report_print_candidates(const struct btc_report *r, FILE *f);

/* Two leases side by side: paths are pairs (A, B, A, B, ...) of reports
 * of the same job. One markdown row per pair to md: each side's chosen
 * schedule and median with its interval, how far apart the two medians
 * are (|a - b| / min(a, b)), each side's median of the other's choice
 * (where it built it), the speedups and how far apart they are, and the
 * reproducibility goal: the same schedule or medians within 5 %, and
 * speedups within 10 %; then how many pairs meet it, also judged on one
 * lease. Then the noise floor of the cost-model goals: per pair, A's
 * medians of the schedules both measured taken as a prediction of B's (n,
 * Pearson r, Spearman rho, median and max |B/A - 1| in %, A's best within
 * 5 % of B's best in B), and how many pairs meet all the goals. Then the
 * machines: per pair, both sides' best CPU-only and GPU-only baselines
 * (median ms/task) and how far apart they are, alike when both lie within
 * 5 %, and how many alike pairs reproduced. An odd n
 * is an error (nothing printed); unreadable reports are reported and
 * skipped. Returns false after any error (diagnostics in d). */
bool btc_report_compare(char *const *paths, int n, FILE *md, struct btc_diag *d);

/* One scatter plot of every report's verified schedules: measured median
 * (y, 95 % interval as a whisker) against the prediction of the report's
 * fit mode calibrated leave-one-out (x), log-log, one colour per report
 * (legend: the run labels), the line y = x and y = x +- 10 %; the title
 * gives the pooled n and median and max |measured / predicted - 1|.
 * Writes path. */
bool btc_report_scatter_svg(char *const *paths, int n, const char *path, struct btc_diag *d);

/* One bar per report: the speedup over the best baseline with its 95 %
 * interval, and a tick at best baseline / fluid bound (the most any
 * assignment of the table's work could reach); a line at 1. Writes path. */
bool btc_report_speedup_svg(char *const *paths, int n, const char *path, struct btc_diag *d);

#endif
