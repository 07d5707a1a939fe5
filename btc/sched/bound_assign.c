/* The assignment bound (sched/bound.h; docs/scheduler.md, "The
 * assignment bound"): the fluid LP with integral stage placement, a MIP
 * built here and solved with GLPK's branch and cut (glp_intopt), on the
 * effective times of btc_sched_bound_effective, scaled so that the fluid
 * LP's optimum is 1 (GLPK's tolerances are absolute). Its optimum is
 * taken less BTC_SCHED_ASSIGN_SLACK, then raised to the fluid bound and
 * T_io, two bounds of their own. */
#include "sched/bound.h"
#include "sched/glpk_guard.h"
#include "sched/lp_matrix.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int btc_sched_assign_fail;
int btc_sched_assign_glpk_errors;

/* Columns (1-based GLPK indices, 0 = none): T; per allowed (i, c) the
 * placement a_ic (binary; x_ic itself without farms) and with farms the
 * fraction x_ic; per PU with an allowed stage y_c (binary without farms,
 * the share s_c in [0, 1] with). */
struct cols {
	int n;
	int *a, *x, *y;
};

static int add_row(glp_prob *lp, int type, double lo, double hi)
{
	int r = glp_add_rows(lp, 1);
	glp_set_row_bnds(lp, r, type, lo, hi);
	return r;
}

static int add_col(glp_prob *lp, struct cols *k, int kind, double hi)
{
	int j = glp_add_cols(lp, 1);
	glp_set_col_kind(lp, j, kind);
	if (kind == GLP_CV)
		glp_set_col_bnds(lp, j, hi > 0 ? GLP_DB : GLP_LO, 0.0, hi);
	k->n = j;
	return j;
}

/* The most stage ranges PU c runs in a schedule of the space: 1 (C2; a
 * farm member runs its farm's range), or with core splits on a CPU PU
 * that may be split, one per team: size / the smallest profiled count. */
static int runs(const struct btc_sched_problem *q, const struct btc_sched_options *opt, int c)
{
	if (opt && opt->core_splits && q->cores && q->time_cores_ms && q->cores[c].size > 1 &&
	    q->cores[c].n_counts > 0)
		return q->cores[c].size / q->cores[c].counts[0];
	return 1;
}

/* Builds the MIP of docs/scheduler.md on q (effective times) with every
 * time divided by scale; t_lo: a lower bound on T (scaled). */
static void build(glp_prob *lp, const struct btc_sched_problem *q,
		  const struct btc_sched_options *opt, const double *off, bool farms,
		  bool contig, double scale, double t_lo, struct cols *k)
{
	int n = q->n_stages, np = q->n_pus;
	k->a = btc_xcalloc((size_t)n * (size_t)np, sizeof(int));
	k->x = btc_xcalloc((size_t)n * (size_t)np, sizeof(int));
	k->y = btc_xcalloc((size_t)np, sizeof(int));
	glp_set_obj_dir(lp, GLP_MIN);
	int tcol = add_col(lp, k, GLP_CV, 0);
	glp_set_col_bnds(lp, tcol, GLP_LO, t_lo, 0.0);
	glp_set_obj_coef(lp, tcol, 1.0);
	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++) {
			if (!btc_sched_bound_allowed(q, opt, i, c))
				continue;
			k->a[i * np + c] = add_col(lp, k, GLP_BV, 0);
			k->x[i * np + c] = farms ? add_col(lp, k, GLP_CV, 1.0) : k->a[i * np + c];
		}
	for (int c = 0; c < np; c++) {
		bool used = false;
		for (int i = 0; i < n; i++)
			used |= k->a[i * np + c] != 0;
		if (used)
			k->y[c] = add_col(lp, k, farms ? GLP_CV : GLP_BV, 1.0);
	}
	struct btc_lp_matrix m = {0};
	int *load_row = btc_xcalloc((size_t)np, sizeof(int));
	for (int i = 0; i < n; i++) { /* sum_c x_ic = 1 */
		int r = add_row(lp, GLP_FX, 1.0, 1.0);
		for (int c = 0; c < np; c++)
			if (k->x[i * np + c])
				btc_lp_matrix_put(&m, r, k->x[i * np + c], 1.0);
	}
	for (int c = 0; c < np; c++) { /* F_c y_c + sum_i t_ic x_ic - T <= 0 */
		if (!k->y[c])
			continue;
		double f = q->fixed_ms ? q->fixed_ms[c] / scale : 0;
		double o = off ? off[c] / scale : 0;
		int r = add_row(lp, GLP_UP, 0.0, farms ? -o : 0.0);
		load_row[c] = r;
		btc_lp_matrix_put(&m, r, tcol, -1.0);
		if (!farms)
			f += o;
		if (f != 0)
			btc_lp_matrix_put(&m, r, k->y[c], f);
		for (int i = 0; i < n; i++)
			if (k->x[i * np + c] && q->time_ms[i * np + c] > 0)
				btc_lp_matrix_put(&m, r, k->x[i * np + c],
						  q->time_ms[i * np + c] / scale);
	}
	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++) {
			int x = k->x[i * np + c], a = k->a[i * np + c], y = k->y[c];
			if (!x)
				continue;
			int r = add_row(lp, GLP_UP, 0.0, 0.0); /* x_ic <= y_c (s_c) */
			btc_lp_matrix_put(&m, r, x, 1.0);
			btc_lp_matrix_put(&m, r, y, -1.0);
			if (!farms)
				continue;
			r = add_row(lp, GLP_UP, 0.0, 0.0); /* x_ic <= a_ic */
			btc_lp_matrix_put(&m, r, x, 1.0);
			btc_lp_matrix_put(&m, r, a, -1.0);
			r = add_row(lp, GLP_UP, 0.0, 1.0); /* s_c - x_ic + a_ic <= 1 */
			btc_lp_matrix_put(&m, r, y, 1.0);
			btc_lp_matrix_put(&m, r, x, -1.0);
			btc_lp_matrix_put(&m, r, a, 1.0);
		}
	for (int c = 0; contig && c < np; c++) { /* C2: at most runs(c) ranges */
		if (!k->y[c])
			continue;
		int sum = add_row(lp, GLP_UP, 0.0, runs(q, opt, c));
		for (int i = 0; i < n; i++) {
			int x = k->a[i * np + c], prev = i ? k->a[(i - 1) * np + c] : 0;
			if (!x)
				continue;
			/* st_ic >= a_ic - a_{i-1,c} */
			int st = add_col(lp, k, GLP_CV, 1.0);
			int r = add_row(lp, GLP_UP, 0.0, 0.0);
			btc_lp_matrix_put(&m, r, x, 1.0);
			btc_lp_matrix_put(&m, r, st, -1.0);
			if (prev)
				btc_lp_matrix_put(&m, r, prev, -1.0);
			btc_lp_matrix_put(&m, sum, st, 1.0);
			/* the chunk boundary term S_ic at a chunk start; st_ic is
			 * at least the start indicator, so the load stays a lower
			 * bound (a farm member pays s_c S: left out, S >= 0) */
			double sb = q->start_ms ? q->start_ms[i * np + c] / scale : 0;
			if (!farms && sb > 0)
				btc_lp_matrix_put(&m, load_row[c], st, sb);
		}
	}
	free(load_row);
	if (!farms && opt && opt->max_chunks > 0) { /* a used PU runs a chunk */
		int r = add_row(lp, GLP_UP, 0.0, opt->max_chunks);
		for (int c = 0; c < np; c++)
			if (k->y[c])
				btc_lp_matrix_put(&m, r, k->y[c], 1.0);
	}
	btc_lp_matrix_load(lp, &m);
}

/* What branch_and_cut runs with. */
struct mip_run {
	bool presolve;
	int br;
};

/* Branch and cut (btc_glpk_run's fn; arg a struct mip_run). */
static int branch_and_cut(glp_prob *lp, void *arg)
{
	const struct mip_run *m = arg;
	if (btc_sched_assign_fail == 3 && m->br == GLP_BR_PCH)
		glp_get_row_name(lp, 0); /* row 0 is out of range: GLPK's error */
	if (!m->presolve && btc_glpk_simplex_in_run(lp) != BTC_GLPK_OK)
		return BTC_GLPK_NO_OPTIMUM;
	glp_iocp parm;
	glp_init_iocp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.presolve = m->presolve ? GLP_ON : GLP_OFF;
	parm.tm_lim = BTC_SCHED_ASSIGN_TIME_MS;
	parm.br_tech = m->br;
	parm.bt_tech = GLP_BT_BLB; /* best local bound first */
	parm.tol_int = 1e-9;       /* binaries within 1e-9 of 0 or 1 (default
				    * 1e-5, which lets a share leak 1e-5 of a
				    * stage) */
	if (glp_intopt(lp, &parm) != 0 || glp_mip_status(lp) != GLP_OPT)
		return BTC_GLPK_NO_OPTIMUM;
	return BTC_GLPK_OK;
}

/* Branch and cut with branching technique br (GLP_BR_*), with GLPK's MIP
 * presolver or, without it, on the LP relaxation's optimal basis; 0, or
 * -1 when it ends without a proven optimum, or -2 when GLPK stopped on an
 * internal error: GLPK's environment (lp included) is then freed
 * (btc_glpk_run), so the caller must not touch lp again. */
static int solve(glp_prob *lp, bool presolve, int br)
{
	if (btc_sched_assign_fail == 1 || btc_sched_assign_fail == 2)
		return -1;
	struct mip_run m = {presolve, br};
	int rc = btc_glpk_run(branch_and_cut, lp, &m);
	if (rc == BTC_GLPK_INTERNAL)
		btc_sched_assign_glpk_errors++;
	return rc;
}

/* The incumbent's x, y and loads, recomputed in ms from q (x rounded for
 * the binaries, clipped for the shares). */
static void incumbent(glp_prob *lp, const struct btc_sched_problem *q, const struct cols *k,
		      const double *off, bool farms, bool contig, struct btc_sched_assign *a)
{
	int n = q->n_stages, np = q->n_pus;
	for (int i = 0; i < n * np; i++)
		if (k->x[i]) {
			double v = glp_mip_col_val(lp, k->x[i]);
			a->frac[i] = farms ? fmin(1.0, fmax(0.0, v)) : (v > 0.5);
		}
	for (int c = 0; c < np; c++) {
		double y = 0, load = 0;
		for (int i = 0; i < n; i++) {
			double x = a->frac[i * np + c];
			y = fmax(y, x);
			if (x > 0)
				load += x * q->time_ms[i * np + c];
			/* S at each start, as the contiguous MIP counts it */
			bool start = x > 0 && (i == 0 || !(a->frac[(i - 1) * np + c] > 0));
			if (contig && !farms && start && q->start_ms)
				load += q->start_ms[i * np + c];
		}
		a->share[c] = y;
		a->load_ms[c] = load + (q->fixed_ms ? q->fixed_ms[c] : 0) * y;
		if (off && (farms || y > 0))
			a->load_ms[c] += off[c];
	}
}

/* Whether the incumbent's recomputed max load exceeds GLPK's optimum by
 * more than the slack (GLPK's answer is then not an optimum of the MIP). */
static bool incumbent_above(glp_prob *lp, const struct btc_sched_problem *q,
			    const struct cols *k, const double *off, bool farms, bool contig,
			    double scale)
{
	int n = q->n_stages, np = q->n_pus;
	struct btc_sched_assign tmp = { .farms = farms };
	tmp.frac = btc_xcalloc((size_t)n * (size_t)np, sizeof(double));
	tmp.load_ms = btc_xcalloc((size_t)np, sizeof(double));
	tmp.share = btc_xcalloc((size_t)np, sizeof(double));
	incumbent(lp, q, k, off, farms, contig, &tmp);
	double best = 0;
	for (int c = 0; c < np; c++)
		best = fmax(best, tmp.load_ms[c]);
	free(tmp.frac);
	free(tmp.load_ms);
	free(tmp.share);
	return best > glp_mip_obj_val(lp) * scale + BTC_SCHED_ASSIGN_SLACK * (scale + best);
}

/* The MIP on q (contiguity rows when contig), its incumbent into a (when
 * fill); the optimum less the slack in ms, or NAN when not solved. */
static double solve_mip(const struct btc_sched_problem *q, const struct btc_sched_options *opt,
			const double *off, bool contig, double scale, double t_lo, bool fill,
			struct btc_sched_assign *a)
{
	int n = q->n_stages, np = q->n_pus;
	struct cols k = {0};
	glp_prob *lp = NULL;
	double mip = NAN;
	int rc = -2;
	/* Pseudocost branching (pixel7a's farms: 300 -> 120 ms against
	 * GLPK's default). GLPK 5.0 has stopped on an internal error in it
	 * (glpios09.c: "dx != 0.0", the pseudocost update, on a calibrated
	 * alexnet-dense table of lease Q; test/sched/suite_assign.c): such a
	 * MIP is built and solved again with Driebeck-Tomlin branching. */
	const int br[] = {GLP_BR_PCH, GLP_BR_DTH};
	for (int t = 0; t < 2 && rc == -2; t++) {
		free(k.a);
		free(k.x);
		free(k.y);
		memset(&k, 0, sizeof(k));
		lp = glp_create_prob();
		build(lp, q, opt, off, a->farms, contig, scale, t_lo, &k);
		/* GLPK 5.0's MIP presolver has returned an optimum below the
		 * load of its own incumbent (T under a PU row by 5e-4 of T, a
		 * table with the boundary term S whose T lower bound lay that
		 * close to the optimum): such an answer is solved again
		 * without the presolver */
		rc = solve(lp, true, br[t]);
		if (rc == 0 && incumbent_above(lp, q, &k, off, a->farms, contig, scale))
			rc = solve(lp, false, br[t]);
	}
	if (rc == 0) {
		struct btc_sched_assign tmp = *a;
		if (!fill) { /* the incumbent's loads, into scratch */
			tmp.frac = btc_xcalloc((size_t)n * (size_t)np, sizeof(double));
			tmp.load_ms = btc_xcalloc((size_t)np, sizeof(double));
			tmp.share = btc_xcalloc((size_t)np, sizeof(double));
		}
		incumbent(lp, q, &k, off, a->farms, contig, &tmp);
		double best = 0; /* the max load, >= 0 as T */
		for (int c = 0; c < np; c++)
			best = fmax(best, tmp.load_ms[c]);
		/* the incumbent is feasible, so best >= T*; GLPK proved T* >= obj
		 * within its tolerance */
		mip = fmin(best, glp_mip_obj_val(lp) * scale) -
		      BTC_SCHED_ASSIGN_SLACK * (scale + best);
		mip = fmax(0.0, mip);
		if (!fill) {
			free(tmp.frac);
			free(tmp.load_ms);
			free(tmp.share);
		}
	}
	if (rc != -2) /* else GLPK freed it */
		glp_delete_prob(lp);
	free(k.a);
	free(k.x);
	free(k.y);
	return mip;
}

enum btc_status btc_sched_assign_bound(const struct btc_sched_problem *p,
				      const struct btc_sched_options *opt,
				      const double *offset_ms,
				      const struct btc_sched_bound *fluid,
				      struct btc_sched_assign *a, struct btc_diag *d)
{
	(void)d;
	memset(a, 0, sizeof(*a));
	int n = p->n_stages, np = p->n_pus;
	a->n_stages = n;
	a->n_pus = np;
	a->io_ms = p->io_ms;
	a->farms = opt && opt->farms && np > 1;
	a->mip_ms = a->relaxed_ms = NAN;
	a->bound_ms = fluid->bound_ms;
	a->frac = btc_xcalloc((size_t)n * (size_t)np, sizeof(double));
	a->load_ms = btc_xcalloc((size_t)np, sizeof(double));
	a->share = btc_xcalloc((size_t)np, sizeof(double));

	double *et, *ef;
	struct btc_sched_problem q;
	btc_sched_bound_effective(p, opt, &q, &et, &ef);
	double scale = 0;
	for (int i = 0; i < n * np; i++)
		if (!isnan(q.time_ms[i]))
			scale = fmax(scale, q.time_ms[i]);
	for (int c = 0; q.fixed_ms && c < np; c++)
		scale = fmax(scale, q.fixed_ms[c]);
	/* GLPK's tolerances are absolute: the optimum's own size (>= the
	 * fluid LP's) as the unit keeps them relative to it */
	if (fluid->lp_ms > 1e-6 * scale)
		scale = fluid->lp_ms;
	if (!(scale > 0)) { /* every time 0: the fluid bound's 0 is exact */
		a->exact = a->contiguous = true;
		a->mip_ms = a->relaxed_ms = 0;
		free(et);
		free(ef);
		return BTC_OK;
	}
	double t0 = btc_sched_now_ms();
	int term = glp_term_out(GLP_OFF);
	double t_lo = fluid->lp_ms / scale * (1 - 1e-9);
	a->relaxed_ms = solve_mip(&q, opt, offset_ms, false, scale, t_lo, false, a);
	/* the C2 rows only remove points: the relaxed optimum bounds T below */
	double lo = isnan(a->relaxed_ms) ? t_lo : fmax(t_lo, a->relaxed_ms / scale);
	a->mip_ms = solve_mip(&q, opt, offset_ms, true, scale, lo * (1 - 1e-6), true, a);
	a->contiguous = !isnan(a->mip_ms);
	if (a->contiguous && !isnan(a->relaxed_ms)) /* two lower bounds of one T* */
		a->mip_ms = fmax(a->mip_ms, a->relaxed_ms);
	if (!a->contiguous && !isnan(a->relaxed_ms)) /* C2's MIP failed alone */
		a->mip_ms = solve_mip(&q, opt, offset_ms, false, scale, t_lo, true, a);
	a->exact = !isnan(a->mip_ms);
	if (a->exact)
		a->bound_ms = fmax(fluid->bound_ms, fmax(p->io_ms, a->mip_ms));
	else
		memset(a->frac, 0, sizeof(double) * (size_t)n * (size_t)np);
	glp_term_out(term);
	a->solve_ms = btc_sched_now_ms() - t0;
	free(et);
	free(ef);
	return BTC_OK;
}

void btc_sched_assign_free(struct btc_sched_assign *a)
{
	free(a->frac);
	free(a->load_ms);
	free(a->share);
	memset(a, 0, sizeof(*a));
}

bool btc_sched_assign_schedule(const struct btc_sched_assign *a,
			       const struct btc_sched_problem *p,
			       const struct btc_sched_options *opt, struct btc_schedule *s)
{
	int n = a->n_stages, np = a->n_pus;
	if (!a->exact || a->farms || !a->frac || n != p->n_stages || np != p->n_pus)
		return false;
	memset(s, 0, sizeof(*s));
	uint32_t used = 0;
	for (int i = 0; i < n; i++) {
		int pu = -1;
		for (int c = 0; c < np; c++) {
			double x = a->frac[i * np + c];
			if (x > 0.5 && pu < 0)
				pu = c;
			else if (x > 0) /* a second PU or a share: no schedule */
				return false;
		}
		if (pu < 0 || !btc_sched_bound_allowed(p, opt, i, pu))
			return false;
		struct btc_sched_chunk *last = s->n_chunks ? &s->chunks[s->n_chunks - 1] : NULL;
		if (last && last->pu == pu) {
			last->last_stage = i;
			continue;
		}
		if (used & (1u << pu)) /* a PU's second chunk (C2) */
			return false;
		used |= 1u << pu;
		s->chunks[s->n_chunks++] =
			(struct btc_sched_chunk){.pu = pu, .first_stage = i, .last_stage = i};
	}
	return s->n_chunks > 0 && !(opt && opt->max_chunks > 0 && s->n_chunks > opt->max_chunks);
}
