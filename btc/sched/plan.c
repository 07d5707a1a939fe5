#include "sched/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/times.h"
#include "util/out.h"
#include "util/sha256.h"

void btc_plan_options_init(struct btc_plan_options *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = BTC_MODE_INTERFERENCE;
	btc_sched_options_init(&o->sched);
	o->baselines = true;
}

bool btc_plan_gpu_mask(const struct btc_device *dev, const char *gpu,
		       uint32_t *forbid, struct btc_diag *d)
{
	bool has[BTC_N_BACKENDS] = {0};
	for (int p = 0; p < dev->n_pus; p++)
		has[dev->pus[p].kind] = true;
	enum btc_backend keep;
	if (!gpu)
		keep = has[BTC_BACKEND_CUDA] ? BTC_BACKEND_CUDA : BTC_BACKEND_VULKAN;
	else if (!strcmp(gpu, "cuda"))
		keep = BTC_BACKEND_CUDA;
	else if (!strcmp(gpu, "vulkan"))
		keep = BTC_BACKEND_VULKAN;
	else {
		btc_error(d, (struct btc_loc){0}, "--gpu must be cuda or vulkan, not '%s'", gpu);
		return false;
	}
	if (gpu && !has[keep]) {
		btc_error(d, (struct btc_loc){0}, "--gpu %s: device '%s' has no %s PU", gpu,
			  dev->name, gpu);
		return false;
	}
	*forbid = 0;
	for (int p = 0; p < dev->n_pus; p++)
		if (dev->pus[p].kind != BTC_BACKEND_CPU && dev->pus[p].kind != keep)
			*forbid |= 1u << p;
	return true;
}

bool btc_plan_problem(const struct btc_app *app, const struct btc_device *dev,
		      const struct btc_table *t, enum btc_mode mode,
		      struct btc_sched_problem *p, double *time_buf,
		      const char **name_buf, struct btc_diag *d)
{
	if (!t->has_mode[mode]) {
		btc_error(d, (struct btc_loc){0},
			  "the profiling table has no %s times (profile in that mode or pass --mode)",
			  btc_mode_name(mode));
		return false;
	}
	for (int s = 0; s < app->n_stages; s++)
		for (int u = 0; u < dev->n_pus; u++) {
			const struct btc_table_entry *e = btc_table_at(t, mode, s, u);
			time_buf[s * dev->n_pus + u] =
				btc_stage_has(&app->stages[s], dev->pus[u].kind) && e->present
					? e->mean_ms : NAN;
		}
	const char **stage_names = name_buf, **pu_names = name_buf + app->n_stages;
	for (int s = 0; s < app->n_stages; s++)
		stage_names[s] = app->stages[s].name;
	for (int u = 0; u < dev->n_pus; u++)
		pu_names[u] = dev->pus[u].name;
	*p = (struct btc_sched_problem){
		.n_stages = app->n_stages, .n_pus = dev->n_pus, .time_ms = time_buf,
		.stage_names = stage_names, .pu_names = pu_names,
		.app = app->name, .device = dev->name, .mode = btc_mode_name(mode),
	};
	return true;
}

double btc_plan_tmax_ms(const struct btc_app *app, const struct btc_device *dev,
			const struct btc_table *t, enum btc_mode mode,
			const struct btc_schedule *s)
{
	if (!t->has_mode[mode])
		return NAN;
	double *times = btc_xcalloc((size_t)app->n_stages * (size_t)dev->n_pus, sizeof(double));
	const char **names = btc_xcalloc((size_t)(app->n_stages + dev->n_pus), sizeof(char *));
	struct btc_sched_problem p;
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	double tmax = btc_plan_problem(app, dev, t, mode, &p, times, names, &quiet)
			      ? btc_sched_tmax_ms(&p, s) : NAN;
	free(names);
	free(times);
	return tmax;
}

bool btc_plan_parse_spec(const char *spec, const struct btc_app *app,
			 const struct btc_device *dev, struct btc_schedule *out,
			 struct btc_diag *d)
{
	memset(out, 0, sizeof(*out));
	char *copy = btc_xstrdup(spec), *save = NULL;
	int next = 0;
	bool ok = true;
	struct btc_loc loc = {0};
	for (char *tok = strtok_r(copy, ",", &save); tok && ok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		int first, last;
		char tail;
		if (!colon) {
			btc_error(d, loc, "--chunks '%s': '%s' is not PU:FIRST-LAST", spec, tok);
			ok = false;
			break;
		}
		*colon = '\0';
		int pu = btc_device_pu_index(dev, tok);
		if (sscanf(colon + 1, "%d-%d%c", &first, &last, &tail) != 2) {
			if (sscanf(colon + 1, "%d%c", &first, &tail) != 1) {
				btc_error(d, loc, "--chunks '%s': bad stage range '%s'", spec, colon + 1);
				ok = false;
				break;
			}
			last = first;
		}
		if (pu < 0) {
			btc_error(d, loc, "--chunks '%s': device '%s' has no PU '%s'", spec,
				  dev->name, tok);
			ok = false;
		} else if (first != next || last < first || last >= app->n_stages) {
			btc_error(d, loc,
				  "--chunks '%s': chunk %s:%d-%d must start at stage %d and end by stage %d",
				  spec, tok, first, last, next, app->n_stages - 1);
			ok = false;
		} else if (out->n_chunks == BTC_SCHED_MAX_PUS) {
			btc_error(d, loc, "--chunks '%s': too many chunks", spec);
			ok = false;
		} else {
			for (int c = 0; c < out->n_chunks; c++)
				if (out->chunks[c].pu == pu) {
					btc_error(d, loc, "--chunks '%s': PU '%s' runs two chunks",
						  spec, tok);
					ok = false;
				}
			for (int s = first; ok && s <= last; s++)
				if (!btc_stage_has(&app->stages[s], dev->pus[pu].kind)) {
					btc_error(d, loc,
						  "--chunks '%s': stage %d '%s' has no %s kernel for PU '%s'",
						  spec, s, app->stages[s].name,
						  btc_backend_name(dev->pus[pu].kind), tok);
					ok = false;
				}
			if (ok) {
				out->chunks[out->n_chunks++] = (struct btc_sched_chunk){pu, first, last, 0};
				next = last + 1;
			}
		}
	}
	if (ok && next != app->n_stages) {
		btc_error(d, loc, "--chunks '%s': stages %d..%d are not scheduled", spec, next,
			  app->n_stages - 1);
		ok = false;
	}
	free(copy);
	return ok;
}

char *btc_plan_schedule_label(const struct btc_schedule *s,
			      const struct btc_device *dev)
{
	struct btc_out o;
	btc_out_init(&o);
	for (int c = 0; c < s->n_chunks; c++) {
		const struct btc_sched_chunk *ch = &s->chunks[c];
		if (ch->first_stage == ch->last_stage)
			btc_outf(&o, "%s%s:%d", c ? " " : "", dev->pus[ch->pu].name,
				 ch->first_stage);
		else
			btc_outf(&o, "%s%s:%d-%d", c ? " " : "", dev->pus[ch->pu].name,
				 ch->first_stage, ch->last_stage);
	}
	return o.buf;
}

/* Fills s's times from the problem; true when every stage has a time. */
static bool predict(struct btc_schedule *s, const struct btc_sched_problem *p)
{
	btc_sched_fill_times(p, s);
	return !isnan(s->tmax_ms);
}

bool btc_plan(const struct btc_app *app, const struct btc_device *dev,
	      const struct btc_table *t, const char *table_path,
	      const struct btc_plan_options *opt,
	      struct btc_plan_schedule **out, int *n_out, char **provenance,
	      struct btc_diag *d)
{
	int before = d->errors;
	double *times = btc_xcalloc((size_t)(app->n_stages * dev->n_pus), sizeof(double));
	const char **names = btc_xcalloc((size_t)(app->n_stages + dev->n_pus), sizeof(char *));
	struct btc_sched_problem prob;
	bool have_prob = t && btc_plan_problem(app, dev, t, opt->mode, &prob, times, names, d);
	if (t && !have_prob) {
		free(names);
		free(times);
		return false;
	}
	if (!t && !opt->n_specs && !opt->baselines_only) {
		btc_error(d, (struct btc_loc){0},
			  "no profiling table for app '%s' on device '%s': pass --table (from `btc profile`) or --chunks",
			  app->name, dev->name);
		free(names);
		free(times);
		return false;
	}
	struct btc_sched_options so = opt->sched;
	uint32_t gpu_forbid;
	if (!btc_plan_gpu_mask(dev, opt->gpu, &gpu_forbid, d)) {
		free(names);
		free(times);
		return false;
	}
	so.forbid_mask |= gpu_forbid;

	int cap = opt->n_specs + so.top_k + dev->n_pus;
	struct btc_plan_schedule *list = btc_xcalloc((size_t)cap, sizeof(*list));
	int n = 0;
	struct btc_out prov;
	btc_out_init(&prov);
	/* The table by name and content hash, never its path (no machine
	 * paths in generated files; the same bytes from any directory). */
	char *table_id = t && table_path ? btc_sha256_file_identity(table_path) : NULL;
	if (t)
		btc_outl(&prov, "table: {%s, mode: %s, layout: %s}",
			 table_id ? table_id : "file: profiled", btc_mode_name(opt->mode),
			 t->reference_layout ? "reference" : "btc");
	free(table_id);

	struct btc_sched_result res = {0};
	if (opt->n_specs) {
		btc_outl(&prov, "origin: --chunks");
		for (int i = 0; i < opt->n_specs; i++) {
			struct btc_plan_schedule *g = &list[n];
			if (!btc_plan_parse_spec(opt->specs[i], app, dev, &g->s, d))
				continue;
			if (have_prob)
				g->predicted = predict(&g->s, &prob);
			g->baseline = g->s.n_chunks == 1;
			n++;
		}
	} else if (opt->baselines_only) {
		btc_outl(&prov, "origin: baselines (profiling build)");
	} else {
		enum btc_status st = btc_sched_solve_z3(&prob, &so, &res, d);
		if (st != BTC_OK && st != BTC_ERR_UNSAT) {
			btc_sched_result_free(&res);
			btc_out_free(&prov);
			free(list);
			free(names);
			free(times);
			return false;
		}
		btc_outl(&prov, "origin: {optimizer: z3, objective: %s, top_k: %d, utilisation_pct: %d, optimal: %s}",
			 btc_sched_objective_name(so.objective), so.top_k, res.util_pct,
			 res.optimal ? "true" : "false");
		for (int i = 0; i < res.n_candidates; i++) {
			list[n].s = res.candidates[i];
			list[n].predicted = true;
			n++;
		}
	}
	if (opt->baselines) {
		for (int u = 0; u < dev->n_pus; u++) {
			if (so.forbid_mask & (1u << u))
				continue;
			bool all = true;
			for (int s = 0; s < app->n_stages; s++)
				all &= btc_stage_has(&app->stages[s], dev->pus[u].kind);
			if (!all)
				continue;
			bool dup = false;
			for (int i = 0; i < n; i++)
				dup |= list[i].s.n_chunks == 1 && list[i].s.chunks[0].pu == u;
			if (dup)
				continue;
			struct btc_plan_schedule *g = &list[n++];
			g->s.n_chunks = 1;
			g->s.chunks[0] = (struct btc_sched_chunk){u, 0, app->n_stages - 1, 0};
			g->baseline = true;
			if (have_prob)
				g->predicted = predict(&g->s, &prob);
		}
	}
	btc_sched_result_free(&res);
	free(names);
	free(times);
	if (d->errors != before || n == 0) {
		if (n == 0 && d->errors == before)
			btc_error(d, (struct btc_loc){0}, "no schedule to generate");
		free(list);
		btc_out_free(&prov);
		return false;
	}
	*out = list;
	*n_out = n;
	*provenance = prov.buf;
	return true;
}
