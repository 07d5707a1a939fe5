/* The fluid bound (sched/bound.h): a linear program over the profiling
 * table, built and solved with GLPK's primal simplex, its answer checked
 * here: the loads are recomputed from the fractions (a feasible point),
 * and the row duals, clipped to dual feasibility, give a lower bound on
 * the optimum by weak duality (docs/scheduler.md, "The fluid bound").
 * glp_exact is not used: it converts each double to a nearby simple
 * fraction (set_d_eps in GLPK's glpapi07.c, relative tolerance 1e-9), not
 * to the double's exact value, so its "exact" optimum of a one-PU table
 * came out 42.0355999982 ms where the table's sum is 42.0356 ms. */
#include "sched/bound.h"
#include "sched/glpk_guard.h"
#include "sched/lp_matrix.h"

#include <glpk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct btc_loc no_loc = {0};

static enum btc_status fluid_bound(const struct btc_sched_problem *p,
				   const struct btc_sched_options *opt, const double *off,
				   struct btc_sched_bound *b, struct btc_diag *d);

bool btc_sched_bound_allowed(const struct btc_sched_problem *p,
			     const struct btc_sched_options *opt, int i, int c)
{
	if (isnan(p->time_ms[i * p->n_pus + c]))
		return false;
	if (opt && (opt->forbid_mask & (1u << c)))
		return false;
	if (opt && opt->pin && opt->pin[i] >= 0 && opt->pin[i] != c)
		return false;
	return true;
}

/* F_c, plus the least chunk boundary term S_ic of the stages c has a time
 * for: every chunk on c starts at one of them, so a PU that takes any of a
 * task's work pays at least that once (0 without S). */
static double fixed_of(const struct btc_sched_problem *p, int c)
{
	double s = INFINITY;
	for (int i = 0; p->start_ms && i < p->n_stages; i++)
		if (!isnan(p->time_ms[i * p->n_pus + c]))
			s = fmin(s, p->start_ms[i * p->n_pus + c]);
	return (p->fixed_ms ? p->fixed_ms[c] : 0) + (isfinite(s) ? s : 0);
}

/* Every stage has an allowed PU; otherwise report the first that has
 * none. */
static bool every_stage_placed(const struct btc_sched_problem *p,
			       const struct btc_sched_options *opt, struct btc_diag *d)
{
	int errors = d->errors;
	for (int i = 0; i < p->n_stages; i++) {
		bool any = false;
		for (int c = 0; c < p->n_pus; c++)
			any |= btc_sched_bound_allowed(p, opt, i, c);
		if (any)
			continue;
		if (p->stage_names && p->stage_names[i])
			btc_error(d, no_loc,
				  "fluid bound: stage %d (%s) has a time only on forbidden PUs", i,
				  p->stage_names[i]);
		else
			btc_error(d, no_loc, "fluid bound: stage %d has a time only on forbidden PUs",
				  i);
	}
	return d->errors == errors;
}

/* The LP's columns: T, then x[i][c] for the allowed pairs (stage-major),
 * then y[c] for the PUs with F_c > 0 that have an allowed stage. 1-based
 * GLPK indices; 0 = no column. */
struct lp_cols {
	int n;     /* columns */
	int *x;    /* [n_stages * n_pus] */
	int *y;    /* [n_pus] */
	const double *off; /* [n_pus] offsets <= 0 in every PU row, or NULL */
};

static double off_of(const struct lp_cols *k, int c)
{
	return k->off ? k->off[c] : 0;
}

static void lp_columns(const struct btc_sched_problem *p, const struct btc_sched_options *opt,
		       struct lp_cols *k)
{
	int n = p->n_stages, np = p->n_pus;
	k->x = btc_xcalloc((size_t)n * (size_t)np, sizeof(int));
	k->y = btc_xcalloc((size_t)np, sizeof(int));
	k->n = 1; /* T */
	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++)
			if (btc_sched_bound_allowed(p, opt, i, c))
				k->x[i * np + c] = ++k->n;
	for (int c = 0; c < np; c++) {
		if (!(fixed_of(p, c) > 0))
			continue;
		bool used = false;
		for (int i = 0; i < n; i++)
			used |= k->x[i * np + c] != 0;
		if (used)
			k->y[c] = ++k->n;
	}
}

/* Builds the LP of bound.h into lp. Rows: the n stage rows, the np PU
 * rows, then the touch rows, whose indices go to touch_row[i * np + c]
 * (0: none). */
static void lp_build(glp_prob *lp, const struct btc_sched_problem *p, const struct lp_cols *k,
		     int *touch_row)
{
	int n = p->n_stages, np = p->n_pus;
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_cols(lp, k->n);
	for (int j = 1; j <= k->n; j++)
		glp_set_col_bnds(lp, j, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(lp, 1, 1.0);
	struct btc_lp_matrix m = {0};
	int row = 0;
	/* sum_c x[i][c] = 1 */
	for (int i = 0; i < n; i++) {
		glp_add_rows(lp, 1);
		glp_set_row_bnds(lp, ++row, GLP_FX, 1.0, 1.0);
		for (int c = 0; c < np; c++)
			if (k->x[i * np + c])
				btc_lp_matrix_put(&m, row, k->x[i * np + c], 1.0);
	}
	/* F_c y[c] + sum_i t_{i,c} x[i][c] - T <= 0 */
	for (int c = 0; c < np; c++) {
		glp_add_rows(lp, 1);
		glp_set_row_bnds(lp, ++row, GLP_UP, 0.0, -off_of(k, c));
		btc_lp_matrix_put(&m, row, 1, -1.0);
		for (int i = 0; i < n; i++)
			if (k->x[i * np + c] && p->time_ms[i * np + c] > 0)
				btc_lp_matrix_put(&m, row, k->x[i * np + c],
						  p->time_ms[i * np + c]);
		if (k->y[c])
			btc_lp_matrix_put(&m, row, k->y[c], fixed_of(p, c));
	}
	/* x[i][c] - y[c] <= 0 */
	for (int c = 0; c < np; c++) {
		if (!k->y[c])
			continue;
		for (int i = 0; i < n; i++) {
			if (!k->x[i * np + c])
				continue;
			glp_add_rows(lp, 1);
			glp_set_row_bnds(lp, ++row, GLP_UP, 0.0, 0.0);
			touch_row[i * np + c] = row;
			btc_lp_matrix_put(&m, row, k->x[i * np + c], 1.0);
			btc_lp_matrix_put(&m, row, k->y[c], -1.0);
		}
	}
	btc_lp_matrix_load(lp, &m);
}

/* Weak duality. The Lagrangian of the LP with multipliers u_i (stage
 * rows, free), v_c >= 0 (PU rows) and w_ic >= 0 (touch rows) is bounded
 * below over T, x, y >= 0 iff sum_c v_c <= 1, u_i <= v_c t_ic + w_ic for
 * every allowed (i, c), and sum_i w_ic <= v_c F_c; its minimum is then
 * sum_i u_i <= T*. GLPK's duals (v = -dual of a <= row in a minimisation)
 * are clipped and scaled into that set, and u_i is the largest allowed. */
static double dual_bound(glp_prob *lp, const struct btc_sched_problem *p, const struct lp_cols *k,
			 const int *touch_row)
{
	int n = p->n_stages, np = p->n_pus;
	double *v = btc_xcalloc((size_t)np, sizeof(double));
	double *w = btc_xcalloc((size_t)n * (size_t)np, sizeof(double));
	double sv = 0;
	for (int c = 0; c < np; c++)
		sv += v[c] = fmax(0.0, -glp_get_row_dual(lp, n + 1 + c));
	for (int c = 0; c < np; c++) {
		if (sv > 1)
			v[c] /= sv;
		double sw = 0;
		for (int i = 0; i < n; i++)
			if (touch_row[i * np + c])
				sw += w[i * np + c] =
					fmax(0.0, -glp_get_row_dual(lp, touch_row[i * np + c]));
		double cap = v[c] * fixed_of(p, c);
		for (int i = 0; sw > cap && i < n; i++)
			w[i * np + c] *= cap / sw;
	}
	double lb = 0;
	for (int c = 0; c < np; c++) /* the rows' right-hand sides -off_c */
		lb += v[c] * off_of(k, c);
	for (int i = 0; i < n; i++) {
		double u = INFINITY;
		for (int c = 0; c < np; c++)
			if (k->x[i * np + c])
				u = fmin(u, v[c] * p->time_ms[i * np + c] + w[i * np + c]);
		lb += u;
	}
	free(v);
	free(w);
	return lb;
}

/* The feasible point of GLPK's solution: x clipped at 0 and each stage's
 * row scaled to sum 1; loads, touch fractions and their max recomputed. */
static void primal_point(glp_prob *lp, const struct btc_sched_problem *p, const struct lp_cols *k,
			 struct btc_sched_bound *b)
{
	int n = p->n_stages, np = p->n_pus;
	for (int i = 0; i < n; i++) {
		double sum = 0;
		for (int c = 0; c < np; c++)
			if (k->x[i * np + c])
				sum += b->frac[i * np + c] =
					fmax(0.0, glp_get_col_prim(lp, k->x[i * np + c]));
		for (int c = 0; c < np; c++)
			b->frac[i * np + c] /= sum;
	}
	b->lp_ms = 0;
	for (int c = 0; c < np; c++) {
		double y = 0, load = 0;
		for (int i = 0; i < n; i++) {
			double x = b->frac[i * np + c];
			if (x > y)
				y = x;
			if (x > 0)
				load += x * p->time_ms[i * np + c];
		}
		b->touch[c] = y;
		b->load_ms[c] = load + fixed_of(p, c) * y + off_of(k, c);
		b->lp_ms = fmax(b->lp_ms, b->load_ms[c]);
	}
}

bool btc_sched_bound_effective(const struct btc_sched_problem *p,
			       const struct btc_sched_options *opt, struct btc_sched_problem *q,
			       double **time_ms, double **fixed_ms)
{
	*q = *p;
	*time_ms = *fixed_ms = NULL;
	if (!opt || !opt->core_splits || !p->cores || !p->time_cores_ms)
		return false;
	int n = p->n_stages, np = p->n_pus;
	bool any = false;
	for (int c = 0; c < np; c++)
		any |= p->cores[c].size > 1 && p->cores[c].n_counts > 0;
	if (!any)
		return false;
	double *t = btc_xcalloc((size_t)n * (size_t)np, sizeof(double));
	double *f = btc_xcalloc((size_t)np, sizeof(double));
	for (int c = 0; c < np; c++) {
		const struct btc_sched_cores *k = &p->cores[c];
		bool split = k->size > 1 && k->n_counts > 0;
		f[c] = p->fixed_ms ? p->fixed_ms[c] : 0; /* F_c alone: S stays in q->start_ms */
		if (split) /* the smallest team's share of the cores */
			f[c] *= (double)k->counts[0] / k->size;
		for (int i = 0; i < n; i++) {
			double e = p->time_ms[i * np + c];
			for (int j = 0; split && j < k->n_counts; j++) {
				double tk = p->time_cores_ms[btc_sched_cores_index(np, i, c, j)];
				if (!isnan(e) && !isnan(tk)) /* as the solvers: a count
							      * only where the PU has a time */
					e = fmin(e, tk * k->counts[j] / k->size);
			}
			t[i * np + c] = e;
		}
	}
	q->time_ms = *time_ms = t;
	q->fixed_ms = *fixed_ms = p->fixed_ms ? f : NULL;
	if (!p->fixed_ms) {
		free(f);
		*fixed_ms = NULL;
	}
	return true;
}

enum btc_status btc_sched_fluid_bound(const struct btc_sched_problem *p,
				     const struct btc_sched_options *opt,
				     struct btc_sched_bound *b, struct btc_diag *d)
{
	return btc_sched_fluid_bound_offset(p, opt, NULL, b, d);
}

enum btc_status btc_sched_fluid_bound_offset(const struct btc_sched_problem *p,
					    const struct btc_sched_options *opt,
					    const double *offset_ms, struct btc_sched_bound *b,
					    struct btc_diag *d)
{
	double *et, *ef;
	struct btc_sched_problem q;
	btc_sched_bound_effective(p, opt, &q, &et, &ef);
	enum btc_status st = fluid_bound(&q, opt, offset_ms, b, d);
	free(et);
	free(ef);
	return st;
}

static enum btc_status fluid_bound(const struct btc_sched_problem *p,
				   const struct btc_sched_options *opt, const double *off,
				   struct btc_sched_bound *b, struct btc_diag *d)
{
	memset(b, 0, sizeof(*b));
	struct btc_sched_options vo;
	btc_sched_options_init(&vo);
	if (opt) {
		vo.forbid_mask = opt->forbid_mask;
		vo.pin = opt->pin;
	}
	enum btc_status st = btc_sched_validate(p, &vo, d);
	if (st != BTC_OK)
		return st;
	if (!every_stage_placed(p, &vo, d))
		return BTC_ERR_UNSAT;

	int n = p->n_stages, np = p->n_pus;
	b->n_stages = n;
	b->n_pus = np;
	b->io_ms = p->io_ms;
	b->frac = btc_xcalloc((size_t)n * (size_t)np, sizeof(double));
	b->load_ms = btc_xcalloc((size_t)np, sizeof(double));
	b->touch = btc_xcalloc((size_t)np, sizeof(double));

	struct lp_cols k;
	lp_columns(p, &vo, &k);
	k.off = off;
	int *touch_row = btc_xcalloc((size_t)n * (size_t)np, sizeof(int));
	int term = glp_term_out(GLP_OFF);
	glp_prob *lp = glp_create_prob();
	lp_build(lp, p, &k, touch_row);
	int rc = btc_glpk_simplex(lp);
	double lb = 0;
	if (rc == BTC_GLPK_OK) {
		primal_point(lp, p, &k, b);
		lb = dual_bound(lp, p, &k, touch_row);
	}
	if (rc != BTC_GLPK_INTERNAL) /* else GLPK freed it */
		glp_delete_prob(lp);
	glp_term_out(term);
	free(k.x);
	free(k.y);
	free(touch_row);
	if (rc != BTC_GLPK_OK) {
		btc_error(d, no_loc, "fluid bound: GLPK's simplex %s",
			  rc == BTC_GLPK_INTERNAL ? "stopped on an internal error"
						  : "found no optimum");
		return BTC_ERR_LIMIT;
	}
	b->gap_ms = fmax(0.0, b->lp_ms - lb);
	if (b->gap_ms > 1e-9 * b->lp_ms) {
		btc_error(d, no_loc,
			  "fluid bound: GLPK's solution %.17g ms is not certified optimal "
			  "(dual bound %.17g ms)",
			  b->lp_ms, lb);
		return BTC_ERR_LIMIT;
	}
	b->bound_ms = fmax(p->io_ms, b->lp_ms);
	return BTC_OK;
}

void btc_sched_bound_free(struct btc_sched_bound *b)
{
	free(b->frac);
	free(b->load_ms);
	free(b->touch);
	memset(b, 0, sizeof(*b));
}

void btc_sched_bound_set_io(struct btc_sched_bound *b, struct btc_sched_assign *a,
			    double io_ms)
{
	b->io_ms = io_ms;
	b->bound_ms = fmax(io_ms, b->lp_ms);
	if (!a)
		return;
	a->io_ms = io_ms;
	a->bound_ms = a->exact ? fmax(b->bound_ms, fmax(io_ms, a->mip_ms)) : b->bound_ms;
}

double btc_sched_bound_efficiency(double bound_ms, double period_ms)
{
	if (isnan(bound_ms) || isnan(period_ms) || !(period_ms > 0))
		return NAN;
	return bound_ms / period_ms;
}
