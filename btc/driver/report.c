/* For people: a heatmap of the profiling table and a timeline (Gantt
 * chart) of a pipeline run, both as standalone SVG, and tables (markdown,
 * CSV) of main-job reports read through driver/result.h. */
#include "driver/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/result.h"
#include "util/out.h"

static void svg_text(struct btc_out *o, double x, double y, const char *anchor, int size,
		     const char *text)
{
	btc_outf(
		o,
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\" font-family=\"sans-serif\">",
		x, y, size, anchor);
	for (const char *p = text; *p; p++) {
		if (*p == '<')
			btc_out_puts(o, "&lt;");
		else if (*p == '&')
			btc_out_puts(o, "&amp;");
		else if (*p == '>')
			btc_out_puts(o, "&gt;");
		else
			btc_outf(o, "%c", *p);
	}
	btc_out_puts(o, "</text>\n");
}

bool btc_report_heatmap_svg(const struct btc_table *t, const struct btc_app *app,
			    const struct btc_device *dev, enum btc_mode mode, const char *path,
			    struct btc_diag *d)
{
	const int cw = 110, ch = 28, left = 150, top = 60;
	int w = left + cw * dev->n_pus + 20, h = top + ch * app->n_stages + 40;
	double lo = INFINITY, hi = 0;
	for (int s = 0; s < app->n_stages; s++)
		for (int p = 0; p < dev->n_pus; p++) {
			const struct btc_table_entry *e = btc_table_at(t, mode, s, p);
			if (e->present && e->mean_ms > 0) {
				lo = fmin(lo, log10(e->mean_ms));
				hi = fmax(hi, log10(e->mean_ms));
			}
		}
	struct btc_out o;
	btc_out_init(&o);
	btc_outl(&o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">", w, h);
	btc_outl(&o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>");
	char title[256];
	snprintf(title, sizeof(title), "%s on %s: ms per stage (%s)", app->name, dev->name,
		 btc_mode_name(mode));
	svg_text(&o, 10, 24, "start", 16, title);
	for (int p = 0; p < dev->n_pus; p++)
		svg_text(&o, left + cw * p + cw / 2.0, top - 8, "middle", 13, dev->pus[p].name);
	for (int s = 0; s < app->n_stages; s++) {
		svg_text(&o, left - 8, top + ch * s + ch * 0.65, "end", 13, app->stages[s].name);
		for (int p = 0; p < dev->n_pus; p++) {
			const struct btc_table_entry *e = btc_table_at(t, mode, s, p);
			double x = left + cw * p, y = top + ch * s;
			if (!e->present || !btc_stage_has(&app->stages[s], dev->pus[p].kind)) {
				btc_outl(
					&o,
					"<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"#eee\" stroke=\"white\"/>",
					x, y, cw, ch);
				continue;
			}
			/* Log scale: fast (green) to slow (red). */
			double f = hi > lo ? (log10(fmax(e->mean_ms, 1e-9)) - lo) / (hi - lo) : 0;
			int r = (int)(60 + 195 * f), g = (int)(200 - 140 * f), b = 80;
			btc_outl(
				&o,
				"<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" stroke=\"white\"/>",
				x, y, cw, ch, r, g, b);
			char v[32];
			snprintf(v, sizeof(v), "%.3f", e->mean_ms);
			svg_text(&o, x + cw / 2.0, y + ch * 0.65, "middle", 12, v);
		}
	}
	btc_outl(&o, "</svg>");
	bool ok = btc_out_write_file(&o, path, d);
	btc_out_free(&o);
	return ok;
}

bool btc_report_gantt_svg(const char *trace_path, const char *svg_path, double window_ms,
			  struct btc_diag *d)
{
	char *text = btc_read_file(trace_path, NULL);
	cJSON *j = text ? cJSON_Parse(text) : NULL;
	free(text);
	const cJSON *events = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
	if (!cJSON_IsArray(events)) {
		btc_error(d, (struct btc_loc){trace_path, 0, 0}, "not a trace-event JSON file");
		cJSON_Delete(j);
		return false;
	}
	/* Tracks: thread ids with names, in sort-index order of appearance. */
	int tids[64], n_tracks = 0;
	const char *names[64];
	double t_end = 0, t_start = INFINITY;
	const cJSON *e;
	cJSON_ArrayForEach (e, events) {
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
		const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
		if (!cJSON_IsString(ph) || !cJSON_IsNumber(tid))
			continue;
		if (!strcmp(ph->valuestring, "M") && cJSON_IsString(nm) &&
		    !strcmp(nm->valuestring, "thread_name") && n_tracks < 64) {
			const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
			const cJSON *tn = cJSON_GetObjectItemCaseSensitive(args, "name");
			tids[n_tracks] = tid->valueint;
			names[n_tracks++] = cJSON_IsString(tn) ? tn->valuestring : "?";
		} else if (!strcmp(ph->valuestring, "X")) {
			double ts = cJSON_GetObjectItemCaseSensitive(e, "ts")->valuedouble;
			double dur = cJSON_GetObjectItemCaseSensitive(e, "dur")->valuedouble;
			t_start = fmin(t_start, ts);
			t_end = fmax(t_end, ts + dur);
		}
	}
	/* Show the last window_ms of the run: the steady state. */
	double from = window_ms > 0 ? fmax(t_start, t_end - window_ms * 1000) : t_start;
	const int left = 170, row = 26, top = 50, width = 1100;
	double scale = (width - left - 20) / fmax(t_end - from, 1);
	struct btc_out o;
	btc_out_init(&o);
	btc_outl(&o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">", width,
		 top + row * n_tracks + 40);
	btc_outl(&o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>");
	char title[128];
	snprintf(title, sizeof(title), "pipeline timeline: last %.1f ms (task colour = task id)",
		 (t_end - from) / 1000);
	svg_text(&o, 10, 24, "start", 15, title);
	for (int k = 0; k < n_tracks; k++)
		svg_text(&o, left - 8, top + row * k + row * 0.65, "end", 12, names[k]);
	cJSON_ArrayForEach (e, events) {
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
		if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "X"))
			continue;
		int tid = cJSON_GetObjectItemCaseSensitive(e, "tid")->valueint;
		double ts = cJSON_GetObjectItemCaseSensitive(e, "ts")->valuedouble;
		double dur = cJSON_GetObjectItemCaseSensitive(e, "dur")->valuedouble;
		if (ts + dur < from)
			continue;
		int k;
		for (k = 0; k < n_tracks && tids[k] != tid; k++)
			;
		if (k == n_tracks)
			continue;
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		const cJSON *seq = cJSON_GetObjectItemCaseSensitive(args, "seq");
		int hue = cJSON_IsNumber(seq) ? (seq->valueint * 47) % 360 : 0;
		double x = left + (fmax(ts, from) - from) * scale;
		btc_outl(
			&o,
			"<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"hsl(%d,65%%,55%%)\" stroke=\"black\" stroke-width=\"0.3\"/>",
			x, top + row * k + 3, fmax((ts + dur - fmax(ts, from)) * scale, 0.5),
			row - 6, hue);
	}
	btc_outl(&o, "</svg>");
	cJSON_Delete(j);
	bool ok = btc_out_write_file(&o, svg_path, d);
	btc_out_free(&o);
	return ok;
}

/* One model's series in fit.svg: which prediction of a candidate, and
 * its marker. */
static double fit_x(const struct btc_report_candidate *c, int series, int mode)
{
	return series == 0 ? c->predicted_ms[mode] : c->calibrated_loo_ms[mode];
}

static void marker(struct btc_out *o, int style, double x, double y, const char *colour)
{
	if (style == 0)
		btc_outl(
			o,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>",
			x, y, colour);
	else if (style == 1)
		btc_outl(
			o,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>",
			x - 4, y - 4, colour);
	else
		btc_outl(
			o,
			"<path d=\"M%.1f %.1f l5 8 h-10 z\" fill=\"%s\" fill-opacity=\"0.6\" stroke=\"%s\"/>",
			x, y - 5, colour, colour);
}

bool btc_report_fit_svg(const struct btc_report *r, const char *path, struct btc_diag *d)
{
	/* Series: each table mode uncalibrated (circle, square), and the fit
	 * mode calibrated LOO (triangle). Log-log axes. */
	static const char *const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c"};
	enum btc_mode fit_mode = BTC_MODE_INTERFERENCE;
	bool calibrated = r->fit_mode && btc_mode_parse(r->fit_mode, &fit_mode);
	double lo = INFINITY, hi = 0;
	for (int i = 0; i < r->n_candidates; i++) {
		const struct btc_report_candidate *c = &r->candidates[i];
		if (c->status != BTC_RUN_VERIFIED || isnan(c->measured_ms))
			continue;
		lo = fmin(lo, isnan(c->ci_low_ms) ? c->measured_ms : c->ci_low_ms);
		hi = fmax(hi, isnan(c->ci_high_ms) ? c->measured_ms : c->ci_high_ms);
		for (int m = 0; m < BTC_N_MODES; m++)
			for (int sr = 0; sr < 2; sr++) {
				double x = fit_x(c, sr, m);
				if (!isnan(x) && x > 0) {
					lo = fmin(lo, x);
					hi = fmax(hi, x);
				}
			}
	}
	if (!(lo > 0) || !(hi >= lo)) {
		lo = 0.1;
		hi = 10;
	}
	double l0 = log10(lo) - 0.05, l1 = log10(hi) + 0.05;
	if (l1 - l0 < 0.2) {
		l0 -= 0.1;
		l1 += 0.1;
	}
	const double left = 70, top = 50, size = 460;
#define FX(v) (left + (log10(v) - l0) / (l1 - l0) * size)
#define FY(v) (top + size - (log10(v) - l0) / (l1 - l0) * size)
	struct btc_out o;
	btc_out_init(&o);
	btc_outl(&o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">",
		 (int)(left + size + 230), (int)(top + size + 60));
	btc_outl(&o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>");
	char title[256];
	snprintf(title, sizeof(title),
		 "%s on %s: predicted vs measured ms/task (median, 95%% interval)",
		 r->app ? r->app : "?", r->device ? r->device : "?");
	svg_text(&o, 10, 24, "start", 15, title);
	btc_outl(
		&o,
		"<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>",
		left, top, size, size);
	/* Decade ticks. */
	for (int e = (int)floor(l0); e <= (int)ceil(l1); e++)
		for (int k = 1; k < 10; k++) {
			double v = k * pow(10, e);
			if (log10(v) < l0 || log10(v) > l1)
				continue;
			char t[32];
			snprintf(t, sizeof(t), "%g", v);
			btc_outl(
				&o,
				"<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#eee\"/>",
				FX(v), top, FX(v), top + size);
			btc_outl(
				&o,
				"<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>",
				left, FY(v), left + size, FY(v));
			if (k == 1 || k == 2 || k == 5) {
				svg_text(&o, FX(v), top + size + 16, "middle", 11, t);
				svg_text(&o, left - 6, FY(v) + 4, "end", 11, t);
			}
		}
	btc_outl(
		&o,
		"<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\" stroke-dasharray=\"4 3\"/>",
		left, top + size, left + size, top);
	svg_text(&o, left + size / 2, top + size + 36, "middle", 13, "predicted ms/task");
	btc_outl(&o,
		 "<text x=\"16\" y=\"%.0f\" font-size=\"13\" font-family=\"sans-serif\" "
		 "text-anchor=\"middle\" transform=\"rotate(-90 16 %.0f)\">measured ms/task</text>",
		 top + size / 2, top + size / 2);
	int n_series = 0;
	for (int m = 0; m < BTC_N_MODES; m++)
		for (int sr = 0; sr < 2; sr++) {
			if (sr == 1 && (!calibrated || m != (int)fit_mode))
				continue;
			int style = sr == 1 ? 2 : m % 2, any = 0;
			const char *colour = colours[sr == 1 ? 2 : m % 2];
			for (int i = 0; i < r->n_candidates; i++) {
				const struct btc_report_candidate *c = &r->candidates[i];
				double x = fit_x(c, sr, m), y = c->measured_ms;
				if (c->status != BTC_RUN_VERIFIED || isnan(x) || x <= 0 ||
				    isnan(y) || y <= 0)
					continue;
				any = 1;
				if (!isnan(c->ci_low_ms) && !isnan(c->ci_high_ms) &&
				    c->ci_low_ms > 0)
					btc_outl(
						&o,
						"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
						FX(x), FY(c->ci_low_ms), FX(x), FY(c->ci_high_ms),
						colour);
				marker(&o, style, FX(x), FY(y), colour);
			}
			if (!any)
				continue;
			char name[64];
			snprintf(name, sizeof(name), "%s%s%s", sr ? "calibrated " : "",
				 btc_mode_name((enum btc_mode)m), sr ? " (LOO)" : "");
			double ly = top + 10 + 22 * n_series++;
			marker(&o, style, left + size + 20, ly, colour);
			svg_text(&o, left + size + 32, ly + 4, "start", 12, name);
		}
	svg_text(&o, left + size + 14, top + 10 + 22 * n_series + 8, "start", 11, "dashed: y = x");
#undef FX
#undef FY
	btc_outl(&o, "</svg>");
	bool ok = btc_out_write_file(&o, path, d);
	btc_out_free(&o);
	return ok;
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

/* The fit table: one row per report and model, markdown into fit_md
 * (a buffer printed after the main table) and CSV. */
static void fit_rows(const char *path, const struct btc_report *r, struct btc_out *fit_md,
		     FILE *fit_csv)
{
	for (int k = 0; k < r->n_fit_models; k++) {
		const struct btc_report_fit_model *m = &r->fit_models[k];
		char b1[32], b2[32], b3[32], b4[32];
		const char *best = m->best_within_5pct < 0 ? "n/a"
				   : m->best_within_5pct   ? "yes"
							   : "no";
		bool picked = m->calibrated && r->fit_mode && m->mode &&
			      !strcmp(m->mode, r->fit_mode);
		char b5[32], b6[32];
		btc_outl(fit_md, "| %s | %s | %s%s | %d | %s | %s | %s | %s | %s | %s | %s |",
			 r->app ? r->app : "", r->device ? r->device : "", m->name ? m->name : "",
			 picked ? " *" : "", m->n, fmt_ms(b1, sizeof(b1), m->pearson_r, "n/a"),
			 fmt_ms(b2, sizeof(b2), m->spearman_rho, "n/a"),
			 fmt_pct(b3, sizeof(b3), m->median_abs_rel_err),
			 fmt_pct(b4, sizeof(b4), m->max_abs_rel_err), best,
			 fmt_ms(b5, sizeof(b5), m->pearson_r_candidates, "n/a"),
			 fmt_ms(b6, sizeof(b6), m->spearman_rho_candidates, "n/a"));
		if (fit_csv)
			fprintf(fit_csv,
				"%s,%s,%s,%s,\"%s\",%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%s,%.4f,%.4f\n",
				path, r->app ? r->app : "", r->gpu ? r->gpu : "",
				r->device ? r->device : "", m->name ? m->name : "",
				m->mode ? m->mode : "",
				m->calibrated ? (picked ? "picked" : "true") : "false", m->n,
				m->pearson_r, m->spearman_rho, m->median_abs_rel_err,
				m->max_abs_rel_err,
				m->best_within_5pct < 0 ? ""
				: m->best_within_5pct   ? "true"
							: "false",
				m->pearson_r_candidates, m->spearman_rho_candidates);
	}
}

bool btc_report_tables(char *const *paths, int n, FILE *md, FILE *csv, FILE *cand_csv,
		       FILE *fit_csv, struct btc_diag *d)
{
	struct btc_out fit_md;
	btc_out_init(&fit_md);
	if (fit_csv)
		fprintf(fit_csv,
			"report,app,gpu,device,model,mode,calibrated,n,pearson_r,spearman_rho,median_abs_rel_err,max_abs_rel_err,best_within_5pct,pearson_r_candidates,spearman_rho_candidates\n");
	fprintf(md,
		"| app | GPU API | chosen schedule | ms/task | predicted ms | best baseline | baseline ms/task | speedup | fluid bound ms | efficiency %% | Pearson r (isolated) | Pearson r (interference) | profile s | tune s | verified |\n");
	fprintf(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	if (csv)
		fprintf(csv,
			"app,gpu,device,chosen,measured_ms,predicted_ms,baselines,best_baseline,best_baseline_ms,speedup,pearson_r_isolated,pearson_r_interference,profile_s,schedule_s,build_s,tune_s,run_s,verified,failed_schedules,speedup_ci_low,speedup_ci_high,no_significant_gain,fit_mode,fluid_bound_ms,efficiency\n");
	if (cand_csv)
		fprintf(cand_csv,
			"app,gpu,index,kind,label,predicted_isolated_ms,predicted_interference_ms,calibrated_loo_isolated_ms,calibrated_loo_interference_ms,measured_ms,measured_ci_low_ms,measured_ci_high_ms,runs,tasks,rounds,status,efficiency\n");
	bool ok = true;
	for (int i = 0; i < n; i++) {
		struct btc_report r;
		if (!btc_report_read(paths[i], &r, d)) {
			btc_report_free(&r);
			ok = false;
			continue;
		}
		const char *app = r.app ? r.app : "", *gpu = r.gpu ? r.gpu : "";
		char chosen[256] = "";
		for (int c = 0; c < r.n_chunks; c++) {
			size_t len = strlen(chosen);
			snprintf(chosen + len, sizeof(chosen) - len, "%s%s:%d-%d", len ? " " : "",
				 r.chunks[c].pu ? r.chunks[c].pu : "?", r.chunks[c].first_stage,
				 r.chunks[c].last_stage);
		}
		if (!r.n_chunks)
			snprintf(chosen, sizeof(chosen), "none verified");
		char bases[256] = "", b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
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
		char speedup[64] = "n/a";
		if (!isnan(r.speedup) && !isnan(r.speedup_ci_low))
			snprintf(speedup, sizeof(speedup), "%.2fx [%.2f, %.2f]", r.speedup,
				 r.speedup_ci_low, r.speedup_ci_high);
		else if (!isnan(r.speedup))
			snprintf(speedup, sizeof(speedup), "%.2fx%s", r.speedup,
				 r.no_significant_gain ? " (no significant gain)" : "");
		const char *verified = r.verified          ? "yes"
				       : r.chosen_verified ? "chosen only"
							   : "no";
		fprintf(md,
			"| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %.3f | %.1f | %.1f | %s |\n",
			app, gpu, chosen, fmt_ms(b1, sizeof(b1), r.measured_ms, "n/a"),
			fmt_ms(b2, sizeof(b2), r.predicted_ms, "nan"), best,
			fmt_ms(b3, sizeof(b3), r.best_baseline_ms, "n/a"), speedup,
			fmt_ms(b5, sizeof(b5), r.fluid_bound_ms, "n/a"),
			fmt_pct(b6, sizeof(b6), r.efficiency),
			r.pearson_r[BTC_MODE_ISOLATED], r.pearson_r[BTC_MODE_INTERFERENCE],
			r.phases_s[0], r.phases_s[3], verified);
		if (csv) {
			snprintf(b4, sizeof(b4), isnan(r.speedup) ? "" : "%.4f", r.speedup);
			fprintf(csv,
				"%s,%s,%s,%s,%.6f,%.6f,%s,%s,%.6f,%s,%.4f,%.4f,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%d,%.4f,%.4f,%s,%s,%.6f,%.4f\n",
				app, gpu, r.device ? r.device : "", r.n_chunks ? chosen : "",
				r.measured_ms, r.predicted_ms, bases, best, r.best_baseline_ms, b4,
				r.pearson_r[BTC_MODE_ISOLATED], r.pearson_r[BTC_MODE_INTERFERENCE],
				r.phases_s[0], r.phases_s[1], r.phases_s[2], r.phases_s[3],
				r.phases_s[4], r.verified ? "true" : "false", r.n_failed,
				r.speedup_ci_low, r.speedup_ci_high,
				r.no_significant_gain ? "true" : "false",
				r.fit_mode ? r.fit_mode : "", r.fluid_bound_ms, r.efficiency);
		}
		for (int k = 0; cand_csv && k < r.n_candidates; k++) {
			const struct btc_report_candidate *c = &r.candidates[k];
			fprintf(cand_csv,
				"%s,%s,%d,%s,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%d,%d,%s,%.4f\n",
				app, gpu, c->index, c->baseline ? "baseline" : "candidate",
				c->label ? c->label : "", c->predicted_ms[BTC_MODE_ISOLATED],
				c->predicted_ms[BTC_MODE_INTERFERENCE],
				c->calibrated_loo_ms[BTC_MODE_ISOLATED],
				c->calibrated_loo_ms[BTC_MODE_INTERFERENCE], c->measured_ms,
				c->ci_low_ms, c->ci_high_ms, c->runs, c->tasks, c->rounds,
				btc_run_status_name(c->status), c->efficiency);
		}
		fit_rows(paths[i], &r, &fit_md, fit_csv);
		btc_report_free(&r);
	}
	if (fit_md.len) {
		fprintf(md,
			"\n| app | device | model (* the fit mode) | n | Pearson r | Spearman rho | median abs err %% | max abs err %% | best within 5 %% | Pearson r (candidates) | Spearman rho (candidates) |\n");
		fprintf(md, "|---|---|---|---|---|---|---|---|---|---|---|\n");
		fputs(fit_md.buf, md);
	}
	btc_out_free(&fit_md);
	return ok;
}
