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
	o->stage_weight = 0;
}

void btc_calib_fit_free(struct btc_calib_fit *fit)
{
	free(fit->a_ms);
	free(fit->b);
	free(fit->n_bottleneck);
	free(fit->d);
	memset(fit, 0, sizeof(*fit));
}

/* n doubles (ints) copied into new memory; NULL for NULL. */
static void *copy_of(const void *v, size_t n, size_t size)
{
	if (!v)
		return NULL;
	void *c = btc_xcalloc(n + 1, size);
	memcpy(c, v, n * size);
	return c;
}

void btc_calib_fit_copy(const struct btc_calib_fit *f, struct btc_calib_fit *out)
{
	size_t np = (size_t)f->n_pus, nd = np * (size_t)f->n_stages;
	*out = *f;
	out->a_ms = copy_of(f->a_ms, np, sizeof(double));
	out->b = copy_of(f->b, np, sizeof(double));
	out->n_bottleneck = copy_of(f->n_bottleneck, np, sizeof(int));
	out->d = copy_of(f->d, nd, sizeof(double));
}

double btc_calib_period(const struct btc_calib_schedule *s)
{
	double p = s->io_ms;
	for (int c = 0; c < s->n_chunks; c++)
		p = isnan(s->chunks[c].predicted_ms) ? NAN : fmax(p, s->chunks[c].predicted_ms);
	return p;
}

double btc_calib_stage_factor(const struct btc_calib_fit *f, int p, int i)
{
	if (!f->d || i < 0 || i >= f->n_stages)
		return f->b[p];
	return fmax(0, f->b[p] + f->d[(size_t)p * f->n_stages + i]);
}

double btc_calib_chunk_ms(const struct btc_calib_fit *f, const struct btc_calib_chunk *c)
{
	double v = f->a_ms[c->pu] + f->b[c->pu] * c->predicted_ms;
	for (int j = 0; f->d && j < c->n_stages; j++) {
		double t = c->stage_ms[(size_t)j * c->stage_stride];
		v += (btc_calib_stage_factor(f, c->pu, c->first_stage + j) - f->b[c->pu]) * t;
	}
	return v;
}

static double chunk_ms(const struct btc_calib_fit *f, const struct btc_calib_chunk *c)
{
	return btc_calib_chunk_ms(f, c);
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

/* Solves the n x n system m x = v in place (m row-major, v becomes x) by
 * Gaussian elimination with partial pivoting; false when singular. */
static bool gauss(double *m, double *v, int n)
{
	for (int i = 0; i < n; i++) {
		int piv = i;
		for (int r = i + 1; r < n; r++)
			if (fabs(m[r * n + i]) > fabs(m[piv * n + i]))
				piv = r;
		if (!(fabs(m[piv * n + i]) > 1e-300))
			return false;
		for (int j = 0; j < n && piv != i; j++) {
			double t = m[i * n + j];
			m[i * n + j] = m[piv * n + j];
			m[piv * n + j] = t;
		}
		double t = v[i];
		v[i] = v[piv];
		v[piv] = t;
		for (int r = i + 1; r < n; r++) {
			double q = m[r * n + i] / m[i * n + i];
			for (int j = i; j < n; j++)
				m[r * n + j] -= q * m[i * n + j];
			v[r] -= q * v[i];
		}
	}
	for (int i = n - 1; i >= 0; i--) {
		for (int j = i + 1; j < n; j++)
			v[i] -= m[i * n + j] * v[j];
		v[i] /= m[i * n + i];
	}
	return true;
}

/* The per-stage form's ridge solve for the bottlenecks bn[n], per PU:
 * theta = (a, b, d_0..d_{S-1}), features (1, x_c, t_i at i), the prior of
 * solve() on a and b and weight ws on each d = 0. A PU whose system is
 * singular or gives b < 0 keeps solve()'s line with d = 0. */
static void solve_stages(const struct btc_calib_schedule *s, int n, const bool *use, const int *bn,
			 const double *scale, double w0, double ws, struct btc_calib_fit *f)
{
	int ns = f->n_stages, dim = 2 + ns;
	double *m = btc_xcalloc((size_t)dim * dim, sizeof(double));
	double *v = btc_xcalloc((size_t)dim, sizeof(double));
	double *x = btc_xcalloc((size_t)dim, sizeof(double));
	for (int p = 0; p < f->n_pus; p++) {
		double *d = &f->d[(size_t)p * ns];
		memset(d, 0, (size_t)ns * sizeof(double));
		if (!f->n_bottleneck[p])
			continue;
		memset(m, 0, (size_t)dim * dim * sizeof(double));
		memset(v, 0, (size_t)dim * sizeof(double));
		m[0] = w0 / (scale[p] * scale[p]);
		m[dim + 1] = v[1] = w0;
		for (int i = 0; i < ns; i++)
			m[(2 + i) * dim + 2 + i] = ws;
		for (int k = 0; k < n; k++) {
			if (!usable(s, use, k) || bn[k] < 0 || s[k].chunks[bn[k]].pu != p)
				continue;
			const struct btc_calib_chunk *c = &s[k].chunks[bn[k]];
			double y = s[k].measured_ms, w = 1 / (y * y);
			memset(x, 0, (size_t)dim * sizeof(double));
			x[0] = 1;
			x[1] = c->predicted_ms;
			for (int j = 0; j < c->n_stages; j++)
				x[2 + c->first_stage + j] =
					c->stage_ms[(size_t)j * c->stage_stride];
			for (int i = 0; i < dim; i++) {
				v[i] += w * x[i] * y;
				for (int j = 0; j < dim; j++)
					m[i * dim + j] += w * x[i] * x[j];
			}
		}
		if (!gauss(m, v, dim) || !(v[1] >= 0))
			continue;
		f->a_ms[p] = v[0];
		f->b[p] = v[1];
		memcpy(d, &v[2], (size_t)ns * sizeof(double));
	}
	free(m);
	free(v);
	free(x);
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
	for (int k = 0; opt->stage_weight > 0 && k < n; k++)
		for (int c = 0; c < s[k].n_chunks; c++) {
			const struct btc_calib_chunk *q = &s[k].chunks[c];
			if (q->n_stages > 0 && q->first_stage + q->n_stages > f->n_stages)
				f->n_stages = q->first_stage + q->n_stages;
		}
	if (f->n_stages > 0)
		f->d = btc_xcalloc((size_t)n_pus * f->n_stages, sizeof(double));
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
		if (f->d)
			solve_stages(s, n, use, bn, scale, opt->prior_weight,
				     opt->stage_weight * opt->prior_weight, f);
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
