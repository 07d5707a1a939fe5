/* For people: a heatmap of the profiling table and a timeline (Gantt
 * chart) of a pipeline run, both as standalone SVG, and tables (markdown,
 * CSV) of main-job reports read through report/result.h. */
#include "report/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/result.h"
#include "util/infile.h"
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

/* Ends o's SVG, writes it to path and frees o; false on a write error
 * (reported to d). */
static bool svg_close(struct btc_out *o, const char *path, struct btc_diag *d)
{
	btc_outl(o, "</svg>");
	bool ok = btc_out_write_file(o, path, d);
	btc_out_free(o);
	return ok;
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
	return svg_close(&o, path, d);
}

bool btc_report_gantt_svg(const char *trace_path, const char *svg_path, double window_ms,
			  struct btc_diag *d)
{
	cJSON *j = btc_read_json(trace_path, "not a trace-event JSON file", d);
	if (!j)
		return false;
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
	cJSON_Delete(j);
	return svg_close(&o, svg_path, d);
}

/* The decades (log10 ms) a log-log plot spans for data in [lo, hi] ms:
 * 0.05 decade of margin each side, and 0.1 more each side when that is
 * narrower than 0.2 decade; 0.1 .. 10 ms when there are none (lo not
 * positive, or hi below lo). */
static void svg_loglog_range(double lo, double hi, double *l0, double *l1)
{
	if (!(lo > 0) || !(hi >= lo)) {
		lo = 0.1;
		hi = 10;
	}
	*l0 = log10(lo) - 0.05;
	*l1 = log10(hi) + 0.05;
	if (*l1 - *l0 < 0.2) {
		*l0 -= 0.1;
		*l1 += 0.1;
	}
}

/* The px of v ms on a log-log plot's x and y axes, where the plot's l0, l1
 * (decades), left, top and size (px) are in scope. */
#define FX(v) (left + (log10(v) - l0) / (l1 - l0) * size)
#define FY(v) (top + size - (log10(v) - l0) / (l1 - l0) * size)

/* Starts a log-log plot's SVG in o (initialised here): left + size + right
 * px wide, top + size + 60 px high, on white; the decades for data in
 * [lo, hi] ms go to l0 and l1 (svg_loglog_range). */
static void svg_loglog_open(struct btc_out *o, double lo, double hi, double left, double top,
			    double size, double right, double *l0, double *l1)
{
	svg_loglog_range(lo, hi, l0, l1);
	btc_out_init(o);
	btc_outl(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">",
		 (int)(left + size + right), (int)(top + size + 60));
	btc_outl(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>");
}

/* The frame of a log-log plot: a square of `size` px at (left, top) whose
 * axes both span 10^l0 .. 10^l1 (ms): light grid lines at 1..9 x each
 * decade, labels at 1, 2 and 5. Appends to o. */
static void svg_loglog_frame(struct btc_out *o, double left, double top, double size, double l0,
			     double l1)
{
	btc_outl(
		o,
		"<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>",
		left, top, size, size);
	for (int e = (int)floor(l0); e <= (int)ceil(l1); e++)
		for (int k = 1; k < 10; k++) {
			double v = k * pow(10, e);
			if (log10(v) < l0 || log10(v) > l1)
				continue;
			char t[32];
			snprintf(t, sizeof(t), "%g", v);
			btc_outl(
				o,
				"<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#eee\"/>",
				FX(v), top, FX(v), top + size);
			btc_outl(
				o,
				"<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>",
				left, FY(v), left + size, FY(v));
			if (k == 1 || k == 2 || k == 5) {
				svg_text(o, FX(v), top + size + 16, "middle", 11, t);
				svg_text(o, left - 6, FY(v) + 4, "end", 11, t);
			}
		}
}

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
	double l0, l1;
	const double left = 70, top = 50, size = 460;
	struct btc_out o;
	svg_loglog_open(&o, lo, hi, left, top, size, 230, &l0, &l1);
	char title[256];
	snprintf(title, sizeof(title),
		 "%s on %s: predicted vs measured ms/task (median, 95%% interval)",
		 r->app ? r->app : "?", r->device ? r->device : "?");
	svg_text(&o, 10, 24, "start", 15, title);
	svg_loglog_frame(&o, left, top, size, l0, l1);
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
	return svg_close(&o, path, d);
}

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
				      "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
				      "#bcbd22", "#17becf", "#393b79", "#ad494a"};
#define N_PALETTE ((int)(sizeof(palette) / sizeof(palette[0])))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The calibrated LOO prediction of c under r's fit mode; NAN if none. */
static double loo_ms(const struct btc_report *r, const struct btc_report_candidate *c)
{
	enum btc_mode m;
	if (!r->fit_mode || !btc_mode_parse(r->fit_mode, &m))
		return NAN;
	return c->calibrated_loo_ms[m];
}

static bool scatter_point(const struct btc_report *r, const struct btc_report_candidate *c)
{
	double x = loo_ms(r, c);
	return c->status == BTC_RUN_VERIFIED && !isnan(x) && x > 0 && !isnan(c->measured_ms) &&
	       c->measured_ms > 0;
}

/* Frees the n reports rs read for a plot, and read (their flags). */
static void reports_free(struct btc_report *rs, int n, bool *read)
{
	for (int i = 0; i < n; i++)
		btc_report_free(&rs[i]);
	free(rs);
	free(read);
}

bool btc_report_scatter_svg(char *const *paths, int n, const char *path, struct btc_diag *d)
{
	struct btc_report *rs = calloc((size_t)(n ? n : 1), sizeof(*rs));
	bool *read = calloc((size_t)(n ? n : 1), sizeof(*read));
	double lo = INFINITY, hi = 0, *err = NULL;
	int n_err = 0, cap = 0;
	bool ok = true;
	for (int i = 0; i < n; i++) {
		read[i] = btc_report_read(paths[i], &rs[i], d);
		ok = ok && read[i];
		for (int k = 0; read[i] && k < rs[i].n_candidates; k++) {
			const struct btc_report_candidate *c = &rs[i].candidates[k];
			if (!scatter_point(&rs[i], c))
				continue;
			double x = loo_ms(&rs[i], c);
			lo = fmin(lo, fmin(x, isnan(c->ci_low_ms) ? c->measured_ms : c->ci_low_ms));
			hi = fmax(hi,
				  fmax(x, isnan(c->ci_high_ms) ? c->measured_ms : c->ci_high_ms));
			if (n_err == cap) {
				cap = cap ? 2 * cap : 64;
				err = btc_xrealloc(err, (size_t)cap * sizeof(*err));
			}
			err[n_err++] = fabs(c->measured_ms / x - 1);
		}
	}
	double l0, l1;
	const double left = 70, top = 60, size = 520;
	struct btc_out o;
	svg_loglog_open(&o, lo, hi, left, top, size, 260, &l0, &l1);
	svg_text(&o, 10, 22, "start", 15,
		 "measured vs predicted ms/task: each run's fit mode, calibrated leave-one-out");
	char sub[160] = "no verified schedule with a calibrated prediction";
	if (n_err) {
		qsort(err, (size_t)n_err, sizeof(*err), cmp_double);
		double med = n_err % 2 ? err[n_err / 2] : (err[n_err / 2 - 1] + err[n_err / 2]) / 2;
		snprintf(sub, sizeof(sub),
			 "%d schedules of %d runs: |measured/predicted - 1| median %.1f %%, max "
			 "%.1f %%",
			 n_err, n, 100 * med, 100 * err[n_err - 1]);
	}
	svg_text(&o, 10, 42, "start", 12, sub);
	svg_loglog_frame(&o, left, top, size, l0, l1);
	/* y = x, and y = x (1 +- 10 %) dotted. */
	btc_outl(
		&o,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" stroke-dasharray=\"4 3\"/>",
		FX(pow(10, l0)), FY(pow(10, l0)), FX(pow(10, l1)), FY(pow(10, l1)));
	for (int s = -1; s <= 1; s += 2) {
		double f = 1 + 0.1 * s;
		btc_outl(
			&o,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"1 3\"/>",
			FX(pow(10, l0)), FY(pow(10, l0) * f), FX(pow(10, l1)), FY(pow(10, l1) * f));
	}
	btc_outl(&o,
		 "<clipPath id=\"plot\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
		 "height=\"%.0f\"/></clipPath>",
		 left, top, size, size);
	svg_text(&o, left + size / 2, top + size + 36, "middle", 13,
		 "predicted ms/task (calibrated, LOO)");
	btc_outl(&o,
		 "<text x=\"16\" y=\"%.0f\" font-size=\"13\" font-family=\"sans-serif\" "
		 "text-anchor=\"middle\" transform=\"rotate(-90 16 %.0f)\">measured ms/task</text>",
		 top + size / 2, top + size / 2);
	int n_legend = 0;
	for (int i = 0; i < n; i++) {
		if (!read[i])
			continue;
		const char *colour = palette[i % N_PALETTE];
		int style = (i / N_PALETTE) % 3, any = 0;
		btc_outl(&o, "<g clip-path=\"url(#plot)\">");
		for (int k = 0; k < rs[i].n_candidates; k++) {
			const struct btc_report_candidate *c = &rs[i].candidates[k];
			if (!scatter_point(&rs[i], c))
				continue;
			double x = loo_ms(&rs[i], c);
			any = 1;
			if (!isnan(c->ci_low_ms) && !isnan(c->ci_high_ms) && c->ci_low_ms > 0)
				btc_outl(
					&o,
					"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
					FX(x), FY(c->ci_low_ms), FX(x), FY(c->ci_high_ms), colour);
			marker(&o, style, FX(x), FY(c->measured_ms), colour);
		}
		btc_outl(&o, "</g>");
		if (!any)
			continue;
		char label[300], run[256];
		btc_report_run_label(paths[i], run, sizeof(run));
		snprintf(label, sizeof(label), "%s (%s)", run,
			 rs[i].fit_mode ? rs[i].fit_mode : "?");
		double ly = top + 10 + 20 * n_legend++;
		marker(&o, style, left + size + 20, ly, colour);
		svg_text(&o, left + size + 32, ly + 4, "start", 12, label);
	}
	svg_text(&o, left + size + 14, top + 10 + 20 * n_legend + 8, "start", 11,
		 "dashed: y = x; dotted: +-10 %");
	ok = svg_close(&o, path, d) && ok;
	reports_free(rs, n, read);
	free(err);
	return ok;
}

bool btc_report_speedup_svg(char *const *paths, int n, const char *path, struct btc_diag *d)
{
	struct btc_report *rs = calloc((size_t)(n ? n : 1), sizeof(*rs));
	bool *read = calloc((size_t)(n ? n : 1), sizeof(*read));
	bool ok = true;
	double hi = 1.0;
	for (int i = 0; i < n; i++) {
		read[i] = btc_report_read(paths[i], &rs[i], d);
		ok = ok && read[i];
		if (!read[i])
			continue;
		const struct btc_report *r = &rs[i];
		if (!isnan(r->speedup))
			hi = fmax(hi, isnan(r->speedup_ci_high) ? r->speedup : r->speedup_ci_high);
		if (!isnan(r->best_baseline_ms) && r->fluid_bound_ms > 0)
			hi = fmax(hi, r->best_baseline_ms / r->fluid_bound_ms);
	}
	hi = ceil(hi * 2 + 0.2) / 2; /* to the next 0.5 */
	const double left = 60, top = 50, height = 360, bar = 36, gap = 18, bottom = 150;
	double width = left + (bar + gap) * (n ? n : 1) + 40;
#define BY(v) (top + height - (v) / hi * height)
	struct btc_out o;
	btc_out_init(&o);
	btc_outl(&o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">",
		 (int)fmax(width, 560), (int)(top + height + bottom));
	btc_outl(&o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>");
	svg_text(&o, 10, 22, "start", 15,
		 "speedup over the best baseline (median, 95% interval); tick: best baseline / "
		 "fluid bound");
	for (double v = 0; v <= hi + 1e-9; v += 0.5) {
		char t[16];
		snprintf(t, sizeof(t), "%.1f", v);
		btc_outl(&o,
			 "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"%s\"/>",
			 left, BY(v), width - 20, BY(v), v == 1.0 ? "black" : "#eee");
		svg_text(&o, left - 6, BY(v) + 4, "end", 11, t);
	}
	for (int i = 0; i < n; i++) {
		if (!read[i])
			continue;
		const struct btc_report *r = &rs[i];
		double x = left + gap / 2 + (bar + gap) * i;
		const char *colour = palette[i % N_PALETTE];
		if (!isnan(r->speedup))
			btc_outl(
				&o,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.7\"/>",
				x, BY(r->speedup), bar, BY(0) - BY(r->speedup), colour);
		if (!isnan(r->speedup_ci_low) && !isnan(r->speedup_ci_high))
			btc_outl(
				&o,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" stroke-width=\"1.5\"/>",
				x + bar / 2, BY(r->speedup_ci_low), x + bar / 2,
				BY(r->speedup_ci_high));
		if (!isnan(r->best_baseline_ms) && r->fluid_bound_ms > 0) {
			double b = r->best_baseline_ms / r->fluid_bound_ms;
			btc_outl(
				&o,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-width=\"2\"/>",
				x - 3, BY(b), x + bar + 3, BY(b));
		}
		char run[256], t[32];
		btc_report_run_label(paths[i], run, sizeof(run));
		snprintf(t, sizeof(t), isnan(r->speedup) ? "n/a" : "%.2f", r->speedup);
		svg_text(&o, x + bar / 2, BY(0) - 4, "middle", 10, t);
		btc_outl(&o,
			 "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" font-family=\"sans-serif\" "
			 "text-anchor=\"end\" transform=\"rotate(-60 %.1f %.1f)\">",
			 x + bar / 2, BY(0) + 12, x + bar / 2, BY(0) + 12);
		btc_out_puts(&o, run);
		btc_outl(&o, "</text>");
	}
#undef BY
	ok = svg_close(&o, path, d) && ok;
	reports_free(rs, n, read);
	return ok;
}

#undef FX
#undef FY
