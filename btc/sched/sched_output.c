/* BT-Optimizer output: the ranked candidates and the baselines as a
 * readable table or as JSON (contract in btc/sched/optimizer.h). Deterministic: no
 * timestamps, fixed formats, input order. */
#include "sched/optimizer.h"
#include "sched/bound.h"
#include "sched/model.h"

#include <math.h>

static void pu_name(FILE *out, const struct btc_sched_problem *p, int c)
{
	if (p->pu_names && p->pu_names[c])
		fputs(p->pu_names[c], out);
	else
		fprintf(out, "pu%d", c);
}

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

static void json_pu(FILE *out, const struct btc_sched_problem *p, int c)
{
	if (p->pu_names && p->pu_names[c]) {
		json_string(out, p->pu_names[c]);
	} else {
		fprintf(out, "\"pu%d\"", c);
	}
}

static void json_label(FILE *out, const char *s)
{
	if (s)
		json_string(out, s);
	else
		fputs("null", out);
}

char *btc_sched_chunk_label(const struct btc_sched_problem *p, const struct btc_sched_chunk *ch,
			    char *buf, size_t n)
{
	FILE *f = fmemopen(buf, n, "w");
	if (!f) {
		if (n)
			buf[0] = '\0';
		return buf;
	}
	if (ch->farm) {
		fputc('{', f);
		bool first = true;
		for (int c = 0; c < p->n_pus && c < 32; c++)
			if (ch->farm & (1u << c)) {
				if (!first)
					fputc(',', f);
				pu_name(f, p, c);
				first = false;
			}
		fputc('}', f);
	} else {
		pu_name(f, p, ch->pu);
		if (ch->cores)
			fprintf(f, "[%d]", ch->cores);
	}
	if (ch->first_stage == ch->last_stage)
		fprintf(f, ":%d", ch->first_stage);
	else
		fprintf(f, ":%d-%d", ch->first_stage, ch->last_stage);
	fclose(f);
	return buf;
}

int btc_sched_print_json(FILE *out, const struct btc_sched_problem *p,
			 const struct btc_sched_result *res, bool with_time)
{
	fputs("{\"app\":", out);
	json_label(out, p->app);
	fputs(",\"device\":", out);
	json_label(out, p->device);
	fputs(",\"mode\":", out);
	json_label(out, p->mode);
	fprintf(out, ",\"objective\":\"%s\",", btc_sched_objective_name(res->objective));
	if (res->space)
		fprintf(out, "\"space\":{\"farms\":%s,\"core_splits\":%s},",
			res->farms ? "true" : "false", res->core_splits ? "true" : "false");
	fputs("\"candidates\":[", out);
	for (int k = 0; k < res->n_candidates; k++) {
		const struct btc_schedule *s = &res->candidates[k];
		fprintf(out,
			"%s\n{\"rank\":%d,\"tmax_ms\":%.6f,\"tmin_ms\":%.6f,"
			"\"gapness_ms\":%.6f,\"speedup\":%.4f,",
			k ? "," : "", k + 1, s->tmax_ms, s->tmin_ms, s->gapness_ms,
			btc_sched_speedup(res, s));
		if (btc_model_has_terms(p))
			fprintf(out, "\"period_ms\":%.6f,", s->period_ms);
		if (res->farms)
			fprintf(out, "\"pool\":%d,", s->pool);
		fputs("\"chunks\":[", out);
		for (int j = 0; j < s->n_chunks; j++) {
			const struct btc_sched_chunk *ch = &s->chunks[j];
			fprintf(out, "%s{\"pu\":", j ? "," : "");
			json_pu(out, p, ch->pu);
			fprintf(out,
				",\"first_stage\":%d,\"last_stage\":%d,"
				"\"time_ms\":%.6f",
				ch->first_stage, ch->last_stage, ch->time_ms);
			if (res->space) {
				fprintf(out, ",\"cores\":%d", ch->cores);
				const char *sep = ",\"farm\":[";
				for (int c = 0; ch->farm && c < p->n_pus && c < 32; c++)
					if (ch->farm & (1u << c)) {
						fputs(sep, out);
						json_pu(out, p, c);
						sep = ",";
					}
				if (ch->farm)
					fputc(']', out);
			}
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputs("],\n\"baselines\":[", out);
	for (int k = 0; k < res->n_baselines; k++) {
		fprintf(out, "%s{\"pu\":", k ? "," : "");
		json_pu(out, p, res->baselines[k].pu);
		fprintf(out, ",\"time_ms\":%.6f}", res->baselines[k].time_ms);
	}
	fputc(']', out);
	if (btc_model_has_terms(p))
		fprintf(out, ",\"io_ms\":%.6f", p->io_ms);
	if (res->has_fluid_bound)
		fprintf(out, ",\"fluid_bound_ms\":%.6f,\"assign_bound_ms\":%.6f,\"assign_exact\":%s",
			res->fluid_bound_ms, res->assign_bound_ms,
			res->assign_exact ? "true" : "false");
	if (res->has_assign_schedule) {
		const struct btc_schedule *s = &res->assign_schedule;
		fprintf(out,
			",\n\"assign_schedule\":{\"candidate_rank\":%d,\"tmax_ms\":%.6f,\"gapness_ms\":%.6f,"
			"\"chunks\":[",
			res->assign_rank, s->tmax_ms, s->gapness_ms);
		for (int j = 0; j < s->n_chunks; j++) {
			fprintf(out, "%s{\"pu\":", j ? "," : "");
			json_pu(out, p, s->chunks[j].pu);
			fprintf(out, ",\"first_stage\":%d,\"last_stage\":%d,\"time_ms\":%.6f}",
				s->chunks[j].first_stage, s->chunks[j].last_stage,
				s->chunks[j].time_ms);
		}
		fputs("]}", out);
	}
	fprintf(out, ",\n\"optimal\":%s,\"solve_ms\":%.3f}\n", res->optimal ? "true" : "false",
		with_time ? res->solve_ms : 0.0);
	return ferror(out) ? -1 : 0;
}

/* A candidate's chunks as the ranking prints them: "PU[first-last] ms |
 * ..." (btc_sched_chunk_label's notation in the larger space). */
static void print_chunks(FILE *out, const struct btc_sched_problem *p,
			 const struct btc_sched_result *res, const struct btc_schedule *s)
{
	for (int j = 0; j < s->n_chunks; j++) {
		const struct btc_sched_chunk *ch = &s->chunks[j];
		if (j)
			fputs(" | ", out);
		if (res->space) {
			char label[512];
			fputs(btc_sched_chunk_label(p, ch, label, sizeof(label)), out);
		} else {
			pu_name(out, p, ch->pu);
			if (ch->first_stage == ch->last_stage)
				fprintf(out, "[%d]", ch->first_stage);
			else
				fprintf(out, "[%d-%d]", ch->first_stage, ch->last_stage);
		}
		fprintf(out, " %.4f", ch->time_ms);
	}
}

/* "the assignment bound's assignment: CHUNKS (T_max X ms, gapness Y ms;
 * WHERE)": in the space at its rank, a baseline, or why the ranking left
 * it out (the objective's gapness filter, or below the top K). */
static void print_assign_schedule(FILE *out, const struct btc_sched_problem *p,
				  const struct btc_sched_result *res)
{
	const struct btc_schedule *s = &res->assign_schedule;
	fputs("\nthe assignment bound's assignment: ", out);
	print_chunks(out, p, res, s);
	fprintf(out, "\n  (T_max %.4f ms, gapness %.4f ms; ", s->tmax_ms, s->gapness_ms);
	double u = res->util_pct / 100.0;
	if (res->assign_rank > 0)
		fprintf(out, "in the space, rank %d)\n", res->assign_rank);
	else if (s->n_chunks == 1)
		fputs("a baseline)\n", out);
	else if (res->objective == BTC_SCHED_BT && res->gstar_q >= 0 &&
		 s->gapness_ms > res->gstar_ms + (1 - u) * s->tmax_ms + 1e-9)
		fprintf(out, "outside the gapness-filtered space: gapness > G* + %.2f * T_max "
			     "= %.4f ms)\n",
			1 - u, res->gstar_ms + (1 - u) * s->tmax_ms);
	else
		fputs("not among the top K candidates)\n", out);
}

/* "fluid bound: X ms (efficiency of the best candidate: bound / T_max =
 * Y %)" and the same line for the assignment bound ("(MIP not solved:
 * the fluid bound)" when its MIP failed); P (the chunk model's period) in
 * place of T_max when the model has terms; the best baseline when there
 * is no candidate. */
static void print_bound(FILE *out, const struct btc_sched_problem *p,
			const struct btc_sched_result *res)
{
	const char *what = btc_model_has_terms(p) ? "P" : "T_max";
	double period = NAN;
	if (res->n_candidates)
		period = res->candidates[0].period_ms;
	else if (res->best_baseline >= 0)
		period = res->baselines[res->best_baseline].period_ms;
	fputc('\n', out);
	for (int k = 0; k < 2; k++) {
		double b = k ? res->assign_bound_ms : res->fluid_bound_ms;
		fprintf(out, "%s bound: %.4f ms", k ? "assignment" : "fluid", b);
		double eff = btc_sched_bound_efficiency(b, period);
		if (!isnan(eff))
			fprintf(out, " (efficiency of the best %s: bound / %s = %.1f %%)",
				res->n_candidates ? "candidate" : "baseline", what, 100 * eff);
		if (k && !res->assign_exact)
			fputs(" (MIP not solved: the fluid bound)", out);
		fputc('\n', out);
	}
}

int btc_sched_print_text(FILE *out, const struct btc_sched_problem *p,
			 const struct btc_sched_result *res, bool with_time)
{
	fprintf(out, "schedule %s on %s (%s), objective %s", p->app ? p->app : "app",
		p->device ? p->device : "device", p->mode ? p->mode : "table",
		btc_sched_objective_name(res->objective));
	if (btc_model_has_terms(p))
		fprintf(out, " (chunk model: F + %ssum t + X, T_io = %.4f ms)",
			p->start_ms ? "S + " : "", p->io_ms);
	if (res->objective == BTC_SCHED_BT && res->gstar_q >= 0)
		fprintf(out, ": gapness <= G* + %.2f * T_max, G* = %.4f ms",
			1.0 - res->util_pct / 100.0, res->gstar_ms);
	fputs("\n\n", out);
	if (res->space)
		fprintf(out, "larger space:%s%s (a farm {PU,...} takes its chunk's tasks in turn; "
			     "PU[k] runs on k of the PU's cores)\n\n",
			res->farms ? " farms" : "", res->core_splits ? " core splits" : "");
	if (res->n_candidates == 0)
		fprintf(out, "no %s schedule satisfies the constraints\n",
			res->space ? "candidate" : "multi-chunk");
	else
		fprintf(out, "rank   T_max ms   T_min ms  gapness ms  speedup  chunks: %s ms\n",
			res->space ? "PU:first-last" : "PU[first-last]");
	for (int k = 0; k < res->n_candidates; k++) {
		const struct btc_schedule *s = &res->candidates[k];
		fprintf(out, "%4d %10.4f %10.4f %11.4f %7.2fx  ", k + 1, s->tmax_ms, s->tmin_ms,
			s->gapness_ms, btc_sched_speedup(res, s));
		print_chunks(out, p, res, s);
		fputc('\n', out);
	}
	if (res->has_assign_schedule)
		print_assign_schedule(out, p, res);
	fputs("\nbaselines (every stage on one PU):\n", out);
	if (res->n_baselines == 0)
		fputs("  none: no PU has a kernel for every stage\n", out);
	for (int k = 0; k < res->n_baselines; k++) {
		fputs("  ", out);
		pu_name(out, p, res->baselines[k].pu);
		fprintf(out, " %.4f ms%s\n", res->baselines[k].time_ms,
			k == res->best_baseline ? "  (best)" : "");
	}
	if (res->has_fluid_bound)
		print_bound(out, p, res);
	fprintf(out, "\n%s; %d candidate%s; ranking unit %lld ns",
		res->optimal ? "proven optimal" : "NOT proven optimal (time budget spent)",
		res->n_candidates, res->n_candidates == 1 ? "" : "s", (long long)res->quantum_ns);
	if (with_time)
		fprintf(out, "; solved in %.1f ms", res->solve_ms);
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}
