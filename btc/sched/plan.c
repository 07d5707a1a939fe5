#include "sched/plan.h"
#include "sched/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/out.h"
#include "util/sha256.h"

void btc_plan_options_init(struct btc_plan_options *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = BTC_MODE_INTERFERENCE;
	btc_sched_options_init(&o->sched);
	o->baselines = true;
}

bool btc_plan_gpu_mask(const struct btc_device *dev, const char *gpu, uint32_t *forbid,
		       struct btc_diag *d)
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

void btc_plan_buf_init(struct btc_plan_buf *b, const struct btc_app *app,
		       const struct btc_device *dev)
{
	size_t n = (size_t)app->n_stages, np = (size_t)dev->n_pus;
	b->time = btc_xcalloc(n * np, sizeof(double));
	b->fixed = btc_xcalloc(np, sizeof(double));
	b->xfer = btc_xcalloc(n * np * n, sizeof(double));
	b->names = btc_xcalloc(n + np, sizeof(char *));
	b->cores = btc_xcalloc(np, sizeof(*b->cores));
	b->time_cores = btc_xcalloc(n * np * BTC_SCHED_MAX_CORE_COUNTS, sizeof(double));
}

void btc_plan_buf_free(struct btc_plan_buf *b)
{
	free(b->time);
	free(b->fixed);
	free(b->xfer);
	free(b->names);
	free(b->cores);
	free(b->time_cores);
	memset(b, 0, sizeof(*b));
}

/* The chunk model's terms of the table's mode into p (see plan.h). */
static void plan_model(const struct btc_app *app, const struct btc_device *dev,
		       const struct btc_table *t, enum btc_mode mode, struct btc_sched_problem *p,
		       struct btc_plan_buf *buf)
{
	int n = app->n_stages, np = dev->n_pus, nb = app->n_buffers;
	struct btc_model_link *links = btc_xcalloc((size_t)np, sizeof(*links));
	bool *has = btc_xcalloc((size_t)np, sizeof(bool));
	bool any_link = false;
	for (int c = 0; c < np; c++) {
		const struct btc_table_entry *e = &t->term[mode][c * BTC_N_TERMS];
		buf->fixed[c] = e[BTC_TERM_FIXED].mean_ms; /* 0 when absent */
		links[c] = (struct btc_model_link){
			e[BTC_TERM_IN_LATENCY].mean_ms,
			e[BTC_TERM_IN_PER_MIB].mean_ms,
			e[BTC_TERM_OUT_LATENCY].mean_ms,
			e[BTC_TERM_OUT_PER_MIB].mean_ms,
		};
		has[c] = links[c].in_lat_ms > 0 || links[c].in_ms_per_mib > 0 ||
			 links[c].out_lat_ms > 0 || links[c].out_ms_per_mib > 0;
		any_link |= has[c];
	}
	double *bytes = btc_xcalloc((size_t)nb + 1, sizeof(double));
	unsigned char *rd = btc_xcalloc((size_t)(n * nb) + 1, 1);
	unsigned char *wr = btc_xcalloc((size_t)(n * nb) + 1, 1);
	unsigned char *io = btc_xcalloc((size_t)nb + 1, 1);
	for (int k = 0; k < nb; k++) {
		bytes[k] = (double)btc_elem_size(app->buffers[k].elem) *
			   (double)app->buffers[k].count_value;
		io[k] = t->io_loaded[k];
	}
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < app->stages[i].n_reads; j++)
			rd[i * nb + app->stages[i].reads[j]] = 1;
		for (int j = 0; j < app->stages[i].n_writes; j++)
			wr[i * nb + app->stages[i].writes[j]] = 1;
	}
	struct btc_model_buffers mb = {n, nb, bytes, rd, wr, io};
	btc_model_fill_transfers(&mb, links, has, np, buf->xfer);
	/* t_{i,c}: the one-stage measurement minus what the model adds */
	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++) {
			double *v = &buf->time[i * np + c];
			if (isnan(*v))
				continue;
			*v -= buf->fixed[c] + buf->xfer[btc_model_xfer_index(n, np, c, i, i)];
			*v = *v > 0 ? *v : 0;
		}
	p->fixed_ms = buf->fixed;
	p->xfer_ms = any_link ? buf->xfer : NULL;
	p->io_ms = t->io[mode].present ? t->io[mode].mean_ms : 0;
	free(links);
	free(has);
	free(bytes);
	free(rd);
	free(wr);
	free(io);
}

_Static_assert(BTC_TABLE_MAX_CORE_COUNTS == BTC_SCHED_MAX_CORE_COUNTS, "core count slots");

/* The table's core counts of `mode` into p (see plan.h); t_{i,c,k} less
 * F_c and X_c(i, i) when p has the model's terms. */
static void plan_cores(const struct btc_app *app, const struct btc_device *dev,
		       const struct btc_table *t, enum btc_mode mode, struct btc_sched_problem *p,
		       struct btc_plan_buf *buf)
{
	int n = app->n_stages, np = dev->n_pus;
	bool any = false;
	for (int c = 0; c < np; c++) {
		struct btc_sched_cores *k = &buf->cores[c];
		*k = (struct btc_sched_cores){0};
		if (dev->pus[c].kind != BTC_BACKEND_CPU)
			continue;
		k->size = dev->pus[c].n_cores;
		for (int j = 0; j < t->n_core_counts[c]; j++) {
			bool timed = false;
			for (int i = 0; i < n; i++)
				timed |= btc_table_cores_at(t, mode, i, c, j)->present;
			if (!timed)
				continue;
			for (int i = 0; i < n; i++) {
				const struct btc_table_entry *e = btc_table_cores_at(t, mode, i, c, j);
				double v = NAN;
				if (e->present && btc_stage_has(&app->stages[i], dev->pus[c].kind)) {
					v = e->mean_ms;
					if (p->fixed_ms)
						v -= p->fixed_ms[c];
					if (p->xfer_ms)
						v -= p->xfer_ms[btc_model_xfer_index(n, np, c, i, i)];
					v = v > 0 ? v : 0;
				}
				buf->time_cores[btc_sched_cores_index(np, i, c, k->n_counts)] = v;
			}
			k->counts[k->n_counts++] = t->core_counts[c][j];
			any = true;
		}
	}
	p->cores = any ? buf->cores : NULL;
	p->time_cores_ms = any ? buf->time_cores : NULL;
}

bool btc_plan_problem(const struct btc_app *app, const struct btc_device *dev,
		      const struct btc_table *t, enum btc_mode mode, bool chunk_model,
		      struct btc_sched_problem *p, struct btc_plan_buf *buf, struct btc_diag *d)
{
	double *time_buf = buf->time;
	const char **name_buf = buf->names;
	if (!t->has_mode[mode]) {
		btc_error(
			d, (struct btc_loc){0},
			"the profiling table has no %s times (profile in that mode or pass --mode)",
			btc_mode_name(mode));
		return false;
	}
	for (int s = 0; s < app->n_stages; s++)
		for (int u = 0; u < dev->n_pus; u++) {
			const struct btc_table_entry *e = btc_table_at(t, mode, s, u);
			time_buf[s * dev->n_pus + u] =
				btc_stage_has(&app->stages[s], dev->pus[u].kind) && e->present
					? e->mean_ms
					: NAN;
		}
	const char **stage_names = name_buf, **pu_names = name_buf + app->n_stages;
	for (int s = 0; s < app->n_stages; s++)
		stage_names[s] = app->stages[s].name;
	for (int u = 0; u < dev->n_pus; u++)
		pu_names[u] = dev->pus[u].name;
	*p = (struct btc_sched_problem){
		.n_stages = app->n_stages,
		.n_pus = dev->n_pus,
		.time_ms = time_buf,
		.stage_names = stage_names,
		.pu_names = pu_names,
		.app = app->name,
		.device = dev->name,
		.mode = btc_mode_name(mode),
	};
	if (chunk_model && t->has_terms[mode])
		plan_model(app, dev, t, mode, p, buf);
	plan_cores(app, dev, t, mode, p, buf);
	return true;
}

double btc_plan_period_ms(const struct btc_app *app, const struct btc_device *dev,
			  const struct btc_table *t, enum btc_mode mode, bool chunk_model,
			  const struct btc_schedule *s)
{
	if (!t->has_mode[mode])
		return NAN;
	struct btc_plan_buf pb;
	btc_plan_buf_init(&pb, app, dev);
	struct btc_sched_problem p;
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	double tmax = btc_plan_problem(app, dev, t, mode, chunk_model, &p, &pb, &quiet)
			      ? btc_model_tmax_ms(&p, s)
			      : NAN;
	double period = isnan(tmax) ? NAN : btc_model_period_ms(&p, tmax);
	btc_plan_buf_free(&pb);
	return period;
}

bool btc_plan_parse_spec(const char *spec, const struct btc_app *app, const struct btc_device *dev,
			 struct btc_schedule *out, struct btc_diag *d)
{
	memset(out, 0, sizeof(*out));
	char *copy = btc_xstrdup(spec), *save = NULL;
	int next = 0;
	bool ok = true;
	struct btc_loc loc = {0};
	for (char *tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
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
				btc_error(d, loc, "--chunks '%s': bad stage range '%s'", spec,
					  colon + 1);
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
			btc_error(
				d, loc,
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
					btc_error(
						d, loc,
						"--chunks '%s': stage %d '%s' has no %s kernel for PU '%s'",
						spec, s, app->stages[s].name,
						btc_backend_name(dev->pus[pu].kind), tok);
					ok = false;
				}
			if (ok) {
				out->chunks[out->n_chunks++] = (struct btc_sched_chunk){pu, first,
											last, 0};
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

char *btc_plan_schedule_label(const struct btc_schedule *s, const struct btc_device *dev)
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
	btc_model_fill_times(p, s);
	return !isnan(s->tmax_ms);
}

bool btc_plan(const struct btc_app *app, const struct btc_device *dev, const struct btc_table *t,
	      const char *table_path, const struct btc_plan_options *opt,
	      struct btc_plan_schedule **out, int *n_out, char **provenance, struct btc_diag *d)
{
	int before = d->errors;
	struct btc_plan_buf pb;
	btc_plan_buf_init(&pb, app, dev);
	struct btc_sched_problem prob;
	bool have_prob = t && btc_plan_problem(app, dev, t, opt->mode, true, &prob, &pb, d);
	if (t && !have_prob) {
		btc_plan_buf_free(&pb);
		return false;
	}
	if (!t && !opt->n_specs && !opt->baselines_only) {
		btc_error(
			d, (struct btc_loc){0},
			"no profiling table for app '%s' on device '%s': pass --table (from `btc profile`) or --chunks",
			app->name, dev->name);
		btc_plan_buf_free(&pb);
		return false;
	}
	struct btc_sched_options so = opt->sched;
	uint32_t gpu_forbid;
	if (!btc_plan_gpu_mask(dev, opt->gpu, &gpu_forbid, d)) {
		btc_plan_buf_free(&pb);
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
			btc_plan_buf_free(&pb);
			return false;
		}
		btc_outl(
			&prov,
			"origin: {optimizer: z3, objective: %s, top_k: %d, utilisation_pct: %d, optimal: %s}",
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
			if (dup) {
				/* A --chunks schedule that is this PU's baseline serves as
				 * both: say so rather than merge silently. */
				btc_note(d, (struct btc_loc){0},
					 "--chunks schedule %s:0-%d is the %s baseline: built once",
					 dev->pus[u].name, app->n_stages - 1, dev->pus[u].name);
				continue;
			}
			struct btc_plan_schedule *g = &list[n++];
			g->s.n_chunks = 1;
			g->s.chunks[0] = (struct btc_sched_chunk){u, 0, app->n_stages - 1, 0};
			g->baseline = true;
			if (have_prob)
				g->predicted = predict(&g->s, &prob);
		}
	}
	btc_sched_result_free(&res);
	btc_plan_buf_free(&pb);
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
