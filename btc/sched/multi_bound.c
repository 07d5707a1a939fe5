/* Linear programs of the joint model (sched/multi.h), GLPK's simplex: the
 * multi-stream fluid bound and objective sum's rates for a fixed
 * assignment. */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/glpk_guard.h"
#include "sched/lp_matrix.h"
#include "sched/multi_internal.h"

static const struct btc_loc no_loc = {0};

/* Solves lp (maximising; btc_glpk_simplex): the objective's value, or NAN
 * when there is no optimum. *gone: GLPK stopped on an internal error and
 * freed lp (its environment), so the caller must not touch it. */
static double solve(glp_prob *lp, bool *gone)
{
	int rc = btc_glpk_simplex(lp);
	*gone = rc == BTC_GLPK_INTERNAL;
	return rc == BTC_GLPK_OK ? glp_get_obj_val(lp) : NAN;
}

bool btc_multi_sum_lp(const struct btc_multi_problem *m, const double *t, const double *cap,
		      const double *self,
		      double *rate, double *value)
{
	int S = m->n_streams, np = m->n_pus;
	int term = glp_term_out(GLP_OFF);
	glp_prob *lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MAX);
	glp_add_cols(lp, S);
	for (int s = 0; s < S; s++) {
		double io = self ? self[s] : m->streams[s].p->io_ms;
		if (io > 0)
			glp_set_col_bnds(lp, s + 1, GLP_DB, 0.0, 1.0 / io);
		else
			glp_set_col_bnds(lp, s + 1, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(lp, s + 1, m->streams[s].weight);
	}
	glp_add_rows(lp, np);
	struct btc_lp_matrix k = {0};
	for (int c = 0; c < np; c++) {
		glp_set_row_bnds(lp, c + 1, GLP_UP, 0.0, cap ? cap[c] : 1.0);
		for (int s = 0; s < S; s++)
			if (t[s * np + c] > 0)
				btc_lp_matrix_put(&k, c + 1, s + 1, t[s * np + c]);
	}
	btc_lp_matrix_load(lp, &k);
	bool gone;
	double v = solve(lp, &gone);
	for (int s = 0; s < S; s++)
		rate[s] = isnan(v) ? 0 : fmax(0.0, glp_get_col_prim(lp, s + 1));
	*value = v;
	if (!gone)
		glp_delete_prob(lp);
	glp_term_out(term);
	return !isnan(v);
}

/* The least share of PU c's time per unit of stage work the space allows:
 * 1 on all cores; with core splits, a chunk on k of its n cores takes
 * k / n of it for t_{i,c,k} (k / n x t_k may be below t_n: a speedup
 * below linear), so the stage's coefficient is the least of t_{i,c} and
 * k / n x t_{i,c,k} over the profiled counts, and F's the least k / n
 * (*f_share). NAN when the stage has no time on c. */
static double least_time(const struct btc_multi_problem *m, const struct btc_sched_problem *p,
			 int i, int c, double *f_share)
{
	double t = p->time_ms[i * p->n_pus + c];
	*f_share = 1;
	const struct btc_sched_cores *k = p->cores ? &p->cores[c] : NULL;
	if (!m->core_splits || !p->time_cores_ms || !k || k->size < 2)
		return t;
	for (int j = 0; j < k->n_counts; j++) {
		double share = (double)k->counts[j] / k->size;
		double tk = p->time_cores_ms[btc_sched_cores_index(p->n_pus, i, c, j)];
		*f_share = fmin(*f_share, share);
		if (!isnan(tk) && !isnan(t))
			t = fmin(t, share * tk);
	}
	return t;
}

enum btc_status btc_multi_bound(const struct btc_multi_problem *m, double *value,
				struct btc_diag *d)
{
	int S = m->n_streams, np = m->n_pus;
	bool sum = m->objective == BTC_MULTI_SUM;
	int term = glp_term_out(GLP_OFF);
	glp_prob *lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MAX);
	/* Columns: theta (maxmin, rates) or r_s (sum), then per stream z and u. */
	int ncol = sum ? S : 1;
	glp_add_cols(lp, ncol);
	double cap = INFINITY;
	for (int s = 0; s < S; s++) {
		double io = m->streams[s].p->io_ms;
		if (sum) {
			glp_set_obj_coef(lp, s + 1, m->streams[s].weight);
			if (io > 0)
				glp_set_col_bnds(lp, s + 1, GLP_DB, 0.0, 1.0 / io);
			else
				glp_set_col_bnds(lp, s + 1, GLP_LO, 0.0, 0.0);
		} else if (io > 0) {
			cap = fmin(cap, 1.0 / (btc_multi_coeff(m, s) * io));
		}
	}
	if (!sum) {
		glp_set_obj_coef(lp, 1, 1.0);
		if (isfinite(cap))
			glp_set_col_bnds(lp, 1, GLP_DB, 0.0, cap);
		else
			glp_set_col_bnds(lp, 1, GLP_LO, 0.0, 0.0);
	}
	struct btc_lp_matrix k = {0};
	int row = 0;
	/* PU rows first: 1..np, sum of work <= the PU's largest capacity
	 * (max(1, max_n kappa_p(n)): the fluid split has no stream count,
	 * and no assignment's PU delivers more). */
	glp_add_rows(lp, np);
	for (int c = 0; c < np; c++)
		glp_set_row_bnds(lp, ++row, GLP_UP, 0.0, btc_multi_kappa_hi(m, c));
	for (int s = 0; s < S; s++) {
		const struct btc_sched_problem *p = m->streams[s].p;
		int n = p->n_stages;
		int ucol[BTC_SCHED_MAX_PUS] = {0};
		for (int c = 0; c < np; c++) {
			double F = p->fixed_ms ? p->fixed_ms[c] : 0, share;
			least_time(m, p, 0, c, &share);
			F *= share;
			if (F > 0 && !(m->forbid_mask & (1u << c))) {
				ucol[c] = ++ncol;
				glp_add_cols(lp, 1);
				glp_set_col_bnds(lp, ncol, GLP_LO, 0.0, 0.0);
				btc_lp_matrix_put(&k, c + 1, ncol, F);
			}
		}
		for (int i = 0; i < n; i++) {
			glp_add_rows(lp, 1);
			int cover = ++row; /* sum_p z - r_s = 0 */
			glp_set_row_bnds(lp, cover, GLP_FX, 0.0, 0.0);
			btc_lp_matrix_put(&k, cover, sum ? s + 1 : 1, sum ? -1.0 : -btc_multi_coeff(m, s));
			for (int c = 0; c < np; c++) {
				double share, tt = least_time(m, p, i, c, &share);
				if (isnan(tt) || (m->forbid_mask & (1u << c)))
					continue;
				glp_add_cols(lp, 1);
				int z = ++ncol;
				glp_set_col_bnds(lp, z, GLP_LO, 0.0, 0.0);
				btc_lp_matrix_put(&k, cover, z, 1.0);
				if (tt > 0)
					btc_lp_matrix_put(&k, c + 1, z, tt);
				if (ucol[c]) {
					glp_add_rows(lp, 1);
					glp_set_row_bnds(lp, ++row, GLP_UP, 0.0, 0.0);
					btc_lp_matrix_put(&k, row, z, 1.0);
					btc_lp_matrix_put(&k, row, ucol[c], -1.0);
				}
			}
		}
	}
	btc_lp_matrix_load(lp, &k);
	bool gone;
	double v = solve(lp, &gone);
	if (!gone)
		glp_delete_prob(lp);
	glp_term_out(term);
	if (isnan(v)) {
		btc_error(d, no_loc, "multi-stream fluid bound: GLPK %s",
			  gone ? "stopped on an internal error" : "found no optimum");
		return BTC_ERR_LIMIT;
	}
	*value = v;
	return BTC_OK;
}
