/* The statistics of a co-location measurement (colocate_internal.h):
 * normalised throughput, the max-min figure of merit M, racing, paired
 * gains and the stop rule, over the runs recorded so far. */
#include "driver/colocate_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"

void colo_state_init(struct colo_state *st, const struct btc_colocate_setup *s, int max_rounds)
{
	memset(st, 0, sizeof(*st));
	st->S = s->n_streams;
	st->max_rounds = max_rounds > 0 ? max_rounds : 1;
	st->weight = s->weight;
	st->solo_of = btc_xcalloc((size_t)st->S, sizeof(int));
	st->cfg = btc_xcalloc((size_t)(st->S + s->n_joint + 2), sizeof(*st->cfg));
	int n = 0;
	for (int i = 0; i < st->S; i++) {
		int first = i;
		for (int j = 0; j < i; j++)
			if (s->stream_app[j] == s->stream_app[i]) {
				first = j;
				break;
			}
		if (first < i) {
			st->solo_of[i] = st->solo_of[first];
			continue;
		}
		st->solo_of[i] = n;
		st->cfg[n++] = (struct colo_cfg){.kind = COLO_SOLO, .stream = i};
	}
	for (int k = 0; k < s->n_joint; k++)
		st->cfg[n++] = (struct colo_cfg){.kind = COLO_JOINT, .joint = k};
	if (s->baselines) {
		st->cfg[n++] = (struct colo_cfg){.kind = COLO_NAIVE};
		st->cfg[n++] = (struct colo_cfg){.kind = COLO_MULTIPLEX};
	}
	st->n_cfg = n;
	for (int k = 0; k < n; k++) {
		struct colo_cfg *c = &st->cfg[k];
		c->finalist = true;
		c->rate = btc_xcalloc((size_t)st->max_rounds * (size_t)st->S, sizeof(double));
		c->chunks = btc_xcalloc((size_t)st->S, sizeof(*c->chunks));
		for (int i = 0; i < st->max_rounds * st->S; i++)
			c->rate[i] = NAN;
	}
}

void colo_state_free(struct colo_state *st)
{
	for (int k = 0; k < st->n_cfg; k++) {
		free(st->cfg[k].rate);
		free(st->cfg[k].why);
		free(st->cfg[k].chunks);
	}
	free(st->cfg);
	free(st->solo_of);
	memset(st, 0, sizeof(*st));
}

void colo_cfg_name(const struct colo_cfg *c, char *buf, size_t n)
{
	switch (c->kind) {
	case COLO_SOLO:
		snprintf(buf, n, "solo %d", c->stream);
		break;
	case COLO_JOINT:
		snprintf(buf, n, "joint %d", c->joint);
		break;
	case COLO_NAIVE:
		snprintf(buf, n, "naive");
		break;
	default:
		snprintf(buf, n, "multiplex");
		break;
	}
}

bool colo_cfg_live(const struct colo_cfg *c)
{
	return c->finalist && !c->failed;
}

void colo_record(struct colo_state *st, struct colo_cfg *c, int round, const double *rate)
{
	if (round < 1 || round > st->max_rounds)
		return;
	memcpy(&c->rate[(size_t)(round - 1) * (size_t)st->S], rate, (size_t)st->S * sizeof(double));
	c->n_runs++;
	if (round > st->rounds)
		st->rounds = round;
}

void colo_fail(struct colo_cfg *c, int round, const char *why)
{
	(void)round;
	c->failed = true;
	c->finalist = false;
	if (!c->why)
		c->why = btc_xstrdup(why);
}

/* Stream s's rate over the rounds of c, into x[] (max_rounds); count. */
static int rates_of(const struct colo_state *st, const struct colo_cfg *c, int s, double *x)
{
	int n = 0;
	for (int r = 0; r < st->max_rounds; r++)
		if (!isnan(c->rate[(size_t)r * (size_t)st->S + (size_t)s]))
			x[n++] = c->rate[(size_t)r * (size_t)st->S + (size_t)s];
	return n;
}

double colo_solo_rate(const struct colo_state *st, int s)
{
	const struct colo_cfg *c = &st->cfg[st->solo_of[s]];
	double *x = btc_xcalloc((size_t)st->max_rounds, sizeof(double));
	double m = btc_stats_median(x, rates_of(st, c, c->stream, x));
	free(x);
	return m;
}

double colo_merit(const struct colo_state *st, const struct colo_cfg *c, int round)
{
	if (c->kind == COLO_SOLO || round < 1 || round > st->max_rounds)
		return NAN;
	double m = INFINITY;
	for (int s = 0; s < st->S; s++) {
		double r = c->rate[(size_t)(round - 1) * (size_t)st->S + (size_t)s];
		double solo = colo_solo_rate(st, s);
		if (isnan(r) || !(solo > 0))
			return NAN;
		m = fmin(m, r / (st->weight[s] * solo));
	}
	return st->S > 0 ? m : NAN;
}

static void stat_of(const double *x, int n, struct btc_colocate_stat *m)
{
	m->exact = btc_stats_median_ci(x, n, 0.95, &m->median, &m->lo, &m->hi);
	if (n < 1)
		m->median = m->lo = m->hi = NAN;
}

void colo_merit_stat(const struct colo_state *st, const struct colo_cfg *c,
		     struct btc_colocate_stat *m)
{
	double *x = btc_xcalloc((size_t)st->max_rounds, sizeof(double));
	int n = 0;
	for (int r = 1; r <= st->max_rounds; r++) {
		double v = colo_merit(st, c, r);
		if (!isnan(v))
			x[n++] = v;
	}
	stat_of(x, n, m);
	free(x);
}

bool colo_solo_failed(const struct colo_state *st)
{
	for (int k = 0; k < st->n_cfg; k++)
		if (st->cfg[k].kind == COLO_SOLO && st->cfg[k].failed)
			return true;
	return false;
}

int colo_joint_live(const struct colo_state *st)
{
	int n = 0;
	for (int k = 0; k < st->n_cfg; k++)
		n += st->cfg[k].kind == COLO_JOINT && colo_cfg_live(&st->cfg[k]);
	return n;
}

int colo_best(const struct colo_state *st)
{
	bool any_live = false;
	for (int k = 0; k < st->n_cfg; k++)
		any_live |= st->cfg[k].kind == COLO_JOINT && colo_cfg_live(&st->cfg[k]) &&
			    st->cfg[k].n_runs > 0;
	int best = -1;
	double best_m = NAN;
	for (int k = 0; k < st->n_cfg; k++) {
		const struct colo_cfg *c = &st->cfg[k];
		if (c->kind != COLO_JOINT || c->failed || c->n_runs == 0 ||
		    (any_live && !c->finalist))
			continue;
		struct btc_colocate_stat m;
		colo_merit_stat(st, c, &m);
		if (isnan(m.median))
			continue;
		if (best < 0 || m.median > best_m) {
			best = k;
			best_m = m.median;
		}
	}
	return best;
}

void colo_race(struct colo_state *st, bool verbose)
{
	int best = colo_best(st);
	if (best < 0)
		return;
	struct btc_colocate_stat b;
	colo_merit_stat(st, &st->cfg[best], &b);
	bool printed = false;
	for (int k = 0; k < st->n_cfg; k++) {
		struct colo_cfg *c = &st->cfg[k];
		if (k == best || c->kind != COLO_JOINT || !colo_cfg_live(c))
			continue;
		struct btc_colocate_stat m;
		colo_merit_stat(st, c, &m);
		if (m.exact && b.exact && m.hi < b.lo) {
			c->finalist = false;
			if (verbose)
				fprintf(stderr, "%s %d",
					printed ? ""
						: "colocate:   dropped (interval of M below the best's):",
					c->joint);
			printed = true;
		}
	}
	if (printed && verbose)
		fprintf(stderr, "\n");
}

void colo_gain(const struct colo_state *st, const struct colo_cfg *a, const struct colo_cfg *b,
	       struct btc_colocate_stat *g)
{
	double *x = btc_xcalloc((size_t)st->max_rounds, sizeof(double));
	int n = 0;
	for (int r = 1; r <= st->max_rounds; r++) {
		double ma = colo_merit(st, a, r), mb = colo_merit(st, b, r);
		if (!isnan(ma) && mb > 0)
			x[n++] = ma / mb;
	}
	stat_of(x, n, g);
	free(x);
}

static bool within(const struct btc_colocate_stat *m, double rel)
{
	return m->exact && m->hi <= m->median * (1 + rel) && m->lo >= m->median * (1 - rel);
}

const char *colo_stop(const struct colo_state *st, double ci_rel)
{
	bool all = true;
	double *x = btc_xcalloc((size_t)st->max_rounds, sizeof(double));
	for (int k = 0; k < st->n_cfg; k++) {
		const struct colo_cfg *c = &st->cfg[k];
		if (!colo_cfg_live(c))
			continue;
		struct btc_colocate_stat m;
		if (c->kind == COLO_SOLO)
			stat_of(x, rates_of(st, c, c->stream, x), &m);
		else
			colo_merit_stat(st, c, &m);
		all &= within(&m, ci_rel);
	}
	free(x);
	if (all)
		return "converged";
	if (colo_joint_live(st) != 1)
		return NULL;
	int best = colo_best(st);
	bool baselines = false, decided = true;
	for (int k = 0; k < st->n_cfg && best >= 0; k++) {
		const struct colo_cfg *c = &st->cfg[k];
		if ((c->kind != COLO_NAIVE && c->kind != COLO_MULTIPLEX) || c->failed)
			continue;
		baselines = true;
		struct btc_colocate_stat g;
		colo_gain(st, &st->cfg[best], c, &g);
		decided &= g.exact &&
			   (g.hi < 1 || g.lo > 1 || (g.lo >= 1 - ci_rel && g.hi <= 1 + ci_rel));
	}
	if (best < 0)
		return NULL;
	return !baselines ? "one finalist" : decided ? "decided" : NULL;
}

bool colo_common_rates(int S, const double *const *at, const int *n_at, const int *warmup,
		       double *rate)
{
	double from = -INFINITY, to = INFINITY;
	for (int s = 0; s < S; s++) {
		if (n_at[s] < 1)
			return false;
		int w = warmup[s] > 0 && warmup[s] <= n_at[s] ? warmup[s] - 1 : 0;
		from = fmax(from, at[s][w]);
		to = fmin(to, at[s][n_at[s] - 1]);
	}
	double *r = btc_xcalloc((size_t)S + 1, sizeof(double));
	bool ok = to > from;
	for (int s = 0; s < S && ok; s++) {
		int i0 = 0, i1 = n_at[s] - 1;
		while (i0 < n_at[s] && at[s][i0] < from)
			i0++;
		while (i1 >= 0 && at[s][i1] > to)
			i1--;
		ok = i1 - i0 >= 2 && at[s][i1] > at[s][i0];
		if (ok)
			r[s] = (i1 - i0) / (at[s][i1] - at[s][i0]) * 1e9;
	}
	if (ok)
		memcpy(rate, r, (size_t)S * sizeof(double));
	free(r);
	return ok;
}

/* tasks[s] for rates rate[0..S) (colo_stream_tasks' rule). */
static void tasks_by(const double *rate, int S, int base, int *tasks)
{
	double least = INFINITY;
	bool known = true;
	for (int s = 0; s < S; s++) {
		known &= rate[s] > 0;
		least = known ? fmin(least, rate[s]) : least;
	}
	for (int s = 0; s < S; s++)
		tasks[s] = known && rate[s] > least
				   ? (int)fmin(64.0 * base, fmax(base, round(2.0 * base * rate[s] / least)))
				   : base;
}

void colo_stream_tasks(const struct colo_state *st, int base, int *tasks)
{
	double *r = btc_xcalloc((size_t)st->S, sizeof(double));
	for (int s = 0; s < st->S; s++)
		r[s] = colo_solo_rate(st, s);
	tasks_by(r, st->S, base, tasks);
	free(r);
}

void colo_cfg_tasks(const struct colo_state *st, const struct colo_cfg *c, int base, int *tasks)
{
	if (c->kind != COLO_NAIVE || c->n_runs < 1) {
		colo_stream_tasks(st, base, tasks);
		return;
	}
	double *r = btc_xcalloc((size_t)st->S, sizeof(double));
	double *x = btc_xcalloc((size_t)st->max_rounds, sizeof(double));
	for (int s = 0; s < st->S; s++)
		r[s] = btc_stats_median(x, rates_of(st, c, s, x));
	tasks_by(r, st->S, base, tasks);
	free(x);
	free(r);
}

const char *colo_warmup_tasks(const struct colo_state *st, const struct colo_cfg *c,
			      double warmup_s, int base, const double *plan_rate,
			      double predicted, int *warmup)
{
	const char *from = NULL;
	double *x = btc_xcalloc((size_t)st->max_rounds + 1, sizeof(double));
	for (int s = 0; s < st->S; s++) {
		warmup[s] = base;
		if (!(warmup_s > 0) || (c->kind == COLO_SOLO && s != c->stream))
			continue;
		double r = NAN;
		const char *src = "none";
		if (c->kind != COLO_SOLO && c->n_runs > 0) {
			r = btc_stats_median(x, rates_of(st, c, s, x));
			src = "measured";
		}
		if (!(r > 0) && colo_solo_rate(st, s) > 0) {
			double f = c->kind == COLO_JOINT && predicted > 0
					   ? fmin(1.0, predicted * st->weight[s])
					   : 1.0;
			r = colo_solo_rate(st, s) * f;
			src = "solo";
		}
		if (!(r > 0) && plan_rate && plan_rate[s] > 0) {
			r = plan_rate[s];
			src = "plan";
		}
		if (!from)
			from = r > 0 ? src : "none";
		if (r > 0)
			warmup[s] = (int)fmax(base, fmin(1e9, ceil(warmup_s * r)));
	}
	free(x);
	return from ? from : "none";
}

void colo_multiplex_turns(int S, const double *weight, const int *tasks, long turn_tasks,
			  long *turn)
{
	double least = INFINITY;
	for (int s = 0; s < S; s++)
		least = fmin(least, weight[s] * tasks[s]);
	for (int s = 0; s < S; s++) {
		long t = lround((double)turn_tasks * weight[s] * tasks[s] / least);
		turn[s] = t > 0 ? t : 1;
	}
}

/* A verified run's chunks (of the streams its reports had) into c's sums;
 * a stream whose chunks differ in number from the runs before is left
 * as it was. */
void colo_add_chunks(struct colo_cfg *c, const struct btc_colocate_chunks *run, int S)
{
	for (int s = 0; s < S; s++) {
		struct btc_colocate_chunks *sum = &c->chunks[s];
		if (run[s].n == 0 || (sum->runs > 0 && sum->n != run[s].n))
			continue;
		if (sum->runs == 0)
			*sum = (struct btc_colocate_chunks){.n = run[s].n};
		for (int k = 0; k < run[s].n; k++) {
			memcpy(sum->c[k].pu, run[s].c[k].pu, sizeof(sum->c[k].pu));
			sum->c[k].first_stage = run[s].c[k].first_stage;
			sum->c[k].last_stage = run[s].c[k].last_stage;
			sum->c[k].ms += run[s].c[k].ms;
			sum->c[k].stages_ms += run[s].c[k].stages_ms;
			sum->c[k].share += run[s].c[k].share;
		}
		sum->vk_device = run[s].vk_device;
		sum->vk_queue = run[s].vk_queue;
		sum->runs++;
	}
}

/* c's chunks of stream s, the sums made means, into out. */
static void chunks_of(const struct colo_cfg *c, int s, struct btc_colocate_chunks *out)
{
	*out = c->chunks[s];
	for (int k = 0; k < out->n && out->runs > 0; k++) {
		out->c[k].ms /= out->runs;
		out->c[k].stages_ms /= out->runs;
		out->c[k].share /= out->runs;
	}
}

/* The figure of configuration c (zeroed when c is NULL). */
static void figure(const struct colo_state *st, const struct colo_cfg *c, const double *solo,
		   struct btc_colocate_figure *f)
{
	memset(f, 0, sizeof(*f));
	f->merit.median = f->merit.lo = f->merit.hi = NAN;
	if (!c)
		return;
	f->ok = !c->failed && c->n_runs > 0;
	f->why = c->why ? btc_xstrdup(c->why) : NULL;
	f->rounds = c->n_runs;
	colo_merit_stat(st, c, &f->merit);
	f->stream_rate = btc_xcalloc((size_t)st->S, sizeof(double));
	f->stream_normalised = btc_xcalloc((size_t)st->S, sizeof(double));
	f->chunks = btc_xcalloc((size_t)st->S, sizeof(*f->chunks));
	for (int s = 0; s < st->S; s++)
		chunks_of(c, s, &f->chunks[s]);
	f->run_s = c->n_timed ? c->run_s / c->n_timed : NAN;
	f->prep_s = c->n_timed ? c->prep_s / c->n_timed : NAN;
	f->round_rate = btc_xcalloc((size_t)st->max_rounds * (size_t)st->S, sizeof(double));
	for (int r = 0; r < st->max_rounds; r++) {
		const double *x = &c->rate[(size_t)r * (size_t)st->S];
		bool all = true;
		for (int s = 0; s < st->S; s++)
			all &= !isnan(x[s]);
		if (all)
			memcpy(&f->round_rate[(size_t)f->n_round_rate++ * (size_t)st->S], x,
			       (size_t)st->S * sizeof(double));
	}
	double *x = btc_xcalloc((size_t)st->max_rounds, sizeof(double));
	for (int s = 0; s < st->S; s++) {
		f->stream_rate[s] = btc_stats_median(x, rates_of(st, c, s, x));
		f->stream_normalised[s] = solo[s] > 0 ? f->stream_rate[s] / solo[s] : NAN;
	}
	free(x);
}

void colo_result(const struct colo_state *st, struct btc_colocate_result *r)
{
	r->n_streams = st->S;
	r->solo_rate = btc_xcalloc((size_t)st->S, sizeof(double));
	r->solo_chunks = btc_xcalloc((size_t)st->S, sizeof(*r->solo_chunks));
	for (int s = 0; s < st->S; s++) {
		r->solo_rate[s] = colo_solo_rate(st, s);
		const struct colo_cfg *solo = &st->cfg[st->solo_of[s]];
		chunks_of(solo, solo->stream, &r->solo_chunks[s]);
	}
	const struct colo_cfg *naive = NULL, *multiplex = NULL;
	for (int k = 0; k < st->n_cfg; k++) {
		r->n_joint += st->cfg[k].kind == COLO_JOINT;
		if (st->cfg[k].kind == COLO_NAIVE)
			naive = &st->cfg[k];
		if (st->cfg[k].kind == COLO_MULTIPLEX)
			multiplex = &st->cfg[k];
	}
	r->joint = btc_xcalloc((size_t)r->n_joint + 1, sizeof(*r->joint));
	for (int k = 0, j = 0; k < st->n_cfg; k++)
		if (st->cfg[k].kind == COLO_JOINT)
			figure(st, &st->cfg[k], r->solo_rate, &r->joint[j++]);
	int best = colo_solo_failed(st) ? -1 : colo_best(st);
	r->best = best >= 0 ? st->cfg[best].joint : -1;
	figure(st, naive, r->solo_rate, &r->naive);
	figure(st, multiplex, r->solo_rate, &r->multiplex);
	r->gain_naive = r->gain_multiplex = (struct btc_colocate_stat){NAN, NAN, NAN, false};
	if (best >= 0 && naive && naive->n_runs > 0)
		colo_gain(st, &st->cfg[best], naive, &r->gain_naive);
	if (best >= 0 && multiplex && multiplex->n_runs > 0)
		colo_gain(st, &st->cfg[best], multiplex, &r->gain_multiplex);
}

static void figure_free(struct btc_colocate_figure *f)
{
	free(f->why);
	free(f->stream_rate);
	free(f->round_rate);
	free(f->stream_normalised);
	free(f->chunks);
}

void btc_colocate_result_free(struct btc_colocate_result *r)
{
	for (int k = 0; r->joint && k < r->n_joint; k++)
		figure_free(&r->joint[k]);
	free(r->joint);
	figure_free(&r->naive);
	figure_free(&r->multiplex);
	free(r->solo_rate);
	free(r->solo_chunks);
	memset(r, 0, sizeof(*r));
}
