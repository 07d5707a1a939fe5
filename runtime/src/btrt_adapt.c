/* Adaptive runs: segments of btrt_pipeline_run, one per schedule, joined
 * at task boundaries; their records merged into one run; the switches
 * printed and marked in the trace (btrt_adapt.h). */
#include "btrt_adapt.h"
#include "btrt_internal.h"
#include "btrt_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct btrt_adapt_result {
	struct btrt_run *run;      /* merged records */
	uint32_t *key;             /* [run->n_chunks] schedule * 65536 + chunk */
	char **names;              /* [run->n_chunks] "PU [schedule N]" */
	struct btrt_wait_stats *cwaits; /* [run->n_chunks] */
	struct btrt_wait_stats io_waits[2]; /* the io sink, the io source */
	struct btrt_adapt_decision *dec;
	uint32_t n_dec, n_switches, settle, start;
	const struct btrt_adapt_schedule *scheds; /* borrowed for printing */
	const struct btrt_model *model;
};

struct ctx {
	struct btrt_adapt_ctl *ctl;
	const struct btrt_pipeline_config *base;
	uint64_t decide_ns;
	int user_stop;
};

static int on_done(void *p, const struct btrt_task_done *d)
{
	struct ctx *x = p;
	int sw = btrt_adapt_ctl_observe(x->ctl, d);
	if (sw)
		x->decide_ns = btrt_now_ns();
	if (x->base->on_task_done &&
	    x->base->on_task_done(x->base->on_task_done_ctx, d))
		x->user_stop = 1;
	return sw || x->user_stop;
}

/* Appends n elements of size sz from src to *dst (count *nd, capacity
 * *cap). Returns 0 or -1 (out of memory). */
static int append(void **dst, size_t *nd, size_t *cap, const void *src, size_t n, size_t sz)
{
	if (!n)
		return 0;
	if (*nd + n > *cap) {
		size_t c = *cap ? *cap : 64;
		while (c < *nd + n)
			c *= 2;
		void *q = realloc(*dst, c * sz);
		if (!q)
			return -1;
		*dst = q;
		*cap = c;
	}
	memcpy((char *)*dst + *nd * sz, src, n * sz);
	*nd += n;
	return 0;
}

/* The merged chunk record of (schedule k, chunk c), created on first use.
 * Returns its index, or -1 (out of memory). */
static int merged_chunk(struct btrt_adapt_result *res, uint32_t k, uint32_t c,
			const struct btrt_chunk_rec *src)
{
	struct btrt_run *m = res->run;
	uint32_t key = k * 65536u + c;
	for (uint32_t i = 0; i < m->n_chunks; i++)
		if (res->key[i] == key)
			return (int)i;
	uint32_t n = m->n_chunks + 1;
	void *a = realloc(m->chunks, n * sizeof *m->chunks);
	if (a)
		m->chunks = a;
	void *b = realloc(res->key, n * sizeof *res->key);
	if (b)
		res->key = b;
	void *d = realloc(res->names, n * sizeof *res->names);
	if (d)
		res->names = d;
	void *w = realloc(res->cwaits, n * sizeof *res->cwaits);
	if (w)
		res->cwaits = w;
	size_t len = strlen(src->name) + 32;
	char *name = malloc(len);
	if (!a || !b || !d || !w || !name) {
		free(name);
		return -1;
	}
	snprintf(name, len, "%s [schedule %u]", src->name, k);
	struct btrt_chunk_rec *r = &m->chunks[m->n_chunks];
	memset(r, 0, sizeof *r);
	r->name = name;
	r->pu = src->pu;
	r->first_stage = src->first_stage;
	r->n_stages = src->n_stages;
	r->limit = src->limit;
	res->key[m->n_chunks] = key;
	res->names[m->n_chunks] = name;
	memset(&res->cwaits[m->n_chunks], 0, sizeof *res->cwaits);
	m->n_chunks = n;
	return (int)(n - 1);
}

static void add_waits(struct btrt_wait_stats *a, const struct btrt_wait_stats *b)
{
	a->waits += b->waits;
	a->polls += b->polls;
	a->blocks += b->blocks;
	a->wakes += b->wakes;
}

/* Moves the records of segment run r (schedule k, starting at first_seq)
 * into the merged run. Returns 0 or -1 (out of memory). */
static int merge(struct btrt_adapt_result *res, struct btrt_run *r, uint32_t k, uint64_t first_seq)
{
	struct btrt_run *m = res->run;
	if (!m->t0)
		m->t0 = r->t0;
	if (r->items)
		m->t_end = r->t_end;
	m->items += r->items;
	/* io records are indexed by seq: contiguous while no segment hit
	 * its record limit. */
	if (m->n_io == first_seq && m->n_io < m->limit) {
		size_t n = r->n_io;
		if (n > m->limit - m->n_io)
			n = (size_t)(m->limit - m->n_io);
		if (append((void **)&m->io, &m->n_io, &m->cap_io, r->io, n, sizeof *r->io))
			return -1;
	}
	for (uint32_t c = 0; c < r->n_chunks; c++) {
		const struct btrt_chunk_rec *src = &r->chunks[c];
		int i = merged_chunk(res, k, c, src);
		if (i < 0)
			return -1;
		struct btrt_chunk_rec *dst = &m->chunks[i];
		size_t nt = src->n_tasks, ns = src->n_stages_rec;
		if (nt > dst->limit - dst->n_tasks)
			nt = (size_t)(dst->limit - dst->n_tasks);
		if (ns > dst->limit * dst->n_stages - dst->n_stages_rec)
			ns = (size_t)(dst->limit * dst->n_stages - dst->n_stages_rec);
		if (append((void **)&dst->tasks, &dst->n_tasks, &dst->cap_tasks, src->tasks, nt,
			   sizeof *src->tasks) ||
		    append((void **)&dst->stages, &dst->n_stages_rec, &dst->cap_stages, src->stages,
			   ns, sizeof *src->stages))
			return -1;
		add_waits(&res->cwaits[i], &r->waits[c]);
	}
	add_waits(&res->io_waits[0], &r->waits[r->n_chunks]);
	add_waits(&res->io_waits[1], &r->waits[r->n_chunks + 1]);
	/* chunks, then the io sink and source (btrt_run_wait_stats) */
	void *w = realloc(m->waits, (m->n_chunks + 2) * sizeof *m->waits);
	if (!w)
		return -1;
	m->waits = w;
	memcpy(m->waits, res->cwaits, m->n_chunks * sizeof *m->waits);
	memcpy(&m->waits[m->n_chunks], res->io_waits, sizeof res->io_waits);
	return 0;
}

static struct btrt_adapt_result *result_alloc(const struct btrt_adapt_config *cfg)
{
	const struct btrt_pipeline_config *b = cfg->base;
	struct btrt_adapt_result *res = calloc(1, sizeof *res);
	if (!res)
		return NULL;
	res->run = calloc(1, sizeof *res->run);
	if (res->run) {
		res->run->app = b->app ? b->app : "app";
		res->run->n_stages = b->n_stages;
		res->run->limit = b->record_limit ? b->record_limit : BTRT_DEFAULT_RECORD_LIMIT;
		res->run->stage_names = calloc(b->n_stages, sizeof *res->run->stage_names);
		res->run->waits = calloc(2, sizeof *res->run->waits);
	}
	if (!res->run || !res->run->stage_names || !res->run->waits) {
		btrt_adapt_free(res);
		return NULL;
	}
	for (uint32_t s = 0; s < b->n_stages; s++)
		res->run->stage_names[s] = b->stages[s].name ? b->stages[s].name : "";
	res->scheds = cfg->scheds;
	res->model = cfg->model;
	res->start = cfg->start;
	return res;
}

static int check_config(const struct btrt_adapt_config *cfg, struct btrt_error *err)
{
	if (!cfg->base || !cfg->scheds || !cfg->n_scheds || cfg->start >= cfg->n_scheds)
		return btrt_error_set(err, BTRT_E_INVAL, 0,
				      "adapt: no base config, no schedules or a bad start");
	if (cfg->model && cfg->model->n_pus > BTRT_ADAPT_MAX_PUS)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "adapt: more than %d PUs",
				      BTRT_ADAPT_MAX_PUS);
	for (uint32_t k = 0; cfg->model && k < cfg->n_scheds; k++)
		for (uint32_t c = 0; cfg->scheds[k].pus && c < cfg->scheds[k].n_chunks; c++)
			if (cfg->scheds[k].pus[c] >= cfg->model->n_pus)
				return btrt_error_set(err, BTRT_E_INVAL, 0,
						      "adapt: schedule %u chunk %u: PU %u not in the model",
						      k, c, cfg->scheds[k].pus[c]);
	return 0;
}

int btrt_adapt_run(const struct btrt_adapt_config *cfg, struct btrt_adapt_result **out,
		   struct btrt_error *err)
{
	btrt_error_clear(err);
	*out = NULL;
	if (check_config(cfg, err))
		return -1;
	struct btrt_adapt_result *res = result_alloc(cfg);
	struct btrt_adapt_ctl *ctl =
		res ? btrt_adapt_ctl_create(cfg->model, cfg->scheds, cfg->n_scheds, cfg->start,
					    btrt_pool_size(cfg->base->pool), &cfg->opt)
		    : NULL;
	if (!res || !ctl) {
		btrt_adapt_ctl_free(ctl);
		btrt_adapt_free(res);
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "adapt: out of memory");
	}
	res->settle = btrt_adapt_settle(&cfg->opt, btrt_pool_size(cfg->base->pool));
	struct ctx x = { .ctl = ctl, .base = cfg->base };
	struct btrt_pipeline_config seg = *cfg->base;
	seg.on_task_done = on_done;
	seg.on_task_done_ctx = &x;
	seg.first_seq = cfg->base->first_seq;
	int rc = 0;
	uint32_t nd, started_by = UINT32_MAX; /* the decision that started the segment */
	const struct btrt_adapt_decision *dv;
	for (;;) {
		uint32_t k = btrt_adapt_ctl_current(ctl);
		seg.chunks = cfg->scheds[k].chunks;
		seg.n_chunks = cfg->scheds[k].n_chunks;
		struct btrt_run *r = NULL;
		rc = btrt_pipeline_run(&seg, &r, err);
		dv = btrt_adapt_ctl_decisions(ctl, &nd);
		if (r && started_by < nd)
			((struct btrt_adapt_decision *)&dv[started_by])->resumed_ns = r->t0;
		if (r && merge(res, r, k, seg.first_seq)) {
			btrt_run_free(r);
			rc = btrt_error_set(err, BTRT_E_NOMEM, 0, "adapt: out of memory");
			break;
		}
		uint64_t items = r ? r->items : 0, t_end = r ? r->t_end : 0;
		btrt_run_free(r);
		if (rc)
			break;
		seg.first_seq += items;
		int more = !cfg->base->n_items || seg.first_seq < cfg->base->n_items;
		if (btrt_adapt_ctl_target(ctl) == k || x.user_stop || !more)
			break; /* the stream is through (or the caller stopped it) */
		/* A switch: the segment drained at its last check. The
		 * switch is the controller's last decision (it decides
		 * nothing while draining). */
		started_by = nd - 1;
		struct btrt_adapt_decision *d = (struct btrt_adapt_decision *)&dv[started_by];
		d->decide_ns = x.decide_ns;
		/* No earlier than the decision: the io source may have had no
		 * further task loaded when it was taken. */
		d->drained_ns = t_end ? t_end : btrt_now_ns();
		if (d->drained_ns < d->decide_ns)
			d->drained_ns = d->decide_ns;
		d->resume_seq = seg.first_seq;
		btrt_adapt_ctl_switched(ctl);
	}
	dv = btrt_adapt_ctl_decisions(ctl, &nd);
	/* A switch decided while the stream's last tasks drained (the input
	 * ended, the caller stopped, or a run failed) was never carried out:
	 * it is the last decision (none is taken while draining) and not one
	 * of this run's. */
	if (nd && btrt_adapt_ctl_target(ctl) != btrt_adapt_ctl_current(ctl))
		nd--;
	if (nd) {
		res->dec = malloc(nd * sizeof *res->dec);
		if (res->dec) {
			memcpy(res->dec, dv, nd * sizeof *dv);
			res->n_dec = nd;
		}
	}
	for (uint32_t i = 0; i < res->n_dec; i++)
		res->n_switches += res->dec[i].to != res->dec[i].from && res->dec[i].resumed_ns;
	btrt_adapt_ctl_free(ctl);
	*out = res;
	return rc ? -1 : 0;
}

const struct btrt_run *btrt_adapt_records(const struct btrt_adapt_result *res)
{
	return res->run;
}

const char *btrt_adapt_chunk_name(const struct btrt_adapt_result *res, uint32_t c)
{
	return c < res->run->n_chunks ? res->names[c] : NULL;
}

const struct btrt_adapt_decision *btrt_adapt_decisions(const struct btrt_adapt_result *res,
						       uint32_t *n)
{
	*n = res->n_dec;
	return res->dec;
}

uint32_t btrt_adapt_switches(const struct btrt_adapt_result *res)
{
	return res->n_switches;
}

double btrt_adapt_after_switch_ns(const struct btrt_adapt_result *res, uint64_t warmup,
				  uint64_t *from_seq)
{
	uint64_t from = warmup;
	for (uint32_t i = 0; i < res->n_dec; i++)
		if (res->dec[i].resumed_ns && res->dec[i].resume_seq + res->settle > from)
			from = res->dec[i].resume_seq + res->settle;
	const struct btrt_run *r = res->run;
	uint64_t n = r->n_io < r->items ? r->n_io : r->items;
	if (from_seq)
		*from_seq = from;
	if (from >= n)
		return 0.0;
	return btrt_run_steady_ns(r, from);
}

uint32_t btrt_adapt_final_schedule(const struct btrt_adapt_result *res)
{
	uint32_t k = res->start;
	for (uint32_t i = 0; i < res->n_dec; i++)
		if (res->dec[i].to != res->dec[i].from && res->dec[i].resumed_ns)
			k = res->dec[i].to;
	return k;
}

int btrt_adapt_check_model(const struct btrt_model *m, const struct btrt_adapt_schedule *scheds,
			   uint32_t n, struct btrt_error *err)
{
	for (uint32_t k = 0; k < n; k++) {
		const struct btrt_adapt_schedule *s = &scheds[k];
		if (!s->pus || s->predicted_ms <= 0)
			continue;
		double p = btrt_model_period_ms(m, s, NULL, -1);
		if (!(fabs(p - s->predicted_ms) <= 1e-6 * (1 + s->predicted_ms)))
			return btrt_error_set(err, BTRT_E_INVAL, 0,
					      "adapt: the compiled cost model predicts %.6f ms for "
					      "schedule %u (%s), btc predicted %.6f ms",
					      p, k, s->label ? s->label : "", s->predicted_ms);
	}
	return 0;
}

static void json_text(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	fputc('"', f);
}

void btrt_adapt_write_json(const struct btrt_adapt_result *res, uint64_t warmup, FILE *f)
{
	uint64_t from = 0;
	double ns = btrt_adapt_after_switch_ns(res, warmup, &from);
	uint32_t trials = 0, reverts = 0;
	for (uint32_t i = 0; i < res->n_dec; i++) {
		const struct btrt_adapt_decision *d = &res->dec[i];
		if (d->to != d->from && d->resumed_ns) {
			trials += !strcmp(d->kind, "trial");
			reverts += !strcmp(d->kind, "revert");
		}
	}
	fprintf(f, "\"switches\": %u, \"trials\": %u, \"reverts\": %u, \"final_schedule\": %u, "
		"\"after_switch_from_task\": %" PRIu64 ", \"after_switch_ms_per_task\": %.6f, "
		"\"decisions\": [",
		res->n_switches, trials, reverts, btrt_adapt_final_schedule(res), from, ns / 1e6);
	for (uint32_t i = 0; i < res->n_dec; i++) {
		const struct btrt_adapt_decision *d = &res->dec[i];
		fprintf(f, "%s\n  {\"task\": %" PRIu64 ", \"from\": %u, \"to\": %u, \"kind\": ",
			i ? "," : "", d->seq, d->from, d->to);
		json_text(f, d->kind);
		fprintf(f, ", \"reason\": ");
		json_text(f, d->reason);
		fprintf(f, ", \"observed_ms\": %.6f, \"expected_ms\": %.6f, \"predicted_from_ms\": %.6f, "
			"\"predicted_to_ms\": %.6f, \"expected_to_ms\": %.6f, ",
			d->observed_ms, d->expected_ms, d->predicted_from_ms, d->predicted_to_ms,
			d->expected_to_ms);
		if (d->trial_ms > 0)
			fprintf(f, "\"trial_ms\": %.6f, \"compared_ms\": %.6f, ", d->trial_ms,
				d->compared_ms);
		fprintf(f, "\"slowdown\": {");
		for (uint32_t u = 0; u < d->n_pus; u++) {
			fprintf(f, "%s", u ? ", " : "");
			json_text(f, res->model && res->model->pu_names ? res->model->pu_names[u] : "pu");
			fprintf(f, ": %.4f", d->slowdown[u]);
		}
		fprintf(f, "}");
		if (d->to != d->from && d->resumed_ns)
			fprintf(f, ", \"resume_task\": %" PRIu64 ", \"switch_ms\": %.6f, "
				"\"drain_ms\": %.6f, \"rewire_ms\": %.6f",
				d->resume_seq, (double)(d->resumed_ns - d->decide_ns) / 1e6,
				(double)(d->drained_ns - d->decide_ns) / 1e6,
				(double)(d->resumed_ns - d->drained_ns) / 1e6);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

static const char *label_of(const struct btrt_adapt_result *res, uint32_t k)
{
	return res->scheds[k].label ? res->scheds[k].label : "";
}

void btrt_adapt_print(const struct btrt_adapt_result *res, FILE *out, int all)
{
	fprintf(out, "adapt: %u switch%s\n", res->n_switches, res->n_switches == 1 ? "" : "es");
	for (uint32_t i = 0; i < res->n_dec; i++) {
		const struct btrt_adapt_decision *d = &res->dec[i];
		int sw = d->to != d->from && d->resumed_ns;
		if (!sw && !all)
			continue;
		fprintf(out, "  task %" PRIu64 ": %s: %s: ", d->seq, d->kind, d->reason);
		if (sw)
			fprintf(out, "schedule %u (%s) -> %u (%s)", d->from, label_of(res, d->from),
				d->to, label_of(res, d->to));
		else
			fprintf(out, "kept schedule %u (%s)", d->from, label_of(res, d->from));
		if (d->observed_ms > 0)
			fprintf(out, "; period %.3f ms/task vs expected %.3f", d->observed_ms,
				d->expected_ms);
		if (d->trial_ms > 0)
			fprintf(out, "; trial %.3f ms/task vs best other %.3f", d->trial_ms,
				d->compared_ms);
		if (d->predicted_from_ms > 0)
			fprintf(out, "; model %.3f -> %.3f ms, expected %.3f", d->predicted_from_ms,
				d->predicted_to_ms, d->expected_to_ms);
		for (uint32_t u = 0; u < d->n_pus; u++)
			fprintf(out, "%s %s x%.2f%s", u ? "," : "; slowdown",
				res->model && res->model->pu_names ? res->model->pu_names[u] : "?",
				d->slowdown[u], d->observed[u] ? "" : " (assumed)");
		if (sw)
			fprintf(out, "; switching %.3f ms (drain %.3f + rewire %.3f), resumed at task %" PRIu64,
				(double)(d->resumed_ns - d->decide_ns) / 1e6,
				(double)(d->drained_ns - d->decide_ns) / 1e6,
				(double)(d->resumed_ns - d->drained_ns) / 1e6, d->resume_seq);
		fprintf(out, "\n");
	}
}

static double us_since(const struct btrt_run *r, uint64_t t)
{
	return t > r->t0 ? (double)(t - r->t0) / 1e3 : 0.0;
}

static void decision_args(FILE *f, const struct btrt_adapt_result *res,
			  const struct btrt_adapt_decision *d)
{
	fprintf(f, "\"seq\":%" PRIu64 ",\"from\":%u,\"to\":%u,\"kind\":\"%s\",\"reason\":\"%s\","
		"\"observed_ms\":%.6f,\"expected_ms\":%.6f,\"predicted_from_ms\":%.6f,"
		"\"predicted_to_ms\":%.6f,\"expected_to_ms\":%.6f",
		d->seq, d->from, d->to, d->kind, d->reason, d->observed_ms, d->expected_ms,
		d->predicted_from_ms, d->predicted_to_ms, d->expected_to_ms);
	if (d->trial_ms > 0)
		fprintf(f, ",\"trial_ms\":%.6f,\"compared_ms\":%.6f", d->trial_ms, d->compared_ms);
	for (uint32_t u = 0; u < d->n_pus; u++)
		fprintf(f, ",\"slowdown_%s\":%.4f",
			res->model && res->model->pu_names ? res->model->pu_names[u] : "pu",
			d->slowdown[u]);
	if (d->resumed_ns)
		fprintf(f, ",\"resume_seq\":%" PRIu64 ",\"drain_ms\":%.6f,\"rewire_ms\":%.6f",
			d->resume_seq, (double)(d->drained_ns - d->decide_ns) / 1e6,
			(double)(d->resumed_ns - d->drained_ns) / 1e6);
}

void btrt_adapt_trace_events(const struct btrt_adapt_result *res, FILE *f)
{
	/* the run's events, then the decisions before the array's end */
	btrt_run_trace_events(res->run, f);
	const struct btrt_run *r = res->run;
	for (uint32_t i = 0; i < res->n_dec; i++) {
		const struct btrt_adapt_decision *d = &res->dec[i];
		int sw = d->to != d->from && d->resumed_ns;
		char name[64];
		if (sw)
			snprintf(name, sizeof name, "switch %u -> %u", d->from, d->to);
		else
			snprintf(name, sizeof name, "%s %u", d->kind, d->from);
		uint64_t t = sw ? d->decide_ns : 0;
		if (!sw) /* at the completion of the task it was taken after */
			t = d->seq < r->n_io ? r->io[d->seq].check_end : r->t_end;
		fprintf(f, ",\n{\"name\":\"%s\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,"
			"\"ts\":%.3f,\"args\":{", name, us_since(r, t));
		decision_args(f, res, d);
		fprintf(f, "}}");
		if (sw) {
			fprintf(f, ",\n{\"name\":\"switching %u -> %u\",\"ph\":\"X\",\"pid\":1,"
				"\"tid\":0,\"ts\":%.3f,\"dur\":%.3f,\"args\":{",
				d->from, d->to, us_since(r, d->decide_ns),
				(double)(d->resumed_ns - d->decide_ns) / 1e3);
			decision_args(f, res, d);
			fprintf(f, "}}");
		}
	}
}

int btrt_adapt_write_trace(const struct btrt_adapt_result *res, const char *path,
			   struct btrt_error *err)
{
	struct btrt_ofile o;
	if (btrt_ofile_open(&o, path, err))
		return -1;
	btrt_adapt_trace_events(res, o.f);
	fputs(BTRT_TRACE_TAIL, o.f);
	return btrt_ofile_commit(&o, err);
}

void btrt_adapt_free(struct btrt_adapt_result *res)
{
	if (!res)
		return;
	if (res->run) {
		for (uint32_t i = 0; i < res->run->n_chunks; i++)
			free(res->names[i]);
	}
	btrt_run_free(res->run);
	free(res->names);
	free(res->cwaits);
	free(res->key);
	free(res->dec);
	free(res);
}
