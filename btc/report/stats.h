/* Statistics of measurements, pure (no I/O): the median and its
 * distribution-free confidence interval, rank and linear correlation, and
 * the seeded generator that orders the runs of a tuning round
 * (/work/shared/STYLE.md item 15: compare by interleaving, report the
 * median with its spread, claim a difference only when its confidence
 * interval excludes it). */
#ifndef BTC_STATS_H
#define BTC_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* The median of x[n] (not modified; NAN values are skipped); NAN when no
 * value is left. */
double btc_stats_median(const double *x, int n);

/* The k-th smallest (k >= 1) of the non-NAN values of x[n]; NAN when
 * there are fewer than k. */
double btc_stats_kth_smallest(const double *x, int n, int k);

/* The median of x[n] and its two-sided confidence interval at level conf
 * (e.g. 0.95), distribution-free, from order statistics: with x sorted,
 * [x_(j), x_(n+1-j)] (1-based) for the largest j with
 * P(Binomial(n, 1/2) < j) <= (1 - conf) / 2 (Conover, "Practical
 * Nonparametric Statistics", 3.2; Hahn & Meeker table A.15). NAN values
 * are skipped. Returns true when the interval has that coverage; with too
 * few values (n < 6 at 95 %) the interval is [min, max], whose coverage is
 * 1 - 2^(1-n) (75 % at n = 3), and returns false. *median is NAN when
 * no value is left, *lo and *hi when fewer than 2 are. */
bool btc_stats_median_ci(const double *x, int n, double conf, double *median, double *lo,
			 double *hi);

/* Pearson's r of x and y (n pairs); NAN when undefined (n < 2 or a
 * constant series). */
double btc_stats_pearson(const double *x, const double *y, int n);

/* Spearman's rho of x and y (n pairs): Pearson's r of their ranks, ties
 * given their mean rank; NAN when undefined. */
double btc_stats_spearman(const double *x, const double *y, int n);

/* The seeded generator (splitmix64, Steele, Lea & Flood 2014): one state
 * word; the same seed gives the same sequence on every machine. */
struct btc_rng {
	uint64_t state;
};
/* Seeds *r (caller-owned) so that the sequence depends on seed alone. */
void btc_rng_seed(struct btc_rng *r, uint64_t seed);
/* The next 64-bit word of *r's sequence (splitmix64). */
uint64_t btc_rng_next(struct btc_rng *r);
/* Uniform in 0..n-1 (n >= 1), without modulo bias. */
uint32_t btc_rng_below(struct btc_rng *r, uint32_t n);

/* Fisher-Yates shuffle of a[n] with r. */
void btc_stats_shuffle(int *a, int n, struct btc_rng *r);

#endif
