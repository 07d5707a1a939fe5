/* How well predicted schedule times agree with measured ones, in words
 * that mean something for the number of schedules at hand. */
#ifndef BTC_AGREEMENT_H
#define BTC_AGREEMENT_H

#include <stddef.h>

/* Correlations are printed over at least this many schedules. */
#define BTC_AGREEMENT_MIN_N 5

/* Writes into buf[len] one line (no newline) on predicted[i] vs
 * measured[i] (ms per task, n schedules): the median |predicted/measured
 * - 1| in % always (over the pairs with measured > 0), and Spearman rho
 * and Pearson r only when n >= BTC_AGREEMENT_MIN_N ("too few for a
 * correlation" otherwise: r over 3 points is 1.000 with 110 % error).
 * `what` names the table mode ("interference table"). Returns buf. */
const char *btc_agreement_line(const double *predicted, const double *measured, int n,
			       const char *what, char *buf, size_t len);

#endif
