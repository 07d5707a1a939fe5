/* The measured outcome of one schedule: adding a run, freeing the runs. */
#include "report/entry.h"

#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "util/diag.h"

void btc_tune_entry_add(struct btc_tune_entry *e, double ms)
{
	if (e->n_runs == e->cap_runs) {
		e->cap_runs = e->cap_runs ? 2 * e->cap_runs : 16;
		double *r = realloc(e->runs_ms, (size_t)e->cap_runs * sizeof(double));
		if (!r)
			btc_panic("out of memory");
		e->runs_ms = r;
	}
	e->runs_ms[e->n_runs++] = ms;
	e->ci_exact = btc_stats_median_ci(e->runs_ms, e->n_runs, 0.95, &e->median_ms, &e->ci_lo_ms,
					  &e->ci_hi_ms);
}

void btc_tune_entries_clear(struct btc_tune_entry *entries, int n)
{
	for (int i = 0; entries && i < n; i++) {
		free(entries[i].error);
		entries[i].error = NULL;
		free(entries[i].runs_ms);
		entries[i].runs_ms = NULL;
		entries[i].n_runs = entries[i].cap_runs = 0;
	}
}

double *btc_tune_entry_runs_copy(const struct btc_tune_entry *e)
{
	double *r = btc_xcalloc((size_t)e->n_runs, sizeof(double));
	memcpy(r, e->runs_ms, (size_t)e->n_runs * sizeof(double));
	return r;
}
