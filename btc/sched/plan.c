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
	unsigned char *in_place = btc_xcalloc((size_t)nb + 1, 1);
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < app->stages[i].n_reads; j++)
			rd[i * nb + app->stages[i].reads[j]] = 1;
		for (int j = 0; j < app->stages[i].n_writes; j++)
			wr[i * nb + app->stages[i].writes[j]] = 1;
	}
	for (int k = 0; k < nb; k++) {
		/* What a task moves is what it touched (`# touched:`), not the
		 * capacity sized for the largest input. */
		bytes[k] = t->touched[k] >= 0 ? t->touched[k]
					      : (double)btc_elem_size(app->buffers[k].elem) *
							(double)app->buffers[k].count_value;
		io[k] = t->io_loaded[k];
		in_place[k] = t->in_place[k];
	}
	struct btc_model_buffers mb = {n, nb, bytes, rd, wr, io, in_place};
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
	free(in_place);
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
		const int *pin;
		k->size = btc_pu_pinnable(&dev->pus[c], &pin);
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

enum btc_mode btc_plan_mode_for(const struct btc_table *t, enum btc_mode mode,
				const struct btc_schedule *s)
{
	if (mode == BTC_MODE_PLACED && s->n_chunks == 1 && !s->chunks[0].farm &&
	    t->has_mode[BTC_MODE_ISOLATED])
		return BTC_MODE_ISOLATED;
	return mode;
}

double btc_plan_period_ms(const struct btc_app *app, const struct btc_device *dev,
			  const struct btc_table *t, enum btc_mode mode, bool chunk_model,
			  const struct btc_schedule *s)
{
	if (!t->has_mode[mode])
		return NAN;
	mode = btc_plan_mode_for(t, mode, s); /* a mode the table has */
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

/* One chunk of a --chunks spec: "PU:R", "PU[k]:R" or "{PU,PU,...}:R"
 * with R = FIRST-LAST or STAGE. Fills *ch (time 0); reports and returns
 * false. `next` is the stage the chunk must start at. */
static bool parse_chunk(const char *spec, char *tok, int next, const struct btc_app *app,
			const struct btc_device *dev, struct btc_sched_chunk *ch, struct btc_diag *d)
{
	struct btc_loc loc = {0};
	memset(ch, 0, sizeof(*ch));
	char *colon = strrchr(tok, ':');
	if (!colon || colon == tok) {
		btc_error(d, loc, "--chunks '%s': '%s' is not PU:FIRST-LAST", spec, tok);
		return false;
	}
	*colon = '\0';
	int first, last;
	char tail;
	if (sscanf(colon + 1, "%d-%d%c", &first, &last, &tail) != 2) {
		if (sscanf(colon + 1, "%d%c", &first, &tail) != 1) {
			btc_error(d, loc, "--chunks '%s': bad stage range '%s'", spec, colon + 1);
			return false;
		}
		last = first;
	}
	/* The PUs: one name (maybe with [cores]) or a {farm}. */
	char *names[BTC_SCHED_MAX_PUS];
	int n_names = 0;
	bool farm = tok[0] == '{';
	if (farm) {
		size_t len = strlen(tok);
		if (len < 2 || tok[len - 1] != '}') {
			btc_error(d, loc, "--chunks '%s': farm '%s' must be {PU,PU,...}", spec, tok);
			return false;
		}
		tok[len - 1] = '\0';
		char *save = NULL;
		for (char *m = strtok_r(tok + 1, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
			if (n_names == BTC_SCHED_MAX_PUS) {
				btc_error(d, loc, "--chunks '%s': too many PUs in a farm", spec);
				return false;
			}
			names[n_names++] = m;
		}
		if (n_names < 2) {
			btc_error(d, loc,
				  "--chunks '%s': a farm {...} needs at least two PUs (one PU is PU:FIRST-LAST)",
				  spec);
			return false;
		}
	} else {
		names[n_names++] = tok;
	}
	for (int m = 0; m < n_names; m++) {
		char *name = names[m], *br = strchr(name, '[');
		int cores = 0;
		if (br) {
			char close;
			if (sscanf(br, "[%d%c%c", &cores, &close, &tail) != 2 || close != ']') {
				btc_error(d, loc, "--chunks '%s': bad core count '%s' (PU[CORES])", spec,
					  br);
				return false;
			}
			*br = '\0';
		}
		int pu = btc_device_pu_index(dev, name);
		if (pu < 0) {
			btc_error(d, loc, "--chunks '%s': device '%s' has no PU '%s'", spec, dev->name,
				  name);
			return false;
		}
		const struct btc_pu *p = &dev->pus[pu];
		if (br && farm) {
			btc_error(d, loc,
				  "--chunks '%s': farm member '%s[%d]': a farm's PUs take all their cores",
				  spec, name, cores);
			return false;
		}
		if (br && p->kind != BTC_BACKEND_CPU) {
			btc_error(d, loc,
				  "--chunks '%s': '%s[%d]': a core count applies to CPU PUs only ('%s' is %s)",
				  spec, name, cores, name, btc_backend_name(p->kind));
			return false;
		}
		if (br && (cores < 1 || cores > p->n_cores)) {
			btc_error(d, loc, "--chunks '%s': '%s[%d]': PU '%s' has %d cores (1..%d)",
				  spec, name, cores, name, p->n_cores, p->n_cores);
			return false;
		}
		if (farm && (ch->farm & (1u << pu))) {
			btc_error(d, loc, "--chunks '%s': PU '%s' is twice in one farm", spec, name);
			return false;
		}
		for (int s = first; s <= last && s >= 0 && s < app->n_stages; s++)
			if (!btc_stage_has(&app->stages[s], p->kind)) {
				btc_error(d, loc,
					  "--chunks '%s': stage %d '%s' has no %s kernel for %sPU '%s'",
					  spec, s, app->stages[s].name, btc_backend_name(p->kind),
					  farm ? "farm member " : "", name);
				return false;
			}
		if (farm)
			ch->farm |= 1u << pu;
		else
			ch->pu = pu;
		ch->cores = cores;
	}
	if (farm)
		ch->pu = __builtin_ctz(ch->farm);
	if (first != next || last < first || last >= app->n_stages) {
		btc_error(d, loc,
			  "--chunks '%s': chunk %s:%d-%d must start at stage %d and end by stage %d",
			  spec, farm ? "{...}" : tok, first, last, next, app->n_stages - 1);
		return false;
	}
	ch->first_stage = first;
	ch->last_stage = last;
	return true;
}

/* Checks how a schedule's chunks share PUs: a PU runs one chunk, or
 * several that each have a core count, summing to at most its pinnable
 * cores; a farm member runs nothing else. Reports and returns false. */
static bool check_pu_sharing(const char *spec, const struct btc_schedule *s,
			     const struct btc_device *dev, struct btc_diag *d)
{
	struct btc_loc loc = {0};
	int api[BTC_N_BACKENDS] = {0}; /* a PU of each backend in use, + 1 */
	for (int u = 0; u < dev->n_pus; u++) {
		const char *name = dev->pus[u].name;
		int uses = 0, whole = 0, in_farm = 0, sum = 0;
		for (int c = 0; c < s->n_chunks; c++) {
			const struct btc_sched_chunk *ch = &s->chunks[c];
			bool on = ch->farm ? (ch->farm >> u) & 1u : ch->pu == u;
			if (!on)
				continue;
			uses++;
			in_farm += ch->farm != 0;
			whole += ch->farm == 0 && ch->cores == 0;
			sum += ch->farm ? 0 : ch->cores; /* a whole PU takes its pinnable cores */
		}
		if (uses && !api[dev->pus[u].kind])
			api[dev->pus[u].kind] = u + 1;
		if (api[BTC_BACKEND_CUDA] && api[BTC_BACKEND_VULKAN]) {
			btc_error(d, loc,
				  "--chunks '%s': PUs '%s' (cuda) and '%s' (vulkan): a pipeline uses one GPU API",
				  spec, dev->pus[api[BTC_BACKEND_CUDA] - 1].name,
				  dev->pus[api[BTC_BACKEND_VULKAN] - 1].name);
			return false;
		}
		if (uses > 1 && in_farm) {
			btc_error(d, loc,
				  "--chunks '%s': PU '%s' is a farm member and runs another chunk",
				  spec, name);
			return false;
		}
		if (uses > 1 && whole) {
			btc_error(
				d, loc,
				"--chunks '%s': PU '%s' runs two chunks (split its cores: %s[K]:..., %s[K]:...)",
				spec, name, name, name);
			return false;
		}
		if (uses > 1 && sum > dev->pus[u].n_cores) {
			btc_error(d, loc, "--chunks '%s': the chunks on PU '%s' ask for %d cores; it has %d",
				  spec, name, sum, dev->pus[u].n_cores);
			return false;
		}
		const int *pin;
		int n_pin = btc_pu_pinnable(&dev->pus[u], &pin);
		if (dev->pus[u].kind == BTC_BACKEND_CPU && uses && sum > n_pin) {
			btc_error(
				d, loc,
				"--chunks '%s': the chunks on PU '%s' need %d pinnable cores; it has %d (%s's `pinnable`)",
				spec, name, sum, n_pin, dev->name);
			return false;
		}
		if (dev->pus[u].kind == BTC_BACKEND_CPU && uses && n_pin == 0) {
			btc_error(d, loc, "--chunks '%s': PU '%s' has no pinnable core", spec, name);
			return false;
		}
	}
	return true;
}

bool btc_plan_parse_spec(const char *spec, const struct btc_app *app, const struct btc_device *dev,
			 struct btc_schedule *out, struct btc_diag *d)
{
	memset(out, 0, sizeof(*out));
	char *copy = btc_xstrdup(spec);
	int next = 0;
	bool ok = true;
	struct btc_loc loc = {0};
	/* Chunks are separated by the commas outside {...}. */
	char *tok = copy;
	while (ok && tok) {
		char *q = tok;
		int depth = 0;
		for (; *q && !(*q == ',' && depth == 0); q++)
			depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
		char *rest = *q ? q + 1 : NULL;
		*q = '\0';
		struct btc_sched_chunk ch;
		if (out->n_chunks == BTC_SCHED_MAX_PUS) {
			btc_error(d, loc, "--chunks '%s': too many chunks", spec);
			ok = false;
		} else if (!parse_chunk(spec, tok, next, app, dev, &ch, d)) {
			ok = false;
		} else {
			out->chunks[out->n_chunks++] = ch;
			next = ch.last_stage + 1;
		}
		tok = rest;
	}
	if (ok && next != app->n_stages) {
		btc_error(d, loc, "--chunks '%s': stages %d..%d are not scheduled", spec, next,
			  app->n_stages - 1);
		ok = false;
	}
	if (ok)
		ok = check_pu_sharing(spec, out, dev, d);
	/* All of its PU's cores is the paper's whole-PU chunk. */
	for (int c = 0; ok && c < out->n_chunks; c++)
		if (out->chunks[c].cores == dev->pus[out->chunks[c].pu].n_cores)
			out->chunks[c].cores = 0;
	free(copy);
	return ok;
}

char *btc_plan_schedule_label(const struct btc_schedule *s, const struct btc_device *dev)
{
	struct btc_out o;
	btc_out_init(&o);
	for (int c = 0; c < s->n_chunks; c++) {
		const struct btc_sched_chunk *ch = &s->chunks[c];
		btc_outf(&o, "%s", c ? " " : "");
		if (ch->farm) {
			btc_outf(&o, "{");
			for (int u = 0, k = 0; u < dev->n_pus && u < 32; u++)
				if ((ch->farm >> u) & 1u)
					btc_outf(&o, "%s%s", k++ ? "," : "", dev->pus[u].name);
			btc_outf(&o, "}");
		} else if (ch->cores) {
			btc_outf(&o, "%s[%d]", dev->pus[ch->pu].name, ch->cores);
		} else {
			btc_outf(&o, "%s", dev->pus[ch->pu].name);
		}
		if (ch->first_stage == ch->last_stage)
			btc_outf(&o, ":%d", ch->first_stage);
		else
			btc_outf(&o, ":%d-%d", ch->first_stage, ch->last_stage);
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
			g->baseline = g->s.n_chunks == 1 && !g->s.chunks[0].farm &&
				      !g->s.chunks[0].cores;
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
				dup |= list[i].baseline && list[i].s.chunks[0].pu == u;
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
			g->s.chunks[0] = (struct btc_sched_chunk){.pu = u, .last_stage = app->n_stages - 1};
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
