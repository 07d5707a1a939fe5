/* Statistics of measurements (report/stats.h). */
#include "report/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The non-NAN values of x[n], sorted, into a new array (caller frees). */
static double *sorted(const double *x, int n, int *m)
{
	double *s = btc_xcalloc((size_t)n + 1, sizeof(double));
	*m = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(x[i]))
			s[(*m)++] = x[i];
	qsort(s, (size_t)*m, sizeof(double), cmp_double);
	return s;
}

static double median_sorted(const double *s, int m)
{
	if (m == 0)
		return NAN;
	return m % 2 ? s[m / 2] : (s[m / 2 - 1] + s[m / 2]) / 2;
}

double btc_stats_kth_smallest(const double *x, int n, int k)
{
	int m;
	double *s = sorted(x, n, &m);
	double v = k >= 1 && k <= m ? s[k - 1] : NAN;
	free(s);
	return v;
}

double btc_stats_median(const double *x, int n)
{
	int m;
	double *s = sorted(x, n, &m);
	double v = median_sorted(s, m);
	free(s);
	return v;
}

/* P(Binomial(n, 1/2) <= k), summed in logs (n up to thousands). */
static double binom_cdf_half(int n, int k)
{
	double p = 0;
	for (int i = 0; i <= k; i++)
		p += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
	return p;
}

bool btc_stats_median_ci(const double *x, int n, double conf, double *median, double *lo,
			 double *hi)
{
	int m;
	double *s = sorted(x, n, &m);
	*median = median_sorted(s, m);
	*lo = *hi = NAN;
	bool exact = false;
	if (m > 0) {
		/* The largest j (1-based) with P(B <= j - 1) <= alpha / 2. */
		double alpha = 1 - conf;
		int j = 0;
		while (j + 1 <= m / 2 && binom_cdf_half(m, j) <= alpha / 2)
			j++;
		exact = j >= 1;
		if (!exact)
			j = 1;
		if (m >= 2) { /* one value has no spread */
			*lo = s[j - 1];
			*hi = s[m - j];
		}
	}
	free(s);
	return exact;
}

double btc_stats_pearson(const double *x, const double *y, int n)
{
	if (n < 2)
		return NAN;
	double mx = 0, my = 0;
	for (int i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= n;
	my /= n;
	double sxy = 0, sxx = 0, syy = 0;
	for (int i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

/* Ranks of x[n] (1-based), ties at their mean rank. */
static void ranks(const double *x, int n, double *r)
{
	for (int i = 0; i < n; i++) {
		int below = 0, equal = 0;
		for (int k = 0; k < n; k++) {
			below += x[k] < x[i];
			equal += x[k] == x[i];
		}
		r[i] = below + (equal + 1) / 2.0;
	}
}

double btc_stats_spearman(const double *x, const double *y, int n)
{
	if (n < 2)
		return NAN;
	double *rx = btc_xcalloc((size_t)n, sizeof(double));
	double *ry = btc_xcalloc((size_t)n, sizeof(double));
	ranks(x, n, rx);
	ranks(y, n, ry);
	double rho = btc_stats_pearson(rx, ry, n);
	free(rx);
	free(ry);
	return rho;
}

void btc_rng_seed(struct btc_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t btc_rng_next(struct btc_rng *r)
{
	uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint32_t btc_rng_below(struct btc_rng *r, uint32_t n)
{
	/* Rejection: values past the last whole multiple of n are redrawn. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t v;
	do
		v = btc_rng_next(r);
	while (v >= limit);
	return (uint32_t)(v % n);
}

void btc_stats_shuffle(int *a, int n, struct btc_rng *r)
{
	for (int i = n - 1; i > 0; i--) {
		int k = (int)btc_rng_below(r, (uint32_t)i + 1);
		int t = a[i];
		a[i] = a[k];
		a[k] = t;
	}
}
