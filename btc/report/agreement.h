/* How well predicted schedule times agree with measured ones, in words
 * that mean something for the number of schedules at hand. */
#ifndef BTC_AGREEMENT_H
#define BTC_AGREEMENT_H

#include <stddef.h>

/* Correlations are printed over at least this many schedules. */
#define BTC_AGREEMENT_MIN_N 5

/* Pearson r is said to be dominated by one schedule when leaving that
 * schedule out moves r by more than this (issue 25: r 0.31 over 18
 * schedules reads 0.9 when one slow baseline sits far out). */
#define BTC_AGREEMENT_DOMINANCE 0.2

/* Writes into buf[len] one line (no newline) on predicted[i] vs
 * measured[i] (ms per task, n schedules): the median |measured/predicted
 * - 1| in % always (over the pairs with both > 0; the fit's med|err|), and Spearman rho
 * and Pearson r only when n >= BTC_AGREEMENT_MIN_N ("too few for a
 * correlation" otherwise: r over 3 points is 1.000 with 110 % error);
 * when leaving one schedule out moves r by more than
 * BTC_AGREEMENT_DOMINANCE, the line names it (labels[i], or "schedule
 * i" where labels is NULL) and r without it. `what` names the model
 * ("interference table"). Returns buf. */
const char *btc_agreement_line(const double *predicted, const double *measured, int n,
			       const char *const *labels, const char *what, char *buf, size_t len);

#endif
