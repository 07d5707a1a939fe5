/* The co-location result as a table and as JSON (report/colocate_print.h). */
#include "report/colocate_print.h"

#include <math.h>
#include <string.h>

#include "report/json.h"
#include "util/json.h"

/* "0.812 [0.790, 0.830]" (the interval marked ~ when not exact: fewer
 * than 6 rounds), or "n/a". */
static void stat_text(const struct btc_colocate_stat *m, char *buf, size_t n)
{
	if (isnan(m->median))
		snprintf(buf, n, "n/a");
	else if (isnan(m->lo))
		snprintf(buf, n, "%.3f", m->median);
	else
		snprintf(buf, n, "%.3f [%.3f, %.3f]%s", m->median, m->lo, m->hi,
			 m->exact ? "" : "~");
}

/* "  70.1 (0.91)" of figure f's stream s, or "   n/a" */
static void rate_text(const struct btc_colocate_figure *f, int s, char *buf, size_t n)
{
	if (!f->stream_rate || isnan(f->stream_rate[s]))
		snprintf(buf, n, "%s", "n/a");
	else
		snprintf(buf, n, "%.1f (%.2f)", f->stream_rate[s], f->stream_normalised[s]);
}

static void figure_line(FILE *out, const char *name, const struct btc_colocate_figure *f,
			const char *tail)
{
	char m[96];
	stat_text(&f->merit, m, sizeof(m));
	if (f->why)
		fprintf(out, "  %-12s FAILED after %d verified rounds: %s\n", name, f->rounds,
			f->why);
	else if (f->rounds == 0)
		fprintf(out, "  %-12s not measured\n", name);
	else
		fprintf(out, "  %-12s M %s, %d rounds%s\n", name, m, f->rounds, tail);
}

void btc_colocate_print(FILE *out, const struct btc_colocate_setup *s,
			const struct btc_colocate_result *r)
{
	const struct btc_colocate_figure none = {0};
	const struct btc_colocate_figure *best = r->best >= 0 ? &r->joint[r->best] : &none;
	fprintf(out, "co-location, %d streams (tasks/s, normalised by the solo rate r*):\n",
		r->n_streams);
	fprintf(out, "  %-18s %6s %10s %16s %16s %16s\n", "stream", "weight", "solo r*", "joint",
		"naive", "multiplex");
	for (int i = 0; i < r->n_streams; i++) {
		char j[48], n[48], m[48];
		rate_text(best, i, j, sizeof(j));
		rate_text(&r->naive, i, n, sizeof(n));
		rate_text(&r->multiplex, i, m, sizeof(m));
		fprintf(out, "  %-18s %6.2f %10.1f %16s %16s %16s\n", s->stream_names[i],
			s->weight[i], r->solo_rate[i], j, n, m);
	}
	fprintf(out, "max-min normalised throughput M, median [95 %% interval] (~: fewer than "
		     "6 rounds, [min, max]):\n");
	for (int k = 0; k < r->n_joint; k++) {
		char name[32], tail[96] = "";
		snprintf(name, sizeof(name), "joint %d", k);
		if (s->joint_predicted)
			snprintf(tail, sizeof(tail), ", predicted %.3f", s->joint_predicted[k]);
		if (k == r->best)
			snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "  <- chosen");
		figure_line(out, name, &r->joint[k], tail);
	}
	if (s->baselines) {
		figure_line(out, "naive", &r->naive, "");
		figure_line(out, "multiplex", &r->multiplex, "");
		char g[96];
		stat_text(&r->gain_naive, g, sizeof(g));
		fprintf(out, "gain of the chosen over naive co-location:  %s\n", g);
		stat_text(&r->gain_multiplex, g, sizeof(g));
		fprintf(out, "gain of the chosen over time multiplexing: %s\n", g);
	}
	if (r->best < 0)
		fprintf(out, "no joint candidate verified\n");
	fprintf(out, "seed %u, %.1f s\n", r->seed, r->wall_s);
}

static cJSON *stat_json(const struct btc_colocate_stat *m)
{
	cJSON *o = cJSON_CreateObject();
	btc_json_add_num(o, "median", m->median);
	btc_json_add_num(o, "ci_low", m->lo);
	btc_json_add_num(o, "ci_high", m->hi);
	cJSON_AddBoolToObject(o, "exact", m->exact);
	return o;
}

static cJSON *nums(const double *x, int n)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, x ? btc_json_unrounded(x[i]) : cJSON_CreateNull());
	return a;
}

/* [[{pu, first_stage, last_stage, ms, share}, ...] per stream] */
static cJSON *chunks_json(const struct btc_colocate_chunks *ch, int n_streams)
{
	cJSON *a = cJSON_CreateArray();
	for (int s = 0; s < n_streams; s++) {
		cJSON *l = cJSON_CreateArray();
		for (int k = 0; ch && k < ch[s].n; k++) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "pu", ch[s].c[k].pu);
			cJSON_AddNumberToObject(e, "first_stage", ch[s].c[k].first_stage);
			cJSON_AddNumberToObject(e, "last_stage", ch[s].c[k].last_stage);
			btc_json_add_num(e, "ms", ch[s].c[k].ms);
			btc_json_add_num(e, "stages_ms", ch[s].c[k].stages_ms);
			btc_json_add_num(e, "share", ch[s].c[k].share);
			cJSON_AddItemToArray(l, e);
		}
		cJSON_AddItemToArray(a, l);
	}
	return a;
}

static cJSON *figure_json(const struct btc_colocate_figure *f, int n_streams)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "verified", f->ok);
	btc_json_add_str(o, "error", f->why);
	cJSON_AddNumberToObject(o, "rounds", f->rounds);
	cJSON_AddItemToObject(o, "merit", stat_json(&f->merit));
	cJSON_AddItemToObject(o, "tasks_per_s", nums(f->stream_rate, n_streams));
	cJSON *rr = cJSON_AddArrayToObject(o, "rounds_tasks_per_s");
	for (int r = 0; r < f->n_round_rate; r++)
		cJSON_AddItemToArray(rr, nums(&f->round_rate[(size_t)r * (size_t)n_streams], n_streams));
	cJSON_AddItemToObject(o, "normalised", nums(f->stream_normalised, n_streams));
	cJSON_AddItemToObject(o, "chunks", chunks_json(f->chunks, n_streams));
	/* each stream's Vulkan device and queue, null without one */
	cJSON *vk = cJSON_AddArrayToObject(o, "vk");
	for (int s = 0; s < n_streams; s++) {
		const struct btc_colocate_chunks *c = f->chunks ? &f->chunks[s] : NULL;
		if (!c || c->runs == 0 || c->vk_device < 0) {
			cJSON_AddItemToArray(vk, cJSON_CreateNull());
			continue;
		}
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "device", c->vk_device);
		cJSON_AddNumberToObject(e, "queue", c->vk_queue);
		cJSON_AddItemToArray(vk, e);
	}
	btc_json_add_num(o, "run_s", f->run_s);
	btc_json_add_num(o, "prepare_s", f->prep_s);
	return o;
}

void btc_colocate_add_json(cJSON *parent, const char *key, const struct btc_colocate_setup *s,
			   const struct btc_colocate_result *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "seed", r->seed);
	btc_json_add_num(o, "wall_s", r->wall_s);
	cJSON_AddNumberToObject(o, "multiplex_turn", (double)s->multiplex_turn);
	cJSON_AddNumberToObject(o, "warmup_s", r->warmup_s);
	cJSON_AddNumberToObject(o, "rounds_needed", r->rounds_needed);
	if (r->best >= 0)
		cJSON_AddNumberToObject(o, "best", r->best);
	else
		cJSON_AddNullToObject(o, "best");
	cJSON *streams = cJSON_AddArrayToObject(o, "streams");
	for (int i = 0; i < r->n_streams; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "stream", i);
		cJSON_AddStringToObject(e, "name", s->stream_names[i]);
		cJSON_AddNumberToObject(e, "app", s->stream_app[i]);
		btc_json_add_num(e, "weight", s->weight[i]);
		cJSON_AddNumberToObject(e, "solo_schedule", (double)s->solo_schedule[i]);
		btc_json_add_num(e, "solo_tasks_per_s", r->solo_rate[i]);
		if (r->solo_chunks) {
			cJSON *one = chunks_json(&r->solo_chunks[i], 1);
			cJSON_AddItemToObject(e, "solo_chunks", cJSON_DetachItemFromArray(one, 0));
			cJSON_Delete(one);
		}
		cJSON_AddItemToArray(streams, e);
	}
	cJSON *joint = cJSON_AddArrayToObject(o, "joint");
	for (int k = 0; k < r->n_joint; k++) {
		cJSON *e = figure_json(&r->joint[k], r->n_streams);
		cJSON_AddNumberToObject(e, "index", k);
		cJSON *sc = cJSON_AddArrayToObject(e, "schedules");
		for (int i = 0; i < r->n_streams; i++)
			cJSON_AddItemToArray(
				sc, cJSON_CreateNumber(
					    (double)s->joint_schedule[k * r->n_streams + i]));
		btc_json_add_num(e, "predicted_merit",
				 s->joint_predicted ? s->joint_predicted[k] : NAN);
		cJSON_AddItemToArray(joint, e);
	}
	bool base = s->baselines;
	cJSON_AddItemToObject(o, "naive",
			      base ? figure_json(&r->naive, r->n_streams) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "multiplex",
			      base ? figure_json(&r->multiplex, r->n_streams) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "gain_naive",
			      base ? stat_json(&r->gain_naive) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "gain_multiplex",
			      base ? stat_json(&r->gain_multiplex) : cJSON_CreateNull());
	cJSON_AddItemToObject(parent, key, o);
}
