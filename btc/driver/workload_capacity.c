/* The multi-app fluid bound with the PUs' capacity measured in the
 * workload job's own joint runs (driver/workload_capacity.h). */
#include "driver/workload_capacity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/json.h"

/* The bound with row p <= kappa_p (every n >= 2); false, reported, when
 * the LP fails. */
static bool bound_with(struct btc_multi_problem *mm, const double *kappa, double *v,
		       struct btc_diag *d)
{
	int S = mm->n_streams, np = mm->n_pus;
	double *cap = btc_xcalloc((size_t)np * (size_t)(S + 1), sizeof(double));
	for (int p = 0; p < np; p++)
		for (int n = 0; n <= S; n++)
			cap[p * (S + 1) + n] = kappa[p];
	mm->capacity = cap;
	bool ok = btc_multi_bound(mm, v, d) == BTC_OK;
	mm->capacity = NULL;
	free(cap);
	return ok;
}

/* kappa^(-i)_p = max(hi_p, max_{rho != i} L^rho_p), hi_p the plan's own
 * (c->hi); the runs counted. */
static int kappa_without(const struct btc_workload_capacity *c, int i, double *kappa)
{
	int n = 0;
	for (int p = 0; p < c->n_pus; p++)
		kappa[p] = c->hi[p];
	for (int r = 0; r < c->n_runs; r++) {
		const double *L = &c->load[(size_t)r * (size_t)c->n_pus];
		if (r == i || isnan(L[0]))
			continue;
		n++;
		for (int p = 0; p < c->n_pus; p++)
			kappa[p] = fmax(kappa[p], L[p]);
	}
	return n;
}

bool btc_workload_capacity_problem(const struct btc_multi_problem *m,
				   const struct btc_workload_calib *cal, const double *w,
				   const int *const *cand, int n_cand, int n_runs,
				   const int *run_cand, const double *const *run_rate, int best,
				   struct btc_workload_capacity *c, struct btc_diag *d)
{
	int S = m->n_streams, np = m->n_pus;
	memset(c, 0, sizeof(*c));
	c->n_pus = np;
	c->n_runs = n_runs;
	c->best = best;
	c->judged = -1;
	for (int p = 0; p < np; p++) { /* max(1, max_n kappa_p(n)): 1 without @share rows */
		c->hi[p] = 1;
		for (int n = 2; m->capacity && n <= S; n++)
			c->hi[p] = fmax(c->hi[p], m->capacity[p * (S + 1) + n]);
	}
	c->load = btc_xcalloc((size_t)(n_runs > 0 ? n_runs : 1) * (size_t)np, sizeof(double));
	/* the problem in the bound's units, kappa 1 */
	struct btc_workload_scaled sp[BTC_WORKLOAD_MAX_APPS];
	int n_apps = 0;
	struct btc_multi_stream *st = btc_xcalloc((size_t)S, sizeof(*st));
	for (int s = 0; s < S; s++) {
		st[s] = m->streams[s];
		if (st[s].app + 1 > n_apps)
			n_apps = st[s].app + 1;
	}
	for (int a = 0; cal && a < n_apps; a++) {
		const struct btc_sched_problem *orig = NULL;
		for (int s = 0; s < S && !orig; s++)
			if (m->streams[s].app == a)
				orig = m->streams[s].p;
		btc_workload_scaled_make(orig, cal->scale[a], cal->io_scale[a], &sp[a]);
	}
	for (int s = 0; cal && s < S; s++) {
		st[s].p = &sp[st[s].app].p;
		st[s].weight = w[s] / cal->measured_ms[st[s].app];
	}
	struct btc_multi_problem mm = *m;
	mm.streams = st;
	mm.capacity = NULL;
	mm.objective = BTC_MULTI_MAXMIN;
	/* L^rho_p = sum_s r^rho_s t^k_{s,p}, t^k of the run's candidate */
	struct btc_multi_eval *e = btc_xcalloc((size_t)(n_cand > 0 ? n_cand : 1), sizeof(*e));
	bool *ev = btc_xcalloc((size_t)(n_cand > 0 ? n_cand : 1), sizeof(bool));
	for (int k = 0; k < n_cand; k++)
		ev[k] = btc_multi_evaluate(&mm, cand[k], &e[k]);
	for (int r = 0; r < n_runs; r++) {
		int k = run_cand[r];
		double *L = &c->load[(size_t)r * (size_t)np];
		bool ok = k >= 0 && k < n_cand && ev[k];
		for (int p = 0; p < np; p++) {
			L[p] = ok ? 0 : NAN;
			for (int s = 0; ok && s < S; s++)
				L[p] += run_rate[r][s] / 1000.0 * e[k].t[s * np + p];
		}
		c->n_judged += k == best && ok;
	}
	/* per judged run i its B_i; the bound the lower median */
	bool ok = true;
	double *B = btc_xcalloc((size_t)(n_runs > 0 ? n_runs : 1), sizeof(double));
	int *who = btc_xcalloc((size_t)(n_runs > 0 ? n_runs : 1), sizeof(int)), nb = 0;
	for (int r = 0; ok && r < n_runs; r++) {
		if (run_cand[r] != best || isnan(c->load[(size_t)r * (size_t)np]))
			continue;
		double kappa[BTC_SCHED_MAX_PUS];
		kappa_without(c, r, kappa);
		ok = bound_with(&mm, kappa, &B[nb], d);
		who[nb++] = r;
	}
	if (ok && nb > 0) {
		/* sort (B, run) ascending; the lower median */
		for (int x = 1; x < nb; x++)
			for (int y = x; y > 0 && B[y] < B[y - 1]; y--) {
				double t = B[y];
				B[y] = B[y - 1];
				B[y - 1] = t;
				int u = who[y];
				who[y] = who[y - 1];
				who[y - 1] = u;
			}
		int mid = (nb - 1) / 2;
		c->judged = who[mid];
		c->bound = B[mid];
		c->has_bound = true;
		c->n_from = kappa_without(c, c->judged, c->kappa);
		for (int p = 0; p < np; p++)
			if (c->load[(size_t)c->judged * (size_t)np + (size_t)p] > c->kappa[p])
				c->capacity_exceeded = true;
	}
	free(B);
	free(who);
	for (int k = 0; k < n_cand; k++)
		btc_multi_eval_free(&e[k]); /* zeroed when not evaluable */
	free(e);
	free(ev);
	free(st);
	for (int a = 0; cal && a < n_apps; a++)
		btc_workload_scaled_free(&sp[a]);
	return ok && c->has_bound;
}

bool btc_workload_capacity(const struct btc_joint_plan *j, const struct btc_workload_calib *cal,
			   int n_runs, const int *run_cand, const double *const *run_rate, int best,
			   struct btc_workload_capacity *c, struct btc_diag *d)
{
	memset(c, 0, sizeof(*c));
	if (j->m.objective != BTC_MULTI_MAXMIN)
		return false;
	double *w = btc_xcalloc((size_t)j->n_streams, sizeof(double));
	for (int s = 0; s < j->n_streams; s++)
		w[s] = j->wl.apps[j->streams[s].app].weight;
	const int **cand = btc_xcalloc((size_t)(j->result.n > 0 ? j->result.n : 1), sizeof(*cand));
	for (int k = 0; k < j->result.n; k++)
		cand[k] = j->result.c[k].a;
	bool ok = btc_workload_capacity_problem(&j->m, cal, w, cand, j->result.n, n_runs, run_cand,
						run_rate, best, c, d);
	free(cand);
	free(w);
	return ok;
}

void btc_workload_capacity_free(struct btc_workload_capacity *c)
{
	free(c->load);
	c->load = NULL;
}

/* " gpu x1.24 cpu x1.10" (the PUs above 1), or " 1 on every PU". */
static void print_kappa(const struct btc_joint_plan *j, const struct btc_workload_capacity *c)
{
	bool any = false;
	for (int p = 0; p < c->n_pus; p++)
		if (c->kappa[p] > 1) {
			printf(" %s x%.3f", j->dev->pus[p].name, c->kappa[p]);
			any = true;
		}
	if (!any)
		printf(" 1 on every PU");
}

void btc_workload_print_capacity(const struct btc_joint_plan *j,
				 const struct btc_workload_capacity *cal,
				 const struct btc_workload_capacity *tab, double m)
{
	const struct btc_workload_capacity *c = cal && cal->has_bound ? cal : tab;
	if (!c || !c->has_bound || !(c->bound > 0) || !(m > 0))
		return;
	printf("multi-app fluid bound with the capacity measured in the job's other joint runs "
	       "(%d run%s besides the judged one of the chosen's %d; kappa%s",
	       c->n_from, c->n_from == 1 ? "" : "s", c->n_judged,
	       c == cal ? ", calibrated units:" : ", table units:");
	print_kappa(j, c);
	printf("): %.3f; ", c->bound);
	if (m <= c->bound)
		printf("chosen M / it = %.2f", m / c->bound);
	else
		printf("NOT a bound here: the chosen's measured M %.3f lies above it%s", m,
		       c->capacity_exceeded ? " (its run delivered more than the other runs showed)"
					    : "");
	if (c == cal && tab && tab->has_bound && tab->bound > 0) {
		printf("; in the table's units %.3f", tab->bound);
		if (m <= tab->bound)
			printf(" (M / it %.2f)", m / tab->bound);
		else
			printf(" (M above it)");
	}
	printf("\n");
}

static cJSON *capacity_json(const struct btc_joint_plan *j, const struct btc_workload_capacity *c,
			    double m)
{
	cJSON *o = cJSON_CreateObject(), *k = cJSON_AddObjectToObject(o, "kappa");
	for (int p = 0; p < c->n_pus; p++)
		cJSON_AddNumberToObject(k, j->dev->pus[p].name, c->kappa[p]);
	cJSON *load = cJSON_AddArrayToObject(o, "load");
	for (int x = 0; x < c->n_runs; x++) {
		cJSON *l = cJSON_CreateObject();
		for (int p = 0; p < c->n_pus; p++) {
			double v = c->load[(size_t)x * (size_t)c->n_pus + (size_t)p];
			cJSON_AddItemToObject(l, j->dev->pus[p].name, btc_json_unrounded(v));
		}
		cJSON_AddItemToArray(load, l);
	}
	cJSON_AddNumberToObject(o, "from_runs", c->n_from);
	cJSON_AddNumberToObject(o, "judged_runs", c->n_judged);
	cJSON_AddNumberToObject(o, "judged_run", c->judged);
	if (c->has_bound)
		cJSON_AddNumberToObject(o, "bound", c->bound);
	else
		cJSON_AddNullToObject(o, "bound");
	if (m > 0 && c->has_bound) {
		cJSON_AddBoolToObject(o, "holds", m <= c->bound);
		cJSON_AddBoolToObject(o, "capacity_exceeded", c->capacity_exceeded);
	}
	return o;
}

void btc_workload_add_capacity(cJSON *plan, const struct btc_joint_plan *j,
			       const struct btc_workload_capacity *cal,
			       const struct btc_workload_capacity *tab, double m)
{
	if (j->m.objective != BTC_MULTI_MAXMIN || !tab || !tab->load)
		return;
	cJSON *o = cJSON_AddObjectToObject(plan, "fluid_bound_capacity");
	cJSON_AddStringToObject(o, "source",
				"the job's joint runs other than the judged one: "
				"kappa_p = max(hi_p, max_rho sum_s r_s t_{s,p})");
	cJSON_AddItemToObject(o, "table", capacity_json(j, tab, m));
	if (cal && cal->load)
		cJSON_AddItemToObject(o, "calibrated", capacity_json(j, cal, m));
	else
		cJSON_AddNullToObject(o, "calibrated");
}
