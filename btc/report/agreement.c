#include "report/agreement.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/stats.h"
#include "util/diag.h"

const char *btc_agreement_line(const double *predicted, const double *measured, int n,
			       const char *what, char *buf, size_t len)
{
	double *err = btc_xcalloc((size_t)n + 1, sizeof(double));
	int ne = 0;
	for (int i = 0; i < n; i++)
		if (measured[i] > 0)
			err[ne++] = 100.0 * fabs(predicted[i] / measured[i] - 1.0);
	double med = ne ? btc_stats_median(err, ne) : NAN;
	free(err);
	if (n < BTC_AGREEMENT_MIN_N)
		snprintf(buf, len,
			 "prediction: median error %.1f %% over %d schedule%s (%s; too few for a "
			 "correlation, which needs %d)",
			 med, n, n == 1 ? "" : "s", what, BTC_AGREEMENT_MIN_N);
	else
		snprintf(buf, len,
			 "prediction: Spearman rho = %.3f, Pearson r = %.3f, median error %.1f %% "
			 "over %d schedules (%s)",
			 btc_stats_spearman(predicted, measured, n),
			 btc_stats_pearson(predicted, measured, n), med, n, what);
	return buf;
}
