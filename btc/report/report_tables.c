/* Tables (markdown, CSV) of main-job reports read through report/result.h:
 * one row per report, the fit of every model, and two leases side by side
 * (docs/report.md, "btc report"). */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/goals.h"
#include "report/limits.h"
#include "report/result.h"
#include "report/stats.h"
#include "util/out.h"

void btc_report_run_label(const char *path, char *buf, size_t n)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base);
	if (len > 5 && !strcmp(base + len - 5, ".json"))
		len -= 5;
	if (len == 6 && !strncmp(base, "report", 6) && base != path) {
		/* DIR/report.json: the folder names the run. */
		const char *end = base - 1, *start = end;
		while (start > path && start[-1] != '/')
			start--;
		if (end > start) {
			snprintf(buf, n, "%.*s", (int)(end - start), start);
			return;
		}
	}
	snprintf(buf, n, "%.*s", (int)len, base);
}

/* "%.3f", or `none` where a value is absent (NAN). */
static const char *fmt_ms(char *buf, size_t n, double v, const char *none)
{
	if (isnan(v))
		snprintf(buf, n, "%s", none);
	else
		snprintf(buf, n, "%.3f", v);
	return buf;
}

/* "12.3" (a fraction as %), or n/a. */
static const char *fmt_pct(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.1f", 100 * v);
	return buf;
}

/* The chosen's efficiency as a percentage with its 95 % interval,
 * "96.5 [94.0, 98.1]" (above 100 where the bound lies inside the
 * interval), "NOT a bound" where the chosen's interval lies wholly below
 * the bound (fit.h, btc_fit_judge_bound), or n/a. */
static const char *fmt_eff(char *buf, size_t n, const struct btc_report *r)
{
	if (!isnan(r->efficiency) && !isnan(r->efficiency_ci_low))
		snprintf(buf, n, "%.1f [%.1f, %.1f]", 100 * r->efficiency,
			 100 * r->efficiency_ci_low, 100 * r->efficiency_ci_high);
	else if (!isnan(r->efficiency))
		snprintf(buf, n, "%.1f", 100 * r->efficiency);
	else
		snprintf(buf, n, r->bound_below ? "NOT a bound" : "n/a");
	return buf;
}

/* "[0.950, 1.020]", or n/a without an interval. */
static const char *fmt_ci(char *buf, size_t n, double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "[%.3f, %.3f]", lo, hi);
	return buf;
}

/* "1.35x [1.15, 1.49]", "1.00x (no significant gain)", or n/a. */
static const char *fmt_speedup(char *buf, size_t n, const struct btc_report *r)
{
	if (!isnan(r->speedup) && !isnan(r->speedup_ci_low))
		snprintf(buf, n, "%.2fx [%.2f, %.2f]", r->speedup, r->speedup_ci_low,
			 r->speedup_ci_high);
	else if (!isnan(r->speedup))
		snprintf(buf, n, "%.2fx%s", r->speedup,
			 r->no_significant_gain ? " (no significant gain)" : "");
	else
		snprintf(buf, n, "n/a");
	return buf;
}

/* The chosen schedule as "cpu:0-3 cuda:4-6", or "none verified". */
static void chosen_label(const struct btc_report *r, char *buf, size_t n)
{
	buf[0] = 0;
	for (int c = 0; c < r->n_chunks; c++) {
		size_t len = strlen(buf);
		snprintf(buf + len, n - len, "%s%s:%d-%d", len ? " " : "",
			 r->chunks[c].pu ? r->chunks[c].pu : "?", r->chunks[c].first_stage,
			 r->chunks[c].last_stage);
	}
	if (!r->n_chunks)
		snprintf(buf, n, "none verified");
}

/* Is a baseline's PU the GPU? Its name is the job's GPU API (host:
 * "cuda", "vulkan") or a device library's GPU name ("gpu..."). */
static bool gpu_pu(const struct btc_report *r, const char *pu)
{
	return pu && ((r->gpu && !strcmp(pu, r->gpu)) || !strncmp(pu, "gpu", 3) ||
		      !strcmp(pu, "cuda") || !strcmp(pu, "vulkan"));
}

/* The lowest verified median among the baselines on the GPU (gpu true)
 * or on a CPU PU (gpu false); NAN if none. */
static double baseline_ms(const struct btc_report *r, bool gpu)
{
	double best = NAN;
	for (int k = 0; k < r->n_candidates; k++) {
		const struct btc_report_candidate *c = &r->candidates[k];
		if (!c->baseline || c->status != BTC_RUN_VERIFIED || isnan(c->measured_ms) ||
		    gpu_pu(r, c->pu) != gpu)
			continue;
		if (isnan(best) || c->measured_ms < best)
			best = c->measured_ms;
	}
	return best;
}

/* The fit table: one row per report and model, markdown into fit_md
 * (a buffer printed after the main table) and CSV. */
static void fit_rows(const char *path, const char *run, const struct btc_report *r,
		     struct btc_out *fit_md, FILE *fit_csv)
{
	for (int k = 0; k < r->n_fit_models; k++) {
		const struct btc_report_fit_model *m = &r->fit_models[k];
		char b1[32], b2[32], b3[32], b4[32];
		const char *best = m->best_within_5pct < 0 ? "n/a"
				   : m->best_within_5pct   ? "yes"
							   : "no";
		bool picked = m->calibrated && r->fit_mode && m->mode &&
			      !strcmp(m->mode, r->fit_mode);
		char b5[32], b6[32], goals[64];
		unsigned missed = btc_fit_goals_missed(m->n, m->pearson_r, m->spearman_rho,
						       m->median_abs_rel_err, m->max_abs_rel_err,
						       m->best_within_5pct);
		btc_fit_goals_text(missed, goals, sizeof(goals));
		btc_outl(fit_md, "| %s | %s | %s | %s%s | %d | %s | %s | %s | %s | %s | %s | %s | %s |",
			 run, r->app ? r->app : "", r->device ? r->device : "",
			 m->name ? m->name : "", picked ? " *" : "", m->n,
			 fmt_ms(b1, sizeof(b1), m->pearson_r, "n/a"),
			 fmt_ms(b2, sizeof(b2), m->spearman_rho, "n/a"),
			 fmt_pct(b3, sizeof(b3), m->median_abs_rel_err),
			 fmt_pct(b4, sizeof(b4), m->max_abs_rel_err), best,
			 fmt_ms(b5, sizeof(b5), m->pearson_r_candidates, "n/a"),
			 fmt_ms(b6, sizeof(b6), m->spearman_rho_candidates, "n/a"), goals);
		if (fit_csv)
			fprintf(fit_csv,
				"%s,%s,%s,%s,\"%s\",%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%s,%.4f,%.4f,%s\n",
				path, r->app ? r->app : "", r->gpu ? r->gpu : "",
				r->device ? r->device : "", m->name ? m->name : "",
				m->mode ? m->mode : "",
				m->calibrated ? (picked ? "picked" : "true") : "false", m->n,
				m->pearson_r, m->spearman_rho, m->median_abs_rel_err,
				m->max_abs_rel_err,
				m->best_within_5pct < 0 ? ""
				: m->best_within_5pct   ? "true"
							: "false",
				m->pearson_r_candidates, m->spearman_rho_candidates, run);
	}
}

/* r's final-run breakdown as one row of the breakdown table (nothing
 * without one). */
static void breakdown_row(const char *run, const struct btc_report *r, struct btc_out *md)
{
	const struct btc_report_breakdown *b = &r->final_breakdown;
	if (b->chunk < 0)
		return;
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	btc_outl(md, "| %s | %s | %d (%s) | %s | %s | %s / %d | %s / %d | %s%s |", run,
		 fmt_ms(b1, sizeof(b1), r->final_ms, "n/a"), b->chunk,
		 b->chunk_pu ? b->chunk_pu : "?", fmt_ms(b2, sizeof(b2), b->chunk_ms, "n/a"),
		 fmt_ms(b3, sizeof(b3), b->io_ms, "n/a"), fmt_ms(b4, sizeof(b4), b->load_ms, "n/a"),
		 b->load_threads, fmt_ms(b5, sizeof(b5), b->check_ms, "n/a"), b->check_threads,
		 btc_report_period_set_by(b), b->steady ? "" : " (means)");
}

/* r's regret (an --exhaustive or --regret-round run) as one row of the
 * regret table: over the space or the schedules measured, pooled from the
 * two schedules' medians, and paired where the regret round ran (nothing
 * without a regret). */
static void regret_row(const char *run, const struct btc_report *r, struct btc_out *md)
{
	if (isnan(r->regret) || r->regret_best < 0 || r->chosen < 0)
		return;
	const struct btc_report_candidate *c = &r->candidates[r->chosen];
	const struct btc_report_candidate *b = &r->candidates[r->regret_best];
	char b1[32], b2[32], over[48], paired[256] = "none (the chosen is the measured best)";
	if (!btc_report_paired_regret_text(r, paired, sizeof(paired)) &&
	    r->regret_best != r->chosen)
		snprintf(paired, sizeof(paired),
			 "not raced (a report of earlier btc, or the best on the io farms' cores)");
	if (r->n_space > 0)
		snprintf(over, sizeof(over), "%d of the space's %d", r->n_space_measured,
			 r->n_space);
	else
		snprintf(over, sizeof(over), "%d, not the space", r->n_space_measured);
	btc_outl(md, "| %s | %s | %s | %s | %s | %s | %.1f [%.1f, %.1f] | %s |", run,
		 c->label ? c->label : "?", fmt_ms(b1, sizeof(b1), c->measured_ms, "n/a"),
		 b->label ? b->label : "?", fmt_ms(b2, sizeof(b2), b->measured_ms, "n/a"), over,
		 100 * r->regret, 100 * r->regret_ci_low, 100 * r->regret_ci_high, paired);
}

bool btc_report_tables(char *const *paths, int n, FILE *md, FILE *csv, FILE *cand_csv,
		       FILE *fit_csv, struct btc_diag *d)
{
	struct btc_out fit_md, bd_md, rg_md;
	btc_out_init(&fit_md);
	btc_out_init(&bd_md);
	btc_out_init(&rg_md);
	if (fit_csv)
		fprintf(fit_csv,
			"report,app,gpu,device,model,mode,calibrated,n,pearson_r,spearman_rho,median_abs_rel_err,max_abs_rel_err,best_within_5pct,pearson_r_candidates,spearman_rho_candidates,run\n");
	fprintf(md,
		"| run | app | GPU API | CPU-only ms/task | GPU-only ms/task | chosen schedule | ms/task | 95 %% interval | predicted ms | best baseline | baseline ms/task | speedup [95 %%] | fluid / assignment bound ms | efficiency %% [95 %%] | Pearson r (isolated) | Pearson r (interference) | profile s | tune s | verified | runs' spread %% |\n");
	fprintf(md,
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	if (csv)
		fprintf(csv,
			"app,gpu,device,chosen,measured_ms,predicted_ms,baselines,best_baseline,best_baseline_ms,speedup,pearson_r_isolated,pearson_r_interference,profile_s,schedule_s,build_s,tune_s,run_s,verified,failed_schedules,speedup_ci_low,speedup_ci_high,no_significant_gain,fit_mode,fluid_bound_ms,efficiency,run,cpu_only_ms,gpu_only_ms,measured_ci_low_ms,measured_ci_high_ms,assign_bound_ms,fluid_efficiency,efficiency_ci_low,efficiency_ci_high,runs_spread\n");
	if (cand_csv)
		fprintf(cand_csv,
			"app,gpu,index,kind,label,predicted_isolated_ms,predicted_interference_ms,calibrated_loo_isolated_ms,calibrated_loo_interference_ms,measured_ms,measured_ci_low_ms,measured_ci_high_ms,runs,tasks,rounds,status,efficiency,run,predicted_placed_ms,calibrated_loo_placed_ms\n");
	bool ok = true;
	double *widths = NULL; /* every report's (btc_report_spread_widths) */
	int n_widths = 0;
	for (int i = 0; i < n; i++) {
		struct btc_report r;
		if (!btc_report_read(paths[i], &r, d)) {
			btc_report_free(&r);
			ok = false;
			continue;
		}
		const char *app = r.app ? r.app : "", *gpu = r.gpu ? r.gpu : "";
		char run[256], chosen[256];
		btc_report_run_label(paths[i], run, sizeof(run));
		chosen_label(&r, chosen, sizeof(chosen));
		char bases[256] = "", b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32],
		     b8[32], b9[64];
		for (int k = 0; k < r.n_candidates; k++) {
			const struct btc_report_candidate *c = &r.candidates[k];
			if (!c->baseline)
				continue;
			size_t len = strlen(bases);
			snprintf(bases + len, sizeof(bases) - len, "%s%s=%s", len ? " " : "",
				 c->pu ? c->pu : "?",
				 c->status == BTC_RUN_VERIFIED
					 ? fmt_ms(b1, sizeof(b1), c->measured_ms, "nan")
					 : btc_run_status_name(c->status));
		}
		const char *best = r.best_baseline >= 0 && r.candidates[r.best_baseline].pu
					   ? r.candidates[r.best_baseline].pu
					   : "";
		const struct btc_report_candidate *ch = r.chosen >= 0 && r.chosen < r.n_candidates
								? &r.candidates[r.chosen]
								: NULL;
		double ci_lo = ch ? ch->ci_low_ms : NAN, ci_hi = ch ? ch->ci_high_ms : NAN;
		double cpu_ms = baseline_ms(&r, false), gpu_ms = baseline_ms(&r, true);
		char speedup[64];
		fmt_speedup(speedup, sizeof(speedup), &r);
		const char *verified = r.verified          ? "yes"
				       : r.chosen_verified ? "chosen only"
							   : "no";
		char bounds[80], b10[32];
		snprintf(bounds, sizeof(bounds), "%s / %s", fmt_ms(b5, sizeof(b5), r.fluid_bound_ms, "n/a"),
			 fmt_ms(b10, sizeof(b10), r.assign_bound_ms, "n/a"));
		widths = btc_xrealloc(widths,
				      (size_t)(n_widths + r.n_candidates + 1) * sizeof(double));
		int n_spread = btc_report_spread_widths(&r, widths + n_widths);
		double spread = btc_stats_median(widths + n_widths, n_spread);
		n_widths += n_spread;
		char b11[32];
		fprintf(md,
			"| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %.3f | %.1f | %.1f | %s | %s |\n",
			run, app, gpu, fmt_ms(b7, sizeof(b7), cpu_ms, "n/a"),
			fmt_ms(b8, sizeof(b8), gpu_ms, "n/a"), chosen,
			fmt_ms(b1, sizeof(b1), r.measured_ms, "n/a"),
			fmt_ci(b9, sizeof(b9), ci_lo, ci_hi),
			fmt_ms(b2, sizeof(b2), r.predicted_ms, "nan"), best,
			fmt_ms(b3, sizeof(b3), r.best_baseline_ms, "n/a"), speedup, bounds,
			fmt_eff(b6, sizeof(b6), &r), r.pearson_r[BTC_MODE_ISOLATED],
			r.pearson_r[BTC_MODE_INTERFERENCE], r.phases_s[0], r.phases_s[3], verified,
			fmt_pct(b11, sizeof(b11), spread));
		if (csv) {
			snprintf(b4, sizeof(b4), isnan(r.speedup) ? "" : "%.4f", r.speedup);
			fprintf(csv,
				"%s,%s,%s,%s,%.6f,%.6f,%s,%s,%.6f,%s,%.4f,%.4f,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%d,%.4f,%.4f,%s,%s,%.6f,%.4f,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%.4f,%.4f\n",
				app, gpu, r.device ? r.device : "", r.n_chunks ? chosen : "",
				r.measured_ms, r.predicted_ms, bases, best, r.best_baseline_ms, b4,
				r.pearson_r[BTC_MODE_ISOLATED], r.pearson_r[BTC_MODE_INTERFERENCE],
				r.phases_s[0], r.phases_s[1], r.phases_s[2], r.phases_s[3],
				r.phases_s[4], r.verified ? "true" : "false", r.n_failed,
				r.speedup_ci_low, r.speedup_ci_high,
				r.no_significant_gain ? "true" : "false",
				r.fit_mode ? r.fit_mode : "", r.fluid_bound_ms, r.efficiency, run,
				cpu_ms, gpu_ms, ci_lo, ci_hi, r.assign_bound_ms, r.fluid_efficiency,
				r.efficiency_ci_low, r.efficiency_ci_high, spread);
		}
		for (int k = 0; cand_csv && k < r.n_candidates; k++) {
			const struct btc_report_candidate *c = &r.candidates[k];
			fprintf(cand_csv,
				"%s,%s,%d,%s,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%d,%d,%s,%.4f,%s,%.6f,%.6f\n",
				app, gpu, c->index, btc_report_candidate_kind(c),
				c->label ? c->label : "", c->predicted_ms[BTC_MODE_ISOLATED],
				c->predicted_ms[BTC_MODE_INTERFERENCE],
				c->calibrated_loo_ms[BTC_MODE_ISOLATED],
				c->calibrated_loo_ms[BTC_MODE_INTERFERENCE], c->measured_ms,
				c->ci_low_ms, c->ci_high_ms, c->runs, c->tasks, c->rounds,
				btc_run_status_name(c->status), c->efficiency, run,
				c->predicted_ms[BTC_MODE_PLACED],
				c->calibrated_loo_ms[BTC_MODE_PLACED]);
		}
		fit_rows(paths[i], run, &r, &fit_md, fit_csv);
		breakdown_row(run, &r, &bd_md);
		regret_row(run, &r, &rg_md);
		btc_report_free(&r);
	}
	if (n_widths) {
		char b[32];
		fprintf(md,
			"\nThe runs' spread (the last column: over a run's schedules with 3 runs or "
			"more, the median of their 95 %% interval's width over their median; "
			"docs/report.md): %s %% over these runs' %d schedules.\n",
			fmt_pct(b, sizeof(b), btc_stats_median(widths, n_widths)), n_widths);
	}
	free(widths);
	if (bd_md.len) {
		fprintf(md,
			"\nThe final runs' breakdown (times per task from the program's report: "
			"steady-state means over the period's tasks, or means over every task where "
			"the last column says so (reports of earlier btc); a farm's workers as one "
			"chunk): what set the period, the slowest chunk or the io threads' T_io = "
			"max(load / k_load, check / k_check).\n\n"
			"| run | final run ms/task | slowest chunk | its ms/task | io T_io ms | load ms / "
			"threads | check ms / threads | period set by |\n"
			"|---|---|---|---|---|---|---|---|\n");
		fputs(bd_md.buf, md);
	}
	btc_out_free(&bd_md);
	if (rg_md.len) {
		fprintf(md,
			"\nThe regret (--exhaustive and --regret-round runs; docs/report.md, "
			"\"Regret\"): the chosen's median over the measured best's - 1, pooled over "
			"each one's runs, and paired: the regret round's race of the two, time ratio "
			"chosen / best [95 %%] and the paired regret %% [95 %%]. Measured: the "
			"schedules the best is of (--exhaustive: the paper's space; else the "
			"candidates, baselines and bound round's measured).\n\n"
			"| run | chosen | its ms/task | measured best | its ms/task | measured | "
			"regret %% [95 %%] | paired (the regret round) |\n"
			"|---|---|---|---|---|---|---|---|\n");
		fputs(rg_md.buf, md);
	}
	btc_out_free(&rg_md);
	if (fit_md.len) {
		fprintf(md,
			"\n| run | app | device | model (* the fit mode) | n | Pearson r | Spearman rho | median abs err %% | max abs err %% | best within 5 %% | Pearson r (candidates) | Spearman rho (candidates) | goals |\n");
		fprintf(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
		fputs(fit_md.buf, md);
		fprintf(md, "\nThe fit goals (goals: met, or the ones missed):\n\n");
		btc_fit_goals_print(md);
	}
	btc_out_free(&fit_md);
	return ok;
}

/* |a - b| / min(a, b): how far apart two positive figures are; NAN if
 * either is absent. */
static double apart(double a, double b)
{
	if (isnan(a) || isnan(b) || a <= 0 || b <= 0)
		return NAN;
	return fabs(a - b) / fmin(a, b);
}

/* The verified median of the schedule labelled `label` in r; NAN if r
 * did not measure it. */
static double measured_of(const struct btc_report *r, const char *label)
{
	for (int k = 0; label && k < r->n_candidates; k++) {
		const struct btc_report_candidate *c = &r->candidates[k];
		if (c->label && !strcmp(c->label, label) && c->status == BTC_RUN_VERIFIED)
			return c->measured_ms;
	}
	return NAN;
}

static const char *chosen_candidate_label(const struct btc_report *r)
{
	return r->chosen >= 0 && r->chosen < r->n_candidates ? r->candidates[r->chosen].label
							     : NULL;
}

/* One row of the noise-floor table: the schedules both leases measured,
 * lease A's medians taken as a prediction of lease B's and judged as one would be
 * (the cost-model goals of report/goals.h but Pearson r: Spearman rho,
 * median and max |B/A - 1|, A's best within 5 % of B's best in B). Appends to out;
 * returns true when all four hold. */
static bool repetition_row(const char *run, const struct btc_report *a,
			   const struct btc_report *b, struct btc_out *out)
{
	int n = 0;
	double *x = btc_xcalloc((size_t)a->n_candidates + 1, sizeof(double));
	double *y = btc_xcalloc((size_t)a->n_candidates + 1, sizeof(double));
	double *e = btc_xcalloc((size_t)a->n_candidates + 1, sizeof(double));
	int best_a = -1;
	double best_b = INFINITY;
	for (int k = 0; k < a->n_candidates; k++) {
		const struct btc_report_candidate *c = &a->candidates[k];
		double mb = c->status == BTC_RUN_VERIFIED ? measured_of(b, c->label) : NAN;
		if (isnan(mb) || !(c->measured_ms > 0))
			continue;
		x[n] = c->measured_ms;
		y[n] = mb;
		e[n] = fabs(mb / c->measured_ms - 1);
		if (best_a < 0 || x[n] < x[best_a])
			best_a = n;
		best_b = fmin(best_b, mb);
		n++;
	}
	double rho = btc_stats_spearman(x, y, n), r = btc_stats_pearson(x, y, n);
	double med = btc_stats_median(e, n), max = 0;
	for (int i = 0; i < n; i++)
		max = fmax(max, e[i]);
	bool best = best_a >= 0 && y[best_a] <= 1.05 * best_b + 1e-12;
	/* Every goal but r: a pair of leases has no model to fit. */
	bool all = !(btc_fit_goals_missed(n, NAN, rho, med, max, best_a < 0 ? -1 : best) &
		     ~(1u << BTC_GOAL_R));
	char b1[32], b2[32];
	btc_outf(out, "| %s | %d | %.3f | %.3f | %s | %s | %s | %s |\n", run, n, r, rho,
		 fmt_pct(b1, sizeof(b1), n ? med : NAN), fmt_pct(b2, sizeof(b2), n ? max : NAN),
		 best_a < 0 ? "n/a" : best ? "yes" : "no", all ? "yes" : "no");
	free(x);
	free(y);
	free(e);
	return all;
}

/* One row of the machines table: both leases' best CPU-only and GPU-only
 * baselines (baseline_ms, median ms/task) and how far apart they are.
 * Appends to out; true when both lie within 5 % (the machines alike). */
static bool machine_row(const char *run, const struct btc_report *a, const struct btc_report *b,
			struct btc_out *out)
{
	double ca = baseline_ms(a, false), cb = baseline_ms(b, false);
	double ga = baseline_ms(a, true), gb = baseline_ms(b, true);
	double cpu = apart(ca, cb), gpu = apart(ga, gb);
	bool alike = !isnan(cpu) && !isnan(gpu) && cpu <= 0.05 + 1e-12 && gpu <= 0.05 + 1e-12;
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	btc_outf(out, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", run,
		 fmt_ms(b1, sizeof(b1), ca, "n/a"), fmt_ms(b2, sizeof(b2), cb, "n/a"),
		 fmt_pct(b3, sizeof(b3), cpu), fmt_ms(b4, sizeof(b4), ga, "n/a"),
		 fmt_ms(b5, sizeof(b5), gb, "n/a"), fmt_pct(b6, sizeof(b6), gpu),
		 isnan(cpu) || isnan(gpu) ? "n/a"
		 : alike                  ? "yes"
					  : "no");
	return alike;
}

bool btc_report_compare(char *const *paths, int n, FILE *md, struct btc_diag *d)
{
	if (n % 2) {
		btc_error(d, (struct btc_loc){paths[n - 1], 0, 0},
			  "--compare takes pairs of reports (A.json B.json ...): this one has no "
			  "partner");
		return false;
	}
	fprintf(md,
		"| run | A: chosen | A ms/task [95 %%] | B: chosen | B ms/task [95 %%] | ms apart %% | A's ms of B's choice | B's ms of A's choice | A speedup | B speedup | speedups apart %% | schedule within 5 %% | speedup within 10 %% | reproduced | apart on one lease %% | reproduced on one lease |\n");
	fprintf(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	bool ok = true;
	int n_pairs = 0, n_reproduced = 0, n_reproduced_one = 0, n_floor = 0;
	int n_alike = 0, n_alike_reproduced = 0;
	struct btc_out floor, machines;
	btc_out_init(&floor);
	btc_out_init(&machines);
	for (int i = 0; i + 1 < n; i += 2) {
		struct btc_report a, b;
		bool ra = btc_report_read(paths[i], &a, d);
		bool rb = btc_report_read(paths[i + 1], &b, d);
		if (!ra || !rb) {
			btc_report_free(&a);
			btc_report_free(&b);
			ok = false;
			continue;
		}
		if ((a.app && b.app && strcmp(a.app, b.app)) ||
		    (a.gpu && b.gpu && strcmp(a.gpu, b.gpu)))
			btc_warning(d, (struct btc_loc){paths[i + 1], 0, 0},
				    "compared with %s, another app or GPU API (%s %s vs %s %s)",
				    paths[i], a.app ? a.app : "?", a.gpu ? a.gpu : "?",
				    b.app ? b.app : "?", b.gpu ? b.gpu : "?");
		char run[256], ca[256], cb[256], b1[32], b2[32], b3[64], b4[64], b5[32], b6[32],
			b7[32], b8[32], sa[64], sb[64];
		btc_report_run_label(paths[i], run, sizeof(run));
		chosen_label(&a, ca, sizeof(ca));
		chosen_label(&b, cb, sizeof(cb));
		const char *la = chosen_candidate_label(&a), *lb = chosen_candidate_label(&b);
		if (la)
			snprintf(ca, sizeof(ca), "%s", la);
		if (lb)
			snprintf(cb, sizeof(cb), "%s", lb);
		bool same = a.n_chunks && b.n_chunks && !strcmp(ca, cb);
		double ms_apart = apart(a.measured_ms, b.measured_ms);
		double sp_apart = apart(a.speedup, b.speedup);
		const struct btc_report_candidate *cha = la ? &a.candidates[a.chosen] : NULL;
		const struct btc_report_candidate *chb = lb ? &b.candidates[b.chosen] : NULL;
		snprintf(b3, sizeof(b3), "%s %s", fmt_ms(b1, sizeof(b1), a.measured_ms, "n/a"),
			 cha ? fmt_ci(b5, sizeof(b5), cha->ci_low_ms, cha->ci_high_ms) : "");
		snprintf(b4, sizeof(b4), "%s %s", fmt_ms(b2, sizeof(b2), b.measured_ms, "n/a"),
			 chb ? fmt_ci(b6, sizeof(b6), chb->ci_low_ms, chb->ci_high_ms) : "");
		/* The goal (issue 18): the same schedule, or one whose measured
		 * time is within 5 % of the other's; speedups within 10 %. */
		const char *sched_goal = same                       ? "yes (same schedule)"
					 : isnan(ms_apart)          ? "n/a"
					 : ms_apart <= 0.05 + 1e-12 ? "yes"
								    : "no";
		const char *sp_goal = isnan(sp_apart)            ? "n/a"
				      : sp_apart <= 0.10 + 1e-12 ? "yes"
								 : "no";
		bool repro = sched_goal[0] == 'y' && sp_goal[0] == 'y';
		/* The same comparison of the two choices on one machine state:
		 * each lease's own time for the other's choice against its own
		 * choice, the larger gap of the leases that measured both (a
		 * lease's drift cannot make two schedules look apart). */
		double one_a = apart(a.measured_ms, measured_of(&a, lb));
		double one_b = apart(b.measured_ms, measured_of(&b, la));
		double one = isnan(one_a) ? one_b : isnan(one_b) ? one_a : fmax(one_a, one_b);
		bool repro_one = (same || (!isnan(one) && one <= 0.05 + 1e-12)) && sp_goal[0] == 'y';
		n_pairs++;
		n_reproduced += repro;
		n_reproduced_one += repro_one;
		char ab[32], ba[32], b9[32];
		fprintf(md,
			"| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			run, ca, b3, cb, b4, fmt_pct(b7, sizeof(b7), ms_apart),
			fmt_ms(ab, sizeof(ab), measured_of(&a, lb), "not built"),
			fmt_ms(ba, sizeof(ba), measured_of(&b, la), "not built"),
			fmt_speedup(sa, sizeof(sa), &a), fmt_speedup(sb, sizeof(sb), &b),
			fmt_pct(b8, sizeof(b8), sp_apart), sched_goal, sp_goal,
			repro ? "yes" : "no", same ? "0.0" : fmt_pct(b9, sizeof(b9), one),
			repro_one ? "yes" : "no");
		n_floor += repetition_row(run, &a, &b, &floor);
		bool alike = machine_row(run, &a, &b, &machines);
		n_alike += alike;
		n_alike_reproduced += alike && repro;
		btc_report_free(&a);
		btc_report_free(&b);
	}
	fprintf(md,
		"\n%d of %d pairs reproduced (the same schedule or one within 5 %%, and "
		"speedups within 10 %%).\n"
		"%d of %d judged on one lease (each lease's own time for the other's choice "
		"within 5 %% of its own choice's, where it measured both).\n",
		n_reproduced, n_pairs, n_reproduced_one, n_pairs);
	fprintf(md,
		"\nThe measurement against its repetition: lease A's median of every "
		"schedule both leases measured, taken as a prediction of lease B's and "
		"judged by the cost model's goals (rho >= 0.9, median |B/A - 1| <= 10 %%, "
		"max <= 25 %%, A's best within 5 %% of B's best in B). A model fitted to "
		"one lease cannot be expected to predict the other better.\n\n"
		"| run | n | Pearson r | Spearman rho | median abs B/A-1 %% | max abs B/A-1 %% | "
		"A's best within 5 %% in B | goals met |\n"
		"|---|---|---|---|---|---|---|---|\n");
	fputs(floor.buf ? floor.buf : "", md);
	fprintf(md, "\n%d of %d pairs' measurements meet the fit goals against each other.\n",
		n_floor, n_pairs);
	btc_out_free(&floor);
	fprintf(md,
		"\nThe machines: each lease's best CPU-only and best GPU-only baseline (median "
		"ms/task, the schedules every run measures) and how far apart they are "
		"(|a - b| / min(a, b)). A pipeline bound by a CPU chunk moves with the CPU's "
		"speed and its speedup over the GPU baseline with it, so where the CPU-only "
		"baselines lie more than 5 %% apart the leases' machines differ by more than "
		"the goal's tolerance.\n\n"
		"| run | A CPU-only ms | B CPU-only ms | apart %% | A GPU-only ms | B GPU-only ms "
		"| apart %% | machines alike (both within 5 %%) |\n"
		"|---|---|---|---|---|---|---|---|\n");
	fputs(machines.buf ? machines.buf : "", md);
	fprintf(md, "\n%d of %d pairs ran on machines alike; %d of those %d reproduced.\n", n_alike,
		n_pairs, n_alike_reproduced, n_alike);
	btc_out_free(&machines);
	return ok;
}

void btc_report_measured_text(const struct btc_report_candidate *c, char *meas, size_t n_meas,
			      char *ci, size_t n_ci)
{
	if (c->status != BTC_RUN_VERIFIED) {
		snprintf(meas, n_meas, "%s", btc_run_status_name(c->status));
		snprintf(ci, n_ci, "%s", "");
		return;
	}
	snprintf(meas, n_meas, "%.3f", c->measured_ms);
	if (!isnan(c->ci_low_ms))
		snprintf(ci, n_ci, "[%.3f, %.3f]", c->ci_low_ms, c->ci_high_ms);
	else
		snprintf(ci, n_ci, "[n/a]");
}

void btc_report_print_candidates(const struct btc_report *r, FILE *f)
{
	fprintf(f, "%-4s %-9s %-34s %12s %12s %12s %21s %4s %4s\n", "N", "kind",
		"schedule (PU:stages)", "predicted_ms", "calib_ms", "measured_ms", "95% interval",
		"runs", "rank");
	enum btc_mode m = BTC_MODE_INTERFERENCE;
	if (r->fit_mode)
		btc_mode_parse(r->fit_mode, &m);
	for (int i = 0; i < r->n_candidates; i++) {
		const struct btc_report_candidate *c = &r->candidates[i];
		char meas[32], ci[48];
		btc_report_measured_text(c, meas, sizeof(meas), ci, sizeof(ci));
		fprintf(f, "%-4d %-9s %-34s %12.3f %12.3f %12s %21s %4d %4d\n", i,
			btc_report_candidate_kind(c), c->label, c->predicted_ms[m],
			c->calibrated_loo_ms[m], meas, ci, c->runs, c->calibrated_rank);
	}
	fprintf(f,
		"(predicted_ms: the %s table; calib_ms: calibrated on the other schedules' "
		"measurements (LOO); rank: by the model calibrated on all)\n",
		btc_mode_name(m));
}
