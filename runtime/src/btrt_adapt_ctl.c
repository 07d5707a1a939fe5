/* The cost model as data and the adaptive controller: observe, decide
 * (btrt_adapt.h; docs/runtime.md, "Adaptive pipelines"). Pure: no threads,
 * no clock; btrt_adapt.c drives it from the io thread. */
#include "btrt_adapt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Quiet windows after which the switch backoff is forgotten. */
#define BTRT_ADAPT_QUIET 16

double btrt_model_chunk_ms(const struct btrt_model *m, uint32_t c, uint32_t f, uint32_t l)
{
	/* The twin of btc_model_chunk_ms (btc/sched/model.c): same terms,
	 * same order of summation, so the same doubles. */
	uint32_t np = m->n_pus;
	double t = m->fixed_ms ? m->fixed_ms[c] : 0;
	for (uint32_t i = f; i <= l; i++)
		t += m->time_ms[(size_t)i * np + c];
	if (m->xfer_ms)
		t += m->xfer_ms[btrt_model_xfer_index(m->n_stages, np, c, f, l)];
	return t;
}

double btrt_model_period_ms(const struct btrt_model *m, const struct btrt_adapt_schedule *s,
			    const double *slowdown, double io_ms)
{
	double p = io_ms >= 0 ? io_ms : m->io_ms;
	for (uint32_t k = 0; k < s->n_chunks; k++) {
		const struct btrt_chunk *ch = &s->chunks[k];
		uint32_t u = s->pus[k];
		double t = btrt_model_chunk_ms(m, u, ch->first_stage,
					       ch->first_stage + ch->n_stages - 1);
		if (isnan(t))
			return NAN;
		t *= slowdown ? slowdown[u] : 1.0;
		p = t > p ? t : p;
	}
	return p;
}

void btrt_adapt_options_init(struct btrt_adapt_options *o)
{
	memset(o, 0, sizeof *o);
	o->window = 16;
	o->patience = 2;
	o->threshold = 0.50;
	o->margin = 0.20;
}

struct btrt_adapt_ctl {
	const struct btrt_model *m;
	const struct btrt_adapt_schedule *s;
	uint32_t n, cur, target;
	int pending;               /* a switch was asked for: draining */
	struct btrt_adapt_options o;
	uint32_t settle;
	/* this segment */
	uint64_t seg_tasks;        /* tasks observed since the (re)start */
	uint64_t last_done;        /* previous completion (ns), 0: none */
	uint32_t w;                /* tasks in the current window */
	double sum_iv, sum_io;     /* ns */
	double *sum_chunk;         /* [max chunks] ns */
	uint32_t over;             /* windows in a row above the threshold */
	uint32_t quiet;            /* windows in a row below it */
	uint32_t backoff;          /* windows above needed: patience x backoff,
				      doubled by every switch (up to 8), back
				      to 1 after BTRT_ADAPT_QUIET quiet windows */
	double *ratio;             /* [n] observed / predicted period of each
				      schedule when it last ran, 0: never */
	double expected_ms;        /* what the trigger compares with; 0: the
				      next window sets it */
	double next_expected_ms;   /* expected_ms after the pending switch */
	/* the machine: slowdown of PU u = its chunk time / the model's, over
	 * the same at the start (base: the table's own error on that chunk is
	 * not a disturbance); PUs first seen later have base 1 */
	int calibrated;
	double slow[BTRT_ADAPT_MAX_PUS];
	double base[BTRT_ADAPT_MAX_PUS];
	unsigned char seen[BTRT_ADAPT_MAX_PUS];
	struct btrt_adapt_decision *dec;
	uint32_t n_dec, cap_dec;
};

struct btrt_adapt_ctl *btrt_adapt_ctl_create(const struct btrt_model *m,
					     const struct btrt_adapt_schedule *scheds,
					     uint32_t n_scheds, uint32_t start,
					     uint32_t pool_size,
					     const struct btrt_adapt_options *opt)
{
	struct btrt_adapt_ctl *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	uint32_t max_chunks = 1;
	for (uint32_t k = 0; k < n_scheds; k++)
		max_chunks = scheds[k].n_chunks > max_chunks ? scheds[k].n_chunks : max_chunks;
	c->sum_chunk = calloc(max_chunks, sizeof *c->sum_chunk);
	c->ratio = calloc(n_scheds ? n_scheds : 1, sizeof *c->ratio);
	if (!c->sum_chunk || !c->ratio) {
		free(c->sum_chunk);
		free(c->ratio);
		free(c);
		return NULL;
	}
	c->backoff = 1;
	c->m = m;
	c->s = scheds;
	c->n = n_scheds;
	c->cur = c->target = start;
	c->o = *opt;
	if (!c->o.window)
		c->o.window = 1;
	if (!c->o.patience)
		c->o.patience = 1;
	c->settle = c->o.settle ? c->o.settle : pool_size + 4;
	for (uint32_t u = 0; u < BTRT_ADAPT_MAX_PUS; u++)
		c->slow[u] = c->base[u] = 1.0;
	return c;
}

void btrt_adapt_ctl_free(struct btrt_adapt_ctl *c)
{
	if (!c)
		return;
	free(c->sum_chunk);
	free(c->ratio);
	free(c->dec);
	free(c);
}

uint32_t btrt_adapt_ctl_target(const struct btrt_adapt_ctl *c) { return c->target; }
uint32_t btrt_adapt_ctl_current(const struct btrt_adapt_ctl *c) { return c->cur; }

const struct btrt_adapt_decision *btrt_adapt_ctl_decisions(const struct btrt_adapt_ctl *c,
							   uint32_t *n)
{
	*n = c->n_dec;
	return c->dec;
}

static void reset_window(struct btrt_adapt_ctl *c)
{
	c->w = 0;
	c->sum_iv = c->sum_io = 0;
	uint32_t nc = c->s[c->cur].n_chunks;
	for (uint32_t k = 0; k < nc; k++)
		c->sum_chunk[k] = 0;
}

void btrt_adapt_ctl_switched(struct btrt_adapt_ctl *c)
{
	c->cur = c->target;
	c->pending = 0;
	c->seg_tasks = 0;
	c->last_done = 0;
	c->over = c->quiet = 0;
	c->backoff = c->backoff < 8 ? 2 * c->backoff : 8;
	c->expected_ms = c->next_expected_ms;
	c->next_expected_ms = 0;
	reset_window(c);
}

/* The slowdown the model applies to PU u: measured, else none. */
static double slowdown_of(const struct btrt_adapt_ctl *c, uint32_t u)
{
	return c->seen[u] ? c->slow[u] : 1.0;
}

/* Appends a decision; returns it (NULL: out of memory, not recorded). */
static struct btrt_adapt_decision *record(struct btrt_adapt_ctl *c, uint64_t seq, uint32_t to,
					  const char *reason, double observed, double expected)
{
	if (c->n_dec == c->cap_dec) {
		uint32_t cap = c->cap_dec ? 2 * c->cap_dec : 8;
		void *p = realloc(c->dec, cap * sizeof *c->dec);
		if (!p)
			return NULL;
		c->dec = p;
		c->cap_dec = cap;
	}
	struct btrt_adapt_decision *d = &c->dec[c->n_dec++];
	memset(d, 0, sizeof *d);
	d->seq = seq;
	d->from = c->cur;
	d->to = to;
	d->reason = reason;
	d->observed_ms = observed;
	d->expected_ms = expected;
	if (c->m) {
		d->n_pus = c->m->n_pus;
		for (uint32_t u = 0; u < c->m->n_pus; u++) {
			d->slowdown[u] = slowdown_of(c, u);
			d->observed[u] = c->seen[u];
		}
	}
	return d;
}

static void log_decision(const struct btrt_adapt_ctl *c, const struct btrt_adapt_decision *d)
{
	FILE *f = c->o.log;
	if (!f || !d)
		return;
	fprintf(f, "adapt: task %llu: %s: ", (unsigned long long)d->seq, d->reason);
	if (d->to != d->from)
		fprintf(f, "switch %u (%s) -> %u (%s)", d->from, c->s[d->from].label, d->to,
			c->s[d->to].label);
	else
		fprintf(f, "keep %u (%s)", d->from, c->s[d->from].label);
	if (d->observed_ms > 0)
		fprintf(f, "; period %.3f ms/task, expected %.3f", d->observed_ms, d->expected_ms);
	if (d->predicted_from_ms > 0)
		fprintf(f, "; model %.3f -> %.3f ms, expected %.3f", d->predicted_from_ms,
			d->predicted_to_ms, d->expected_to_ms);
	if (d->n_pus) {
		fprintf(f, "; slowdown");
		for (uint32_t u = 0; u < d->n_pus; u++)
			fprintf(f, " %s %.2f%s", c->m->pu_names ? c->m->pu_names[u] : "?",
				d->slowdown[u], d->observed[u] ? "" : "*");
	}
	fprintf(f, "\n");
	fflush(f);
}

/* Re-ranks every schedule with the slowdowns applied (the same model as
 * btc's optimizer, btrt_model_period_ms), each prediction times the
 * schedule's observed / predicted ratio from when it last ran (the current
 * one's for a schedule never run: what the per-PU model leaves out, e.g.
 * handoffs, or a core that the OS fills with other work once another is
 * hogged), and decides. Returns 1 to switch. */
static int decide(struct btrt_adapt_ctl *c, uint64_t seq, double period_ms, double io_ms)
{
	double sl[BTRT_ADAPT_MAX_PUS];
	for (uint32_t u = 0; u < c->m->n_pus; u++)
		sl[u] = slowdown_of(c, u);
	double p_cur = btrt_model_period_ms(c->m, &c->s[c->cur], sl, io_ms);
	if (isfinite(p_cur) && p_cur > 0)
		c->ratio[c->cur] = period_ms / p_cur;
	double r_cur = c->ratio[c->cur] > 0 ? c->ratio[c->cur] : 1.0;
	uint32_t best = c->cur;
	double p_best = p_cur, e_best = period_ms; /* model; model x ratio */
	for (uint32_t k = 0; k < c->n; k++) {
		if (!c->s[k].pus || c->s[k].skip || k == c->cur)
			continue;
		double p = btrt_model_period_ms(c->m, &c->s[k], sl, io_ms);
		double e = p * (c->ratio[k] > 0 ? c->ratio[k] : r_cur);
		if (!isnan(e) && e < e_best) {
			best = k;
			p_best = p;
			e_best = e;
		}
	}
	int go = best != c->cur && e_best * (1.0 + c->o.margin) < period_ms;
	struct btrt_adapt_decision *d =
		record(c, seq, go ? best : c->cur,
		       go ? "period above expected, a schedule predicted faster"
			  : "period above expected, no schedule predicted faster by the margin",
		       period_ms, c->expected_ms);
	if (!d)
		return 0; /* out of memory: no record, no switch */
	d->predicted_from_ms = p_cur;
	d->predicted_to_ms = go ? p_best : p_cur;
	d->expected_to_ms = go ? e_best : period_ms;
	log_decision(c, d);
	if (!go) {
		c->expected_ms = period_ms; /* the new normal (hysteresis) */
		return 0;
	}
	c->target = best;
	c->pending = 1;
	c->next_expected_ms = e_best; /* what the new schedule should give */
	return 1;
}

/* One window is complete: update the slowdowns, then trigger / decide. */
static int window_done(struct btrt_adapt_ctl *c, uint64_t seq)
{
	const struct btrt_adapt_schedule *s = &c->s[c->cur];
	double w = (double)c->w;
	double period_ms = c->sum_iv / w / 1e6, io_ms = c->sum_io / w / 1e6;
	if (c->m && s->pus)
		for (uint32_t k = 0; k < s->n_chunks; k++) {
			const struct btrt_chunk *ch = &s->chunks[k];
			uint32_t u = s->pus[k];
			double mc = btrt_model_chunk_ms(c->m, u, ch->first_stage,
							ch->first_stage + ch->n_stages - 1);
			double abs = c->sum_chunk[k] / w / 1e6 / mc;
			if (u >= c->m->n_pus || !isfinite(mc) || mc <= 0 || !(abs > 0))
				continue;
			if (!c->calibrated)
				c->base[u] = abs;
			c->slow[u] = abs / c->base[u];
			c->seen[u] = 1;
		}
	reset_window(c);
	if (!c->calibrated) {
		c->calibrated = 1;
		c->expected_ms = period_ms;
		log_decision(c, record(c, seq, c->cur, "calibrated", period_ms, period_ms));
		return 0;
	}
	if (c->expected_ms <= 0) {
		c->expected_ms = period_ms;
		return 0;
	}
	if (period_ms <= (1.0 + c->o.threshold) * c->expected_ms) {
		c->over = 0;
		if (++c->quiet >= BTRT_ADAPT_QUIET)
			c->backoff = 1;
		return 0;
	}
	c->quiet = 0;
	if (++c->over < c->o.patience * c->backoff)
		return 0;
	c->over = 0;
	if (!c->m || !s->pus) {
		log_decision(c, record(c, seq, c->cur, "period above expected, no cost model",
				       period_ms, c->expected_ms));
		c->expected_ms = period_ms;
		return 0;
	}
	return decide(c, seq, period_ms, io_ms);
}

int btrt_adapt_ctl_observe(struct btrt_adapt_ctl *c, const struct btrt_task_done *d)
{
	if (c->pending)
		return 0; /* draining: the old schedule's last tasks */
	c->seg_tasks++;
	if (c->o.force_every) {
		uint32_t next = (c->cur + 1) % c->n;
		while (next != c->cur && c->s[next].skip)
			next = (next + 1) % c->n;
		if (next == c->cur || c->seg_tasks % c->o.force_every)
			return 0;
		struct btrt_adapt_decision *r = record(c, d->seq, next, "forced", 0, 0);
		if (!r)
			return 0; /* out of memory: no record, no switch */
		c->target = r->to;
		c->pending = 1;
		log_decision(c, r);
		return 1;
	}
	if (c->seg_tasks <= c->settle || !c->last_done) {
		c->last_done = d->done_ns;
		return 0;
	}
	c->sum_iv += (double)(d->done_ns - c->last_done);
	c->last_done = d->done_ns;
	c->sum_io += (double)d->io_ns;
	uint32_t nc = c->s[c->cur].n_chunks;
	for (uint32_t k = 0; k < nc && k < d->n_chunks; k++)
		c->sum_chunk[k] += (double)d->chunk_ns[k];
	if (++c->w < c->o.window)
		return 0;
	return window_done(c, d->seq);
}
