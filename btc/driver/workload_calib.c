/* The workload job's model calibrated to its solo runs
 * (driver/workload_calib.h). */
#include "driver/workload_calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/model.h"
#include "util/diag.h"

/* The predicted period of vector v on p: max(T_io, its chunks' times). */
static double period_of(const struct btc_sched_problem *p, const int *v)
{
	double t = p->io_ms;
	for (int f = 0; f < p->n_stages;) {
		int l = f;
		while (l + 1 < p->n_stages && v[l + 1] == v[f])
			l++;
		t = fmax(t, btc_model_chunk_ms(p, v[f], f, l));
		f = l + 1;
	}
	return t;
}

void btc_workload_calib_scales(const struct btc_sched_problem *p, const int *solo,
			       double measured_ms, double *scale, double *io_scale,
			       double *table_ms, double *calibrated_ms)
{
	int np = p->n_pus;
	double x[BTC_SCHED_MAX_PUS] = {0};
	int top = -1;
	for (int c = 0; c < np; c++)
		scale[c] = 1.0;
	for (int f = 0; f < p->n_stages;) {
		int l = f;
		while (l + 1 < p->n_stages && solo[l + 1] == solo[f])
			l++;
		int c = solo[f];
		x[c] = btc_model_chunk_ms(p, c, f, l); /* one chunk per PU */
		if (top < 0 || x[c] > x[top])
			top = c;
		f = l + 1;
	}
	/* the io thread at or above every chunk is the bottleneck: the period
	 * informs it, the chunks only by the cap (else it is capped) */
	bool io = top < 0 || p->io_ms >= x[top];
	*io_scale = !(p->io_ms > 0) ? 1.0
		    : io	       ? measured_ms / p->io_ms
				       : fmin(1.0, measured_ms / p->io_ms);
	for (int c = 0; c < np; c++)
		if (x[c] > 0)
			scale[c] = c == top && !io ? measured_ms / x[c] : fmin(1.0, measured_ms / x[c]);
	*table_ms = period_of(p, solo);
	struct btc_workload_scaled s;
	btc_workload_scaled_make(p, scale, *io_scale, &s);
	*calibrated_ms = period_of(&s.p, solo);
	btc_workload_scaled_free(&s);
}

static double *scaled(const double *a, size_t n, size_t per_pu_stride, int np,
		      const double *scale, int pu_of(size_t i, int np))
{
	if (!a)
		return NULL;
	double *o = btc_xmalloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++)
		o[i] = a[i] * scale[pu_of(i / per_pu_stride, np)];
	return o;
}

static int pu_mod(size_t i, int np)
{
	return (int)(i % (size_t)np);
}

void btc_workload_scaled_make(const struct btc_sched_problem *p, const double *scale,
			      double io_scale, struct btc_workload_scaled *out)
{
	int n = p->n_stages, np = p->n_pus;
	size_t tn = (size_t)n * (size_t)np;
	*out = (struct btc_workload_scaled){.p = *p};
	out->p.io_ms = p->io_ms * io_scale;
	/* time, start: [stage * np + c]; fixed: [c]; time_cores: [(stage * np
	 * + c) * COUNTS + j] */
	out->time = scaled(p->time_ms, tn, 1, np, scale, pu_mod);
	out->start = scaled(p->start_ms, tn, 1, np, scale, pu_mod);
	out->fixed = scaled(p->fixed_ms, (size_t)np, 1, np, scale, pu_mod);
	out->cores = scaled(p->time_cores_ms, tn * BTC_SCHED_MAX_CORE_COUNTS,
			    BTC_SCHED_MAX_CORE_COUNTS, np, scale, pu_mod);
	if (p->xfer_ms) {
		size_t xn = (size_t)n * (size_t)np * (size_t)n;
		out->xfer = btc_xcalloc(xn, sizeof(double));
		for (int c = 0; c < np; c++)
			for (int f = 0; f < n; f++)
				for (int l = f; l < n; l++) {
					size_t i = btc_model_xfer_index(n, np, c, f, l);
					out->xfer[i] = p->xfer_ms[i] * scale[c];
				}
	}
	out->p.time_ms = out->time;
	out->p.start_ms = out->start;
	out->p.fixed_ms = out->fixed;
	out->p.time_cores_ms = out->cores;
	out->p.xfer_ms = out->xfer;
}

void btc_workload_scaled_free(struct btc_workload_scaled *s)
{
	free(s->time);
	free(s->start);
	free(s->fixed);
	free(s->cores);
	free(s->xfer);
	memset(s, 0, sizeof(*s));
}

/* min_s r_s measured_ms / w_s of joint vector a on the calibrated problem,
 * or NAN. */
static double merit(const struct btc_multi_problem *mc, const int *a, const double *per_app_ms,
		    const double *w)
{
	struct btc_multi_eval e;
	double v = NAN;
	if (btc_multi_evaluate(mc, a, &e)) {
		v = INFINITY;
		for (int s = 0; s < mc->n_streams; s++)
			v = fmin(v, e.rate[s] * per_app_ms[mc->streams[s].app] / w[s]);
	}
	btc_multi_eval_free(&e);
	return v;
}

bool btc_workload_calib_problem(const struct btc_multi_problem *m, int n_apps,
				const int *const *solo, const double *measured_ms, const double *w,
				const int *const *cand, int n_cand, const int *naive,
				struct btc_workload_calib *c, struct btc_diag *d)
{
	int S = m->n_streams;
	memset(c, 0, sizeof(*c));
	c->n_apps = n_apps;
	c->n_pus = m->n_pus;
	struct btc_workload_scaled sp[BTC_WORKLOAD_MAX_APPS];
	const struct btc_sched_problem *orig[BTC_WORKLOAD_MAX_APPS] = {0};
	for (int s = 0; s < S; s++)
		orig[m->streams[s].app] = m->streams[s].p;
	for (int a = 0; a < n_apps; a++) {
		btc_workload_calib_scales(orig[a], solo[a], measured_ms[a], c->scale[a],
					  &c->io_scale[a], &c->table_ms[a], &c->calibrated_ms[a]);
		c->measured_ms[a] = measured_ms[a];
		btc_workload_scaled_make(orig[a], c->scale[a], c->io_scale[a], &sp[a]);
	}
	/* r_s = lambda w_s r*_a: weight w_s / P_a (tasks/ms per unit lambda) */
	struct btc_multi_stream *st = btc_xcalloc((size_t)S, sizeof(*st));
	for (int s = 0; s < S; s++) {
		st[s] = m->streams[s];
		st[s].p = &sp[st[s].app].p;
		st[s].weight = w[s] / measured_ms[st[s].app];
	}
	struct btc_multi_problem mc = *m;
	mc.streams = st;
	mc.objective = BTC_MULTI_MAXMIN;
	c->has_bound = btc_multi_bound(&mc, &c->bound, d) == BTC_OK;
	c->n = n_cand;
	c->predicted = btc_xcalloc((size_t)(n_cand > 0 ? n_cand : 1), sizeof(double));
	for (int k = 0; k < n_cand; k++)
		c->predicted[k] = merit(&mc, cand[k], measured_ms, w);
	c->naive = naive ? merit(&mc, naive, measured_ms, w) : NAN;
	free(st);
	for (int a = 0; a < n_apps; a++)
		btc_workload_scaled_free(&sp[a]);
	return c->has_bound;
}

bool btc_workload_calibrate(const struct btc_joint_plan *j, const double *measured_ms,
			    struct btc_workload_calib *c, struct btc_diag *d)
{
	memset(c, 0, sizeof(*c));
	if (j->m.objective != BTC_MULTI_MAXMIN)
		return false;
	const int *solo[BTC_WORKLOAD_MAX_APPS];
	for (int a = 0; a < j->n_apps; a++)
		solo[a] = j->apps[a].solo;
	double *w = btc_xcalloc((size_t)j->n_streams, sizeof(double));
	for (int s = 0; s < j->n_streams; s++)
		w[s] = j->wl.apps[j->streams[s].app].weight;
	const int **cand = btc_xcalloc((size_t)j->result.n, sizeof(*cand));
	for (int k = 0; k < j->result.n; k++)
		cand[k] = j->result.c[k].a;
	bool ok = btc_workload_calib_problem(&j->m, j->n_apps, solo, measured_ms, w, cand,
					     j->result.n, j->has_naive ? j->naive : NULL, c, d);
	free(cand);
	free(w);
	return ok;
}

void btc_workload_calib_free(struct btc_workload_calib *c)
{
	free(c->predicted);
	c->predicted = NULL;
}
