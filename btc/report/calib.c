/* Calibration of the cost model (report/calib.h). */
#include "report/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "util/diag.h"

void btc_calib_options_init(struct btc_calib_options *o)
{
	o->prior_weight = 1;
	o->max_iter = 50;
}

void btc_calib_fit_free(struct btc_calib_fit *fit)
{
	free(fit->a_ms);
	free(fit->b);
	free(fit->n_bottleneck);
	memset(fit, 0, sizeof(*fit));
}

double btc_calib_period(const struct btc_calib_schedule *s)
{
	double p = s->io_ms;
	for (int c = 0; c < s->n_chunks; c++)
		p = isnan(s->chunks[c].predicted_ms) ? NAN : fmax(p, s->chunks[c].predicted_ms);
	return p;
}

static double chunk_ms(const struct btc_calib_fit *f, const struct btc_calib_chunk *c)
{
	return f->a_ms[c->pu] + f->b[c->pu] * c->predicted_ms;
}

/* The bottleneck of s under f: its chunk index, or -1 for T_io. */
static int bottleneck(const struct btc_calib_fit *f, const struct btc_calib_schedule *s)
{
	int w = -1;
	double best = s->io_ms;
	for (int c = 0; c < s->n_chunks; c++) {
		double v = chunk_ms(f, &s->chunks[c]);
		if (v > best) {
			best = v;
			w = c;
		}
	}
	return w;
}

double btc_calib_predict(const struct btc_calib_fit *fit, const struct btc_calib_schedule *s)
{
	double p = fmin(s->io_ms, fit->io_cap_ms);
	for (int c = 0; c < s->n_chunks; c++) {
		if (isnan(s->chunks[c].predicted_ms))
			return NAN;
		p = fmax(p, chunk_ms(fit, &s->chunks[c]));
	}
	return p;
}

static bool usable(const struct btc_calib_schedule *s, const bool *use, int k)
{
	return (!use || use[k]) && !isnan(s[k].measured_ms) && s[k].measured_ms > 0 &&
	       !isnan(btc_calib_period(&s[k]));
}

/* The per-PU weighted ridge solve for the current bottlenecks bn[n]. */
static void solve(const struct btc_calib_schedule *s, int n, const bool *use, const int *bn,
		  const double *scale, double w0, struct btc_calib_fit *f)
{
	for (int p = 0; p < f->n_pus; p++) {
		/* Prior: a = 0 with weight w0 / scale^2, b = 1 with weight w0
		 * (one observation at x = scale missing by a, or by (b - 1) x,
		 * relative to x). */
		double la = w0 / (scale[p] * scale[p]), lb = w0;
		double sw = la, swx = 0, swxx = lb, swy = 0, swxy = lb;
		int count = 0;
		for (int k = 0; k < n; k++) {
			if (!usable(s, use, k) || bn[k] < 0 || s[k].chunks[bn[k]].pu != p)
				continue;
			double x = s[k].chunks[bn[k]].predicted_ms, y = s[k].measured_ms;
			double w = 1 / (y * y);
			sw += w;
			swx += w * x;
			swxx += w * x * x;
			swy += w * y;
			swxy += w * x * y;
			count++;
		}
		f->n_bottleneck[p] = count;
		double det = sw * swxx - swx * swx;
		if (count == 0 || !(fabs(det) > 1e-300)) {
			f->a_ms[p] = 0;
			f->b[p] = 1;
			continue;
		}
		double a = (swy * swxx - swx * swxy) / det;
		double b = (sw * swxy - swx * swy) / det;
		if (b < 0) { /* no negative slowdown: the best a with b = 0 */
			b = 0;
			a = swy / sw;
		}
		f->a_ms[p] = a;
		f->b[p] = b;
	}
}

void btc_calib_fit(const struct btc_calib_schedule *s, int n, int n_pus, const bool *use,
		   const struct btc_calib_options *opt, struct btc_calib_fit *f)
{
	memset(f, 0, sizeof(*f));
	f->n_pus = n_pus;
	f->a_ms = btc_xcalloc((size_t)n_pus + 1, sizeof(double));
	f->b = btc_xcalloc((size_t)n_pus + 1, sizeof(double));
	f->n_bottleneck = btc_xcalloc((size_t)n_pus + 1, sizeof(int));
	f->io_cap_ms = INFINITY;
	double *scale = btc_xcalloc((size_t)n_pus + 1, sizeof(double));
	int *count = btc_xcalloc((size_t)n_pus + 1, sizeof(int));
	for (int p = 0; p < n_pus; p++)
		f->b[p] = 1;
	/* Each PU's scale: the mean predicted chunk time on it. */
	for (int k = 0; k < n; k++)
		for (int c = 0; c < s[k].n_chunks; c++)
			if (!isnan(s[k].chunks[c].predicted_ms)) {
				scale[s[k].chunks[c].pu] += s[k].chunks[c].predicted_ms;
				count[s[k].chunks[c].pu]++;
			}
	for (int p = 0; p < n_pus; p++)
		scale[p] = count[p] && scale[p] > 0 ? scale[p] / count[p] : 1;
	int *bn = btc_xcalloc((size_t)n + 1, sizeof(int));
	for (int k = 0; k < n; k++)
		bn[k] = bottleneck(f, &s[k]);
	for (f->iterations = 1; f->iterations <= opt->max_iter; f->iterations++) {
		solve(s, n, use, bn, scale, opt->prior_weight, f);
		bool changed = false;
		for (int k = 0; k < n; k++) {
			int v = bottleneck(f, &s[k]);
			if (usable(s, use, k) && v != bn[k])
				changed = true;
			bn[k] = v;
		}
		if (!changed) {
			f->converged = true;
			break;
		}
	}
	if (f->iterations > opt->max_iter)
		f->iterations = opt->max_iter;
	f->n_io = 0;
	for (int k = 0; k < n; k++)
		f->n_io += usable(s, use, k) && bn[k] < 0;
	free(bn);
	free(scale);
	free(count);
}

void btc_calib_loo(const struct btc_calib_schedule *s, int n, int n_pus,
		   const struct btc_calib_options *opt, double *pred)
{
	bool *use = btc_xcalloc((size_t)n + 1, sizeof(bool));
	struct btc_calib_fit all;
	btc_calib_fit(s, n, n_pus, NULL, opt, &all);
	for (int k = 0; k < n; k++) {
		if (isnan(s[k].measured_ms)) {
			pred[k] = btc_calib_predict(&all, &s[k]);
			continue;
		}
		for (int i = 0; i < n; i++)
			use[i] = i != k;
		struct btc_calib_fit f;
		btc_calib_fit(s, n, n_pus, use, opt, &f);
		pred[k] = btc_calib_predict(&f, &s[k]);
		btc_calib_fit_free(&f);
	}
	btc_calib_fit_free(&all);
	free(use);
}

void btc_calib_metrics(const double *predicted, const double *measured, int n,
		       struct btc_calib_metrics *m)
{
	memset(m, 0, sizeof(*m));
	m->predicted_best = m->measured_best = -1;
	double *px = btc_xcalloc((size_t)n + 1, sizeof(double));
	double *py = btc_xcalloc((size_t)n + 1, sizeof(double));
	double *err = btc_xcalloc((size_t)n + 1, sizeof(double));
	for (int k = 0; k < n; k++) {
		if (isnan(predicted[k]) || isnan(measured[k]) || predicted[k] <= 0)
			continue;
		px[m->n] = predicted[k];
		py[m->n] = measured[k];
		err[m->n] = fabs(measured[k] / predicted[k] - 1);
		m->n++;
		if (m->predicted_best < 0 || predicted[k] < predicted[m->predicted_best])
			m->predicted_best = k;
		if (m->measured_best < 0 || measured[k] < measured[m->measured_best])
			m->measured_best = k;
	}
	m->pearson_r = btc_stats_pearson(px, py, m->n);
	m->spearman_rho = btc_stats_spearman(px, py, m->n);
	m->median_abs_rel_err = btc_stats_median(err, m->n);
	m->max_abs_rel_err = NAN;
	for (int i = 0; i < m->n; i++)
		m->max_abs_rel_err = i ? fmax(m->max_abs_rel_err, err[i]) : err[i];
	m->best_within_5pct = m->n > 0 &&
			      measured[m->predicted_best] <= 1.05 * measured[m->measured_best];
	free(px);
	free(py);
	free(err);
}
