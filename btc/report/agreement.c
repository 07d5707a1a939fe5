#include "report/agreement.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/stats.h"
#include "util/diag.h"

/* The schedule whose leaving out moves Pearson r the most, and r
 * without it (*r_out); -1 when n < 4 or r is undefined. */
static int dominant(const double *p, const double *m, int n, double r, double *r_out)
{
	if (n < 4 || isnan(r))
		return -1;
	double *x = btc_xcalloc((size_t)n, sizeof(double)), *y = btc_xcalloc((size_t)n, sizeof(double));
	int best = -1;
	double move = -1;
	for (int i = 0; i < n; i++) {
		int k = 0;
		for (int j = 0; j < n; j++)
			if (j != i) {
				x[k] = p[j];
				y[k++] = m[j];
			}
		double ri = btc_stats_pearson(x, y, k);
		double d = isnan(ri) ? 2 : fabs(r - ri);
		if (d > move) {
			move = d;
			best = i;
			*r_out = ri;
		}
	}
	free(x);
	free(y);
	return best;
}

const char *btc_agreement_line(const double *predicted, const double *measured, int n,
			       const char *const *labels, const char *what, char *buf, size_t len)
{
	double *err = btc_xcalloc((size_t)n + 1, sizeof(double));
	int ne = 0;
	for (int i = 0; i < n; i++)
		if (predicted[i] > 0 && measured[i] > 0) /* the fit's med|err| (report/fit.c) */
			err[ne++] = 100.0 * fabs(measured[i] / predicted[i] - 1.0);
	double med = ne ? btc_stats_median(err, ne) : NAN;
	free(err);
	if (n < BTC_AGREEMENT_MIN_N)
		snprintf(buf, len,
			 "prediction: median error %.1f %% over %d schedule%s (%s; too few for a "
			 "correlation, which needs %d)",
			 med, n, n == 1 ? "" : "s", what, BTC_AGREEMENT_MIN_N);
	else {
		double r = btc_stats_pearson(predicted, measured, n), r_without = NAN;
		int k = snprintf(buf, len,
				 "prediction: Spearman rho = %.3f, Pearson r = %.3f, median error "
				 "%.1f %% over %d schedules (%s)",
				 btc_stats_spearman(predicted, measured, n), r, med, n, what);
		int d = dominant(predicted, measured, n, r, &r_without);
		if (d >= 0 && (isnan(r_without) || fabs(r - r_without) > BTC_AGREEMENT_DOMINANCE) &&
		    k > 0 && (size_t)k < len) {
			char name[32];
			snprintf(name, sizeof(name), "schedule %d", d);
			snprintf(buf + k, len - (size_t)k,
				 "; one schedule dominates r: without %s, r = %.3f",
				 labels && labels[d] ? labels[d] : name, r_without);
		}
	}
	return buf;
}
