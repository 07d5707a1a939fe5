/* The output of `btc schedule` over a workload (cli/workload.h): text, or
 * JSON with the schema of docs/scheduler.md ("Several apps", "Output").
 * Rates are printed in tasks/s (the model's tasks/ms x 1000). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/workload.h"
#include "sched/model.h"

/* The co-run slowdown of chunk ch of stream s under e: its PU's, a farm's
 * largest over its members (1 without e). */
static double chunk_sigma(const struct btc_joint_plan *w, const struct btc_multi_eval *e, int s,
			  const struct btc_sched_chunk *ch)
{
	if (!e)
		return 1;
	uint32_t pus = ch->farm ? ch->farm : 1u << ch->pu;
	double sg = 1;
	for (int c = 0; c < w->m.n_pus; c++)
		if (pus & (1u << c))
			sg = fmax(sg, e->sigma[s * w->m.n_pus + c]);
	return sg;
}

/* Stream s's chunks in a joint vector a (btc_multi_stream_schedule) into
 * ch (room for its stages): their count. */
static int stream_chunks(const struct btc_joint_plan *w, const int *a, int s,
			 struct btc_sched_chunk *ch)
{
	return btc_multi_stream_schedule(&w->m, s, a + btc_multi_offset(&w->m, s), ch);
}

/* Stream s's chunks in a joint vector a, as labels "big:0-2 gpu:3-6"
 * ("{cpu,gpu}:0-4 cpu[2]:5-8" in the larger space; " x1.35" after a chunk
 * slowed by a co-run) into buf. */
static const char *chunks_label(const struct btc_joint_plan *w, const struct btc_multi_eval *e,
				const int *a, int s, char *buf, size_t size)
{
	const struct btc_sched_problem *p = w->streams[s].p;
	struct btc_sched_chunk *ch = btc_xcalloc((size_t)p->n_stages, sizeof(*ch));
	int n = stream_chunks(w, a, s, ch);
	size_t len = 0;
	buf[0] = '\0';
	for (int k = 0; k < n; k++) {
		char one[256];
		btc_sched_chunk_label(p, &ch[k], one, sizeof(one));
		double sg = chunk_sigma(w, e, s, &ch[k]);
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s", k ? " " : "",
					one);
		if (sg > 1)
			len += (size_t)snprintf(buf + len, len < size ? size - len : 0, " x%.2f", sg);
	}
	free(ch);
	return buf;
}

/* The joint plan's gain over naive co-location under the objective. */
static double gain(const struct btc_joint_plan *w, const struct btc_multi_eval *best)
{
	if (!w->has_naive)
		return NAN;
	if (w->m.objective == BTC_MULTI_SUM)
		return best->lambda / w->naive_eval.lambda;
	return w->naive_eval.cost / best->cost;
}

static const char *pu_name(const struct btc_joint_plan *w, int c)
{
	return w->dev->pus[c].name;
}

static void bottleneck_text(FILE *out, const struct btc_joint_plan *w, int b)
{
	if (b >= 0)
		fprintf(out, "PU %s", pu_name(w, b));
	else if (-1 - b < w->n_streams)
		fprintf(out, "the io thread of %s", w->streams[-1 - b].name);
	else
		fprintf(out, "a team of %s on part of a PU's cores",
			w->streams[-1 - b - w->n_streams].name);
}

static void text_plan(FILE *out, const struct btc_joint_plan *w, const struct btc_multi_eval *e,
		      const int *a)
{
	char buf[1024];
	fprintf(out, "  %-22s %7s %12s %11s  %s\n", "stream", "weight", "tasks/s", "normalised",
		"chunks");
	for (int s = 0; s < w->n_streams; s++)
		fprintf(out, "  %-22s %7.3g %12.2f %11.3f  %s\n", w->streams[s].name,
			w->wl.apps[w->streams[s].app].weight, 1000 * e->rate[s], btc_joint_normalised(w, e, s),
			chunks_label(w, e, a, s, buf, sizeof(buf)));
	fprintf(out, "  utilisation:");
	for (int c = 0; c < w->m.n_pus; c++)
		if (!(w->m.forbid_mask & (1u << c)))
			fprintf(out, e->kappa[c] != 1.0 ? " %s %.3f of x%.3f" : " %s %.3f", pu_name(w, c),
				e->util[c], e->kappa[c]);
	fprintf(out, "; bottleneck ");
	bottleneck_text(out, w, e->bottleneck);
	fprintf(out, "\n  max-min normalised throughput %.3f\n", btc_joint_min_normalised(w, e));
}

static void objective_text(FILE *out, const struct btc_joint_plan *w,
			   const struct btc_multi_eval *e)
{
	switch (w->m.objective) {
	case BTC_MULTI_MAXMIN:
		fprintf(out, "lambda %.4f (normalised throughput per unit weight)\n", e->lambda);
		break;
	case BTC_MULTI_RATES:
		if (e->cost <= 1) {
			fprintf(out, "every target rate met at peak utilisation %.3f\n", e->cost);
			break;
		}
		fprintf(out, "the target rates cannot all be met: ");
		bottleneck_text(out, w, e->bottleneck);
		fprintf(out, " would need %.3f of its time; the rates through it fall to %.1f %%:\n",
			e->cost, 100 / e->cost);
		for (int s = 0; s < w->n_streams; s++)
			fprintf(out, "    %s: target %.2f tasks/s, at most %.2f (short by %.2f)\n",
				w->streams[s].name, 1000 * w->streams[s].rate, 1000 * e->rate[s],
				1000 * (w->streams[s].rate - e->rate[s]));
		break;
	case BTC_MULTI_SUM:
		fprintf(out, "weighted total normalised throughput %.4f\n", e->lambda);
		break;
	}
}

static int print_text(FILE *out, const struct btc_cli_options *o, const struct btc_joint_plan *w)
{
	const struct btc_multi_result *r = &w->result;
	fprintf(out, "workload: %d apps, %d streams on %s (%s), objective %s\n", w->n_apps,
		w->n_streams, w->dev->name, btc_mode_name((enum btc_mode)o->mode),
		btc_multi_objective_name(w->m.objective));
	if (btc_multi_larger(&w->m))
		fprintf(out,
			"space: the larger one (%s%s%s; the exact searches answer: Z3 covers "
			"the paper's space only)\n",
			w->m.farms ? "farms" : "", w->m.farms && w->m.core_splits ? ", " : "",
			w->m.core_splits ? "core splits" : "");
	for (int a = 0; a < w->n_apps; a++) {
		const struct btc_joint_app *x = &w->apps[a];
		struct btc_schedule s = {.n_chunks = x->n_solo_chunks};
		memcpy(s.chunks, x->solo_chunks, (size_t)x->n_solo_chunks * sizeof(s.chunks[0]));
		char *label = btc_plan_schedule_label(&s, w->dev);
		char corun[256] = "none measured (factor 1)";
		if (x->slowdown)
			snprintf(corun, sizeof(corun), "measured (its @corun rows, %s%s%s)",
				 btc_mode_name(x->corun_mode),
				 x->table->corun_with ? ", against " : "",
				 x->table->corun_with ? x->table->corun_with : "");
		fprintf(out, "  %s: %d stream(s), table %s; co-run %s; solo best %.4f ms/task (%s)\n",
			x->app->name, w->wl.apps[a].streams, x->table_path, corun, x->solo_ms, label);
		free(label);
	}
	char *share = btc_joint_share_text(w);
	fprintf(out, "  same-PU factor %s\n", share);
	free(share);
	for (int k = 0; k < r->n; k++) {
		struct btc_multi_eval e;
		if (!btc_multi_evaluate(&w->m, r->c[k].a, &e)) {
			btc_multi_eval_free(&e);
			return -1;
		}
		if (k == 0) {
			fprintf(out, "\njoint schedule 1 of %d: ", r->n);
			objective_text(out, w, &e);
			text_plan(out, w, &e, r->c[k].a);
			if (w->has_bound) {
				double best = e.lambda;
				fprintf(out,
					"fluid bound (every stage split fractionally, no co-run "
					"slowdown%s): %s <= %.4f%s; the plan reaches %.3f of it\n",
					w->capacity ? ", each PU at its largest same-PU factor" : "",
					w->m.objective == BTC_MULTI_SUM ? "total" : "lambda", w->bound,
					w->m.objective == BTC_MULTI_RATES ? " (1 / peak utilisation)" : "",
					best / w->bound);
			}
			if (w->has_naive) {
				fprintf(out, "\nnaive co-location (each stream on its app's single-app "
					     "choice): ");
				objective_text(out, w, &w->naive_eval);
				text_plan(out, w, &w->naive_eval, w->naive);
				fprintf(out, "joint gain over naive co-location: %.3fx\n", gain(w, &e));
			}
			if (r->n > 1)
				fprintf(out, "\nother joint candidates:\n");
		} else {
			char buf[1024];
			fprintf(out, "  %2d  %s %.6g:", k + 1,
				w->m.objective == BTC_MULTI_RATES ? "peak" : "lambda",
				w->m.objective == BTC_MULTI_RATES ? e.cost : e.lambda);
			for (int s = 0; s < w->n_streams; s++)
				fprintf(out, "%s %s [%s]", s ? ";" : "", w->streams[s].name,
					chunks_label(w, &e, r->c[k].a, s, buf, sizeof(buf)));
			fputc('\n', out);
		}
		btc_multi_eval_free(&e);
	}
	fprintf(out, "solve: %.1f ms, %ld joint schedules costed\n", o->no_time ? 0.0 : r->solve_ms,
		r->n_evaluated);
	return 0;
}

static void json_plan(FILE *out, const struct btc_joint_plan *w, const struct btc_multi_eval *e,
		      const int *a)
{
	fprintf(out, "{\"cost\":%.9g,\"lambda\":%.9g,\"peak_utilisation\":%.6f,", e->cost,
		e->lambda, e->peak);
	if (e->bottleneck >= 0)
		fprintf(out, "\"bottleneck\":\"%s\",", pu_name(w, e->bottleneck));
	else if (-1 - e->bottleneck < w->n_streams)
		fprintf(out, "\"bottleneck\":\"io:%s\",", w->streams[-1 - e->bottleneck].name);
	else
		fprintf(out, "\"bottleneck\":\"team:%s\",",
			w->streams[-1 - e->bottleneck - w->n_streams].name);
	fprintf(out, "\"max_min_normalised\":%.6f,\"utilisation\":{", btc_joint_min_normalised(w, e));
	for (int c = 0, first = 1; c < w->m.n_pus; c++)
		if (!(w->m.forbid_mask & (1u << c))) {
			fprintf(out, "%s\"%s\":%.6f", first ? "" : ",", pu_name(w, c), e->util[c]);
			first = 0;
		}
	fprintf(out, "},\"same_pu_factor\":{");
	for (int c = 0, first = 1; c < w->m.n_pus; c++)
		if (!(w->m.forbid_mask & (1u << c))) {
			fprintf(out, "%s\"%s\":%.6f", first ? "" : ",", pu_name(w, c), e->kappa[c]);
			first = 0;
		}
	fprintf(out, "},\"streams\":[");
	for (int s = 0; s < w->n_streams; s++) {
		const struct btc_sched_problem *p = w->streams[s].p;
		bool larger = btc_multi_larger(&w->m);
		fprintf(out, "%s{\"name\":\"%s\",\"rate_per_s\":%.6f,\"normalised\":%.6f,\"chunks\":[",
			s ? "," : "", w->streams[s].name, 1000 * e->rate[s], btc_joint_normalised(w, e, s));
		struct btc_sched_chunk *ch = btc_xcalloc((size_t)p->n_stages, sizeof(*ch));
		int n = stream_chunks(w, a, s, ch);
		for (int k = 0; k < n; k++) {
			int c = ch[k].pu;
			double sg = chunk_sigma(w, e, s, &ch[k]);
			/* the paper's space: the chunk's load on its PU (its
			 * time with sigma); the larger: its time with sigma */
			double t = larger ? ch[k].time_ms * sg : e->t[s * w->m.n_pus + c];
			fprintf(out, "%s{\"pu\":\"%s\",\"first_stage\":%d,\"last_stage\":%d,",
				k ? "," : "", pu_name(w, c), ch[k].first_stage, ch[k].last_stage);
			if (larger) {
				fprintf(out, "\"cores\":%d,\"farm\":[", ch[k].cores);
				for (int u = 0, first = 1; u < w->m.n_pus; u++)
					if (ch[k].farm & (1u << u)) {
						fprintf(out, "%s\"%s\"", first ? "" : ",", pu_name(w, u));
						first = 0;
					}
				fprintf(out, "],");
			}
			fprintf(out, "\"time_ms\":%.6f,\"slowdown\":%.6f}", t, sg);
		}
		free(ch);
		fprintf(out, "]}");
	}
	fprintf(out, "]}");
}

/* null, or {"source":"...","kappa":{"PU":{"2":K,...},...}} (every PU with
 * a factor other than 1; docs/report.md). */
static void json_share(FILE *out, const struct btc_joint_plan *w)
{
	if (!w->capacity) {
		fputs("null", out);
		return;
	}
	int S = w->n_streams;
	fputs("{\"source\":\"", out);
	for (const unsigned char *c = (const unsigned char *)w->share_source; c && *c; c++)
		fprintf(out, *c == '"' || *c == '\\' ? "\\%c" : *c < 0x20 ? "\\u%04x" : "%c", *c);
	fputs("\",\"kappa\":{", out);
	const char *sep = "";
	for (int p = 0; p < w->m.n_pus; p++) {
		bool any = false;
		for (int n = 2; n <= S; n++)
			any |= w->capacity[p * (S + 1) + n] != 1.0;
		if (!any)
			continue;
		fprintf(out, "%s\"%s\":{", sep, pu_name(w, p));
		for (int n = 2; n <= S; n++)
			fprintf(out, "%s\"%d\":%.6f", n > 2 ? "," : "", n, w->capacity[p * (S + 1) + n]);
		fputc('}', out);
		sep = ",";
	}
	fputs("}}", out);
}

static int print_json(FILE *out, const struct btc_cli_options *o, const struct btc_joint_plan *w)
{
	const struct btc_multi_result *r = &w->result;
	fprintf(out, "{\"device\":\"%s\",\"mode\":\"%s\",\"objective\":\"%s\",",
		w->dev->name, btc_mode_name((enum btc_mode)o->mode),
		btc_multi_objective_name(w->m.objective));
	if (btc_multi_larger(&w->m))
		fprintf(out, "\"space\":{\"farms\":%s,\"core_splits\":%s},",
			w->m.farms ? "true" : "false", w->m.core_splits ? "true" : "false");
	fprintf(out, "\"apps\":[");
	for (int a = 0; a < w->n_apps; a++) {
		const struct btc_joint_app *x = &w->apps[a];
		const struct btc_workload_entry *en = &w->wl.apps[a];
		fprintf(out,
			"%s{\"name\":\"%s\",\"streams\":%d,\"weight\":%.6g,\"target_rate_per_s\":",
			a ? "," : "", x->app->name, en->streams, en->weight);
		if (en->rate_per_s > 0)
			fprintf(out, "%.6g", en->rate_per_s);
		else
			fprintf(out, "null");
		fprintf(out, ",\"solo_best_ms\":%.6f,\"corun\":\"%s\"", x->solo_ms,
			x->slowdown ? "measured" : "none");
		if (x->slowdown)
			fprintf(out, ",\"corun_mode\":\"%s\"", btc_mode_name(x->corun_mode));
		if (x->slowdown && x->table->corun_with) {
			/* from the table file: escaped */
			fputs(",\"corun_with\":\"", out);
			for (const unsigned char *c = (const unsigned char *)x->table->corun_with;
			     *c; c++)
				fprintf(out, *c == '"' || *c == '\\' ? "\\%c" : *c < 0x20 ? "\\u%04x" : "%c",
					*c);
			fputc('"', out);
		}
		fputc('}', out);
	}
	fprintf(out, "],\"same_pu\":\"%s\",\"same_pu_factor\":", btc_same_pu_name(w->same_pu));
	json_share(out, w);
	fprintf(out, ",\"candidates\":[");
	for (int k = 0; k < r->n; k++) {
		struct btc_multi_eval e;
		if (!btc_multi_evaluate(&w->m, r->c[k].a, &e)) {
			btc_multi_eval_free(&e);
			return -1;
		}
		fprintf(out, "%s", k ? "," : "");
		json_plan(out, w, &e, r->c[k].a);
		btc_multi_eval_free(&e);
	}
	fprintf(out, "],\"fluid_bound\":");
	if (w->has_bound)
		fprintf(out, "%.9g", w->bound);
	else
		fprintf(out, "null");
	fprintf(out, ",\"naive\":");
	if (w->has_naive)
		json_plan(out, w, &w->naive_eval, w->naive);
	else
		fprintf(out, "null");
	double g = NAN;
	if (r->n && w->has_naive) {
		struct btc_multi_eval e;
		if (btc_multi_evaluate(&w->m, r->c[0].a, &e))
			g = gain(w, &e);
		btc_multi_eval_free(&e);
	}
	if (isfinite(g))
		fprintf(out, ",\"gain_over_naive\":%.6f", g);
	else
		fprintf(out, ",\"gain_over_naive\":null");
	fprintf(out, ",\"solve_ms\":%.3f,\"n_evaluated\":%ld}\n", o->no_time ? 0.0 : r->solve_ms,
		r->n_evaluated);
	return 0;
}

int btc_cli_workload_print(FILE *out, const struct btc_cli_options *o,
			   const struct btc_joint_plan *w)
{
	int rc = o->format == 1 ? print_json(out, o, w) : print_text(out, o, w);
	return rc || fflush(out) ? -1 : 0;
}
