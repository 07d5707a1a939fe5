/* Pictures for people: a heatmap of the profiling table and a timeline
 * (Gantt chart) of a pipeline run, both as standalone SVG. */
#include "driver/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = get(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = get(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

bool btc_report_tables(char *const *paths, int n, FILE *md, FILE *csv,
		       FILE *cand_csv, struct btc_diag *d)
{
	fprintf(md, "| app | GPU API | chosen schedule | ms/task | predicted ms | best baseline | baseline ms/task | speedup | Pearson r (isolated) | Pearson r (interference) | profile s | tune s |\n");
	fprintf(md, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	if (csv)
		fprintf(csv, "app,gpu,device,chosen,measured_ms,predicted_ms,baselines,best_baseline,best_baseline_ms,speedup,pearson_r_isolated,pearson_r_interference,profile_s,schedule_s,build_s,tune_s,run_s\n");
	if (cand_csv)
		fprintf(cand_csv, "app,gpu,index,kind,label,predicted_isolated_ms,predicted_interference_ms,measured_ms,tasks,rounds\n");
	bool ok = true;
	for (int i = 0; i < n; i++) {
		char *text = btc_read_file(paths[i], NULL);
		cJSON *j = text ? cJSON_Parse(text) : NULL;
		free(text);
		if (!j) {
			btc_error(d, (struct btc_loc){paths[i], 0, 0}, "not a btc report (JSON)");
			ok = false;
			continue;
		}
		/* The chosen schedule's label: from the candidates list. */
		const cJSON *cands = get(j, "candidates"), *c;
		double win_ms = num(j, "measured_ms_per_task");
		char chosen[256] = "";
		const cJSON *chunks = get(get(j, "schedule"), "chunks");
		cJSON_ArrayForEach(c, chunks) {
			size_t len = strlen(chosen);
			snprintf(chosen + len, sizeof(chosen) - len, "%s%s:%d-%d", len ? " " : "",
				 str(c, "pu"), (int)num(c, "first_stage"), (int)num(c, "last_stage"));
		}
		char bases[256] = "", best[64] = "";
		double best_ms = INFINITY;
		const cJSON *b;
		cJSON_ArrayForEach(b, get(j, "baselines")) {
			size_t len = strlen(bases);
			double ms = num(b, "measured_ms_per_task");
			snprintf(bases + len, sizeof(bases) - len, "%s%s=%.3f", len ? " " : "",
				 str(b, "pu"), ms);
			if (ms < best_ms) {
				best_ms = ms;
				snprintf(best, sizeof(best), "%s", str(b, "pu"));
			}
		}
		/* The head-to-head figure, where the report has one. */
		const cJSON *bb = get(j, "best_baseline");
		if (cJSON_IsObject(bb)) {
			best_ms = num(bb, "measured_ms_per_task");
			snprintf(best, sizeof(best), "%s", str(bb, "pu"));
		}
		const cJSON *ph = get(j, "phases_s");
		fprintf(md, "| %s | %s | %s | %.3f | %.3f | %s | %.3f | %.2fx | %.3f | %.3f | %.1f | %.1f |\n",
			str(j, "app"), str(j, "gpu"), chosen, win_ms, num(j, "predicted_ms"), best,
			best_ms, num(j, "speedup_vs_best_baseline"), num(j, "pearson_r_isolated"),
			num(j, "pearson_r_interference"), num(ph, "profile"), num(ph, "tune"));
		if (csv)
			fprintf(csv, "%s,%s,%s,%s,%.6f,%.6f,%s,%s,%.6f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
				str(j, "app"), str(j, "gpu"), str(j, "device"), chosen, win_ms,
				num(j, "predicted_ms"), bases, best, best_ms,
				num(j, "speedup_vs_best_baseline"), num(j, "pearson_r_isolated"),
				num(j, "pearson_r_interference"), num(ph, "profile"), num(ph, "schedule"),
				num(ph, "build"), num(ph, "tune"), num(ph, "run"));
		cJSON_ArrayForEach(c, cands)
			if (cand_csv)
				fprintf(cand_csv, "%s,%s,%d,%s,%s,%.6f,%.6f,%.6f,%d,%d\n", str(j, "app"),
					str(j, "gpu"), (int)num(c, "index"), str(c, "kind"), str(c, "label"),
					num(c, "predicted_isolated_ms"), num(c, "predicted_interference_ms"),
					num(c, "measured_ms_per_task"), (int)num(c, "tasks"),
					(int)num(c, "rounds"));
		cJSON_Delete(j);
	}
	return ok;
}
