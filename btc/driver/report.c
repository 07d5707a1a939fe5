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

static void svg_text(struct btc_out *o, double x, double y, const char *anchor,
		     int size, const char *text)
{
	btc_outf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\" font-family=\"sans-serif\">",
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
			    const struct btc_device *dev, enum btc_mode mode,
			    const char *path, struct btc_diag *d)
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
				btc_outl(&o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"#eee\" stroke=\"white\"/>",
					 x, y, cw, ch);
				continue;
			}
			/* Log scale: fast (green) to slow (red). */
			double f = hi > lo ? (log10(fmax(e->mean_ms, 1e-9)) - lo) / (hi - lo) : 0;
			int r = (int)(60 + 195 * f), g = (int)(200 - 140 * f), b = 80;
			btc_outl(&o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" stroke=\"white\"/>",
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

bool btc_report_gantt_svg(const char *trace_path, const char *svg_path,
			  double window_ms, struct btc_diag *d)
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
	cJSON_ArrayForEach(e, events) {
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
	cJSON_ArrayForEach(e, events) {
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
		btc_outl(&o, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"hsl(%d,65%%,55%%)\" stroke=\"black\" stroke-width=\"0.3\"/>",
			 x, top + row * k + 3, fmax((ts + dur - fmax(ts, from)) * scale, 0.5),
			 row - 6, hue);
	}
	btc_outl(&o, "</svg>");
	cJSON_Delete(j);
	bool ok = btc_out_write_file(&o, svg_path, d);
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

bool btc_report_tables(char *const *paths, int n, FILE *md, FILE *csv,
		       FILE *cand_csv, struct btc_diag *d)
{
	fprintf(md, "| app | GPU API | chosen schedule | ms/task | predicted ms | best baseline | baseline ms/task | speedup | Pearson r (isolated) | Pearson r (interference) | profile s | tune s | verified |\n");
	fprintf(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	if (csv)
		fprintf(csv, "app,gpu,device,chosen,measured_ms,predicted_ms,baselines,best_baseline,best_baseline_ms,speedup,pearson_r_isolated,pearson_r_interference,profile_s,schedule_s,build_s,tune_s,run_s,verified,failed_schedules\n");
	if (cand_csv)
		fprintf(cand_csv, "app,gpu,index,kind,label,predicted_isolated_ms,predicted_interference_ms,measured_ms,tasks,rounds,status\n");
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
		char bases[256] = "", b1[32], b2[32], b3[32], b4[32];
		for (int k = 0; k < r.n_candidates; k++) {
			const struct btc_report_candidate *c = &r.candidates[k];
			if (!c->baseline)
				continue;
			size_t len = strlen(bases);
			snprintf(bases + len, sizeof(bases) - len, "%s%s=%s", len ? " " : "",
				 c->pu ? c->pu : "?",
				 c->status == BTC_RUN_VERIFIED ? fmt_ms(b1, sizeof(b1), c->measured_ms, "nan")
							       : btc_run_status_name(c->status));
		}
		const char *best = r.best_baseline >= 0 && r.candidates[r.best_baseline].pu
					   ? r.candidates[r.best_baseline].pu : "";
		char speedup[32] = "n/a";
		if (!isnan(r.speedup))
			snprintf(speedup, sizeof(speedup), "%.2fx", r.speedup);
		const char *verified = r.verified ? "yes"
				       : r.chosen_verified ? "chosen only" : "no";
		fprintf(md, "| %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %.3f | %.1f | %.1f | %s |\n",
			app, gpu, chosen, fmt_ms(b1, sizeof(b1), r.measured_ms, "n/a"),
			fmt_ms(b2, sizeof(b2), r.predicted_ms, "nan"), best,
			fmt_ms(b3, sizeof(b3), r.best_baseline_ms, "n/a"), speedup,
			r.pearson_r[BTC_MODE_ISOLATED], r.pearson_r[BTC_MODE_INTERFERENCE],
			r.phases_s[0], r.phases_s[3], verified);
		if (csv) {
			snprintf(b4, sizeof(b4), isnan(r.speedup) ? "" : "%.4f", r.speedup);
			fprintf(csv, "%s,%s,%s,%s,%.6f,%.6f,%s,%s,%.6f,%s,%.4f,%.4f,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%d\n",
				app, gpu, r.device ? r.device : "", r.n_chunks ? chosen : "",
				r.measured_ms, r.predicted_ms, bases, best, r.best_baseline_ms, b4,
				r.pearson_r[BTC_MODE_ISOLATED], r.pearson_r[BTC_MODE_INTERFERENCE],
				r.phases_s[0], r.phases_s[1], r.phases_s[2], r.phases_s[3],
				r.phases_s[4], r.verified ? "true" : "false", r.n_failed);
		}
		for (int k = 0; cand_csv && k < r.n_candidates; k++) {
			const struct btc_report_candidate *c = &r.candidates[k];
			fprintf(cand_csv, "%s,%s,%d,%s,%s,%.6f,%.6f,%.6f,%d,%d,%s\n", app, gpu,
				c->index, c->baseline ? "baseline" : "candidate",
				c->label ? c->label : "", c->predicted_ms[BTC_MODE_ISOLATED],
				c->predicted_ms[BTC_MODE_INTERFERENCE], c->measured_ms, c->tasks,
				c->rounds, btc_run_status_name(c->status));
		}
		btc_report_free(&r);
	}
	return ok;
}
