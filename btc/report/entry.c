/* The measured outcome of one schedule: adding a run, freeing the runs. */
#include "report/entry.h"

#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "util/diag.h"

void btc_tune_entry_add_times(struct btc_tune_entry *e, double ms, struct btc_run_times *t)
{
	if (e->n_runs == e->cap_runs) {
		e->cap_runs = e->cap_runs ? 2 * e->cap_runs : 16;
		double *r = realloc(e->runs_ms, (size_t)e->cap_runs * sizeof(double));
		struct btc_run_times *rt =
			r ? realloc(e->runs_times, (size_t)e->cap_runs * sizeof(*rt)) : NULL;
		if (!r || !rt)
			btc_panic("out of memory");
		e->runs_ms = r;
		e->runs_times = rt;
	}
	e->runs_times[e->n_runs] = t ? *t : (struct btc_run_times){0};
	if (t)
		*t = (struct btc_run_times){0};
	e->runs_ms[e->n_runs++] = ms;
	e->ci_exact = btc_stats_median_ci(e->runs_ms, e->n_runs, 0.95, &e->median_ms, &e->ci_lo_ms,
					  &e->ci_hi_ms);
}

void btc_tune_entry_add(struct btc_tune_entry *e, double ms)
{
	btc_tune_entry_add_times(e, ms, NULL);
}

void btc_tune_entries_clear(struct btc_tune_entry *entries, int n)
{
	for (int i = 0; entries && i < n; i++) {
		free(entries[i].error);
		entries[i].error = NULL;
		free(entries[i].runs_ms);
		entries[i].runs_ms = NULL;
		for (int k = 0; entries[i].runs_times && k < entries[i].n_runs; k++)
			btc_run_times_free(&entries[i].runs_times[k]);
		free(entries[i].runs_times);
		entries[i].runs_times = NULL;
		entries[i].n_runs = entries[i].cap_runs = 0;
	}
}

double *btc_tune_entry_runs_copy(const struct btc_tune_entry *e)
{
	double *r = btc_xcalloc((size_t)e->n_runs, sizeof(double));
	memcpy(r, e->runs_ms, (size_t)e->n_runs * sizeof(double));
	return r;
}

static double *copy_doubles(const double *v, int n)
{
	double *r = n > 0 ? btc_xcalloc((size_t)n, sizeof(double)) : NULL;
	if (r)
		memcpy(r, v, (size_t)n * sizeof(double));
	return r;
}

struct btc_run_times *btc_tune_entry_times_copy(const struct btc_tune_entry *e)
{
	bool any = false;
	for (int k = 0; e->runs_times && k < e->n_runs; k++)
		any |= e->runs_times[k].n_chunks > 0 || e->runs_times[k].n_stages > 0;
	if (!any)
		return NULL;
	struct btc_run_times *r = btc_xcalloc((size_t)e->n_runs, sizeof(*r));
	for (int k = 0; k < e->n_runs; k++) {
		const struct btc_run_times *t = &e->runs_times[k];
		r[k] = *t;
		r[k].chunk_ms = copy_doubles(t->chunk_ms, t->n_chunks);
		r[k].chunk_median_ms = copy_doubles(t->chunk_median_ms, t->n_chunks);
		r[k].chunk_steady_ms = copy_doubles(t->chunk_steady_ms, t->n_chunks);
		r[k].stage_ms = copy_doubles(t->stage_ms, t->n_stages);
		r[k].stage_median_ms = copy_doubles(t->stage_median_ms, t->n_stages);
		r[k].stage_steady_ms = copy_doubles(t->stage_steady_ms, t->n_stages);
	}
	return r;
}
