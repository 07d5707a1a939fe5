/* The cost model's fit to the measurements (report/fit.h). Per-chunk
 * predictions come from the plan's problems (btc_plan_problem_of) and
 * btc_model_chunk_ms: the chunk model of docs/scheduler.md (F_c + stage
 * times + transfers per chunk, T_io from the table; the paper's model when
 * the table has no model terms). */
#include "report/fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/calib.h"
#include "report/stats.h"
#include "sched/bound.h"
#include "sched/model.h"

void btc_fit_candidates(const struct btc_plan *plan, const struct btc_tune_entry *entries,
			struct btc_report *r)
{
	const struct btc_device *dev = plan->dev;
	const struct btc_plan_schedule *scheds = plan->schedules;
	int n = plan->n_schedules;
	r->n_candidates = n;
	r->candidates = btc_report_candidates_new(n);
	for (int i = 0; i < n; i++) {
		const struct btc_tune_entry *e = &entries[i];
		struct btc_report_candidate *c = &r->candidates[i];
		c->index = i;
		c->baseline = scheds[i].baseline;
		c->label = btc_plan_schedule_label(&scheds[i].s, dev);
		c->pu = c->baseline ? btc_xstrdup(dev->pus[scheds[i].s.chunks[0].pu].name) : NULL;
		for (int m = 0; m < BTC_N_MODES; m++) {
			c->predicted_ms[m] = btc_plan_predict_ms(plan, (enum btc_mode)m, true,
								 &scheds[i].s);
			c->paper_ms[m] = btc_plan_predict_ms(plan, (enum btc_mode)m, false,
							     &scheds[i].s);
		}
		c->status = e->status;
		if (e->status == BTC_RUN_VERIFIED) {
			c->measured_ms = e->median_ms;
			c->ci_low_ms = e->ci_lo_ms;
			c->ci_high_ms = e->ci_hi_ms;
		}
		c->runs = e->status == BTC_RUN_VERIFIED ? e->n_runs : 0;
		c->tasks = e->tasks;
		c->warmup = e->warmup;
		c->rounds = e->rounds;
		c->finalist = e->finalist;
		c->space_only = scheds[i].space_only;
		c->error = e->error ? btc_xstrdup(e->error) : NULL;
	}
}

/* The schedules as the calibration sees them under mode m: per chunk its
 * PU and predicted time. chunk_buf: [n * BTC_SCHED_MAX_PUS]. False when
 * the table has no such mode. */
static bool calib_input(const struct btc_plan *plan, enum btc_mode m, const struct btc_report *r,
			struct btc_calib_schedule *out, struct btc_calib_chunk *chunk_buf)
{
	const struct btc_sched_problem *p = btc_plan_problem_of(plan, m, true);
	const struct btc_plan_schedule *scheds = plan->schedules;
	int n = plan->n_schedules;
	for (int k = 0; p && k < n; k++) {
		const struct btc_schedule *s = &scheds[k].s;
		/* the rows btc_plan_mode_for picks per schedule: a one-chunk
		 * schedule under the placed mode takes the isolated ones */
		const struct btc_sched_problem *pk =
			btc_plan_problem_of(plan, btc_plan_mode_for(plan->table, m, s), true);
		struct btc_calib_chunk *c = &chunk_buf[(size_t)k * BTC_SCHED_MAX_PUS];
		for (int q = 0; q < s->n_chunks; q++)
			c[q] = (struct btc_calib_chunk){
				s->chunks[q].pu,
				btc_model_chunk_ms(pk, s->chunks[q].pu, s->chunks[q].first_stage,
						   s->chunks[q].last_stage)};
		const struct btc_report_candidate *rc = &r->candidates[k];
		out[k] = (struct btc_calib_schedule){
			c, s->n_chunks, pk->io_ms,
			rc->status == BTC_RUN_VERIFIED ? rc->measured_ms : NAN};
	}
	return p != NULL;
}

static void add_model(struct btc_report *r, const char *name, enum btc_mode m, bool calibrated,
		      const double *pred, const double *meas, int n)
{
	struct btc_calib_metrics x;
	double *cm = btc_xcalloc((size_t)n + 1, sizeof(double));
	for (int k = 0; k < n; k++)
		cm[k] = r->candidates[k].baseline ? NAN : meas[k];
	btc_calib_metrics(pred, cm, n, &x);
	free(cm);
	double rc = x.pearson_r, sc = x.spearman_rho;
	btc_calib_metrics(pred, meas, n, &x);
	struct btc_report_fit_model *o = &r->fit_models[r->n_fit_models++];
	o->name = btc_xstrdup(name);
	o->mode = btc_xstrdup(btc_mode_name(m));
	o->calibrated = calibrated;
	o->n = x.n;
	o->pearson_r = x.pearson_r;
	o->spearman_rho = x.spearman_rho;
	o->median_abs_rel_err = x.median_abs_rel_err;
	o->max_abs_rel_err = x.max_abs_rel_err;
	o->best_within_5pct = x.n ? x.best_within_5pct : -1;
	o->pearson_r_candidates = rc;
	o->spearman_rho_candidates = sc;
}

/* a better than b: higher Spearman rho, ties by Pearson r; NAN loses. */
static bool better(const struct btc_report_fit_model *a, const struct btc_report_fit_model *b)
{
	double ra = isnan(a->spearman_rho) ? -2 : a->spearman_rho;
	double rb = isnan(b->spearman_rho) ? -2 : b->spearman_rho;
	if (ra != rb)
		return ra > rb;
	double pa = isnan(a->pearson_r) ? -2 : a->pearson_r;
	double pb = isnan(b->pearson_r) ? -2 : b->pearson_r;
	return pa > pb;
}

void btc_fit_pearson(struct btc_report *r, enum btc_mode used)
{
	int n = r->n_candidates;
	double *px = btc_xcalloc((size_t)n + 1, sizeof(double));
	double *py = btc_xcalloc((size_t)n + 1, sizeof(double));
	for (int m = 0; m < BTC_N_MODES; m++) {
		int np = 0;
		for (int i = 0; i < n; i++)
			if (r->candidates[i].status == BTC_RUN_VERIFIED &&
			    !isnan(r->candidates[i].predicted_ms[m])) {
				px[np] = r->candidates[i].predicted_ms[m];
				py[np++] = r->candidates[i].measured_ms;
			}
		r->pearson_r[m] = btc_stats_pearson(px, py, np);
	}
	free(px);
	free(py);
	r->pearson_r_used = r->pearson_r[used];
}

void btc_fit_report(const struct btc_plan *plan, struct btc_report *r)
{
	const struct btc_device *dev = plan->dev;
	int n = plan->n_schedules;
	struct btc_calib_schedule *cs = btc_xcalloc((size_t)n + 1, sizeof(*cs));
	struct btc_calib_chunk *chunks = btc_xcalloc((size_t)n * BTC_SCHED_MAX_PUS + 1,
						     sizeof(*chunks));
	double *meas = btc_xcalloc((size_t)n + 1, sizeof(double));
	double *pred = btc_xcalloc((size_t)n + 1, sizeof(double));
	for (int k = 0; k < n; k++)
		meas[k] = r->candidates[k].status == BTC_RUN_VERIFIED ? r->candidates[k].measured_ms
								      : NAN;
	r->fit_models = btc_xcalloc(2 * BTC_N_MODES + 1, sizeof(*r->fit_models));
	struct btc_calib_options opt;
	btc_calib_options_init(&opt);
	int best = -1; /* index into fit_models of the best calibrated one */
	for (int m = 0; m < BTC_N_MODES; m++) {
		if (!calib_input(plan, (enum btc_mode)m, r, cs, chunks))
			continue;
		for (int k = 0; k < n; k++)
			pred[k] = btc_calib_period(&cs[k]);
		add_model(r, btc_mode_name((enum btc_mode)m), (enum btc_mode)m, false, pred, meas,
			  n);
		btc_calib_loo(cs, n, dev->n_pus, &opt, pred);
		for (int k = 0; k < n; k++)
			r->candidates[k].calibrated_loo_ms[m] = pred[k];
		char name[64];
		snprintf(name, sizeof(name), "calibrated %s (LOO)",
			 btc_mode_name((enum btc_mode)m));
		add_model(r, name, (enum btc_mode)m, true, pred, meas, n);
		if (best < 0 || better(&r->fit_models[r->n_fit_models - 1], &r->fit_models[best]))
			best = r->n_fit_models - 1;
	}
	if (best >= 0) {
		enum btc_mode m;
		btc_mode_parse(r->fit_models[best].mode, &m);
		r->fit_mode = btc_xstrdup(btc_mode_name(m));
		calib_input(plan, m, r, cs, chunks);
		struct btc_calib_fit f;
		btc_calib_fit(cs, n, dev->n_pus, NULL, &opt, &f);
		r->pu_fits = btc_xcalloc((size_t)dev->n_pus + 1, sizeof(*r->pu_fits));
		for (int p = 0; p < dev->n_pus; p++)
			r->pu_fits[r->n_pu_fits++] = (struct btc_report_pu_fit){
				btc_xstrdup(dev->pus[p].name), f.a_ms[p], f.b[p],
				f.n_bottleneck[p]};
		for (int k = 0; k < n; k++)
			r->candidates[k].calibrated_ms = btc_calib_predict(&f, &cs[k]);
		btc_calib_fit_free(&f);
		/* The re-ranking: 1-based rank by the calibrated prediction. */
		for (int k = 0; k < n; k++) {
			double v = r->candidates[k].calibrated_ms;
			if (isnan(v))
				continue;
			int rank = 1;
			for (int i = 0; i < n; i++)
				rank += !isnan(r->candidates[i].calibrated_ms) &&
					(r->candidates[i].calibrated_ms < v ||
					 (r->candidates[i].calibrated_ms == v && i < k));
			r->candidates[k].calibrated_rank = rank;
		}
	}
	free(cs);
	free(chunks);
	free(meas);
	free(pred);
}

/* The bounds of mode m's chunk-model problem calibrated by fa, fb (per
 * PU a_c and b_c, bound_fit; NULL: uncalibrated) (t'_{i,c} = b_c t_{i,c}, t'_{i,c,k} = b_c t_{i,c,k}, F'_c = a_c + b_c
 * F_c: the calibrated chunk time a_c + b_c (F_c + sum t) with its
 * transfers left out, as both bounds leave X out; a negative F'_c goes
 * in as the PU rows' offset, btc_sched_fluid_bound_offset), or the plain
 * problem's bounds without a calibration: the fluid LP into *b, the
 * assignment MIP into *a (which falls back on the fluid bound). False
 * when the LP fails. */
static bool bound_of(const struct btc_plan *plan, enum btc_mode m, const double *fa,
		     const double *fb, struct btc_sched_bound *b, struct btc_sched_assign *a)
{
	const struct btc_sched_problem *p = btc_plan_problem_of(plan, m, plan->chunk_model);
	if (!p)
		return false;
	struct btc_sched_problem q = *p;
	int ns = p->n_stages, np = p->n_pus;
	double *time = NULL, *fixed = NULL, *tk = NULL, *off = NULL, *start = NULL;
	if (fa && fb) {
		time = btc_xcalloc((size_t)ns * np, sizeof(double));
		start = p->start_ms ? btc_xcalloc((size_t)ns * np, sizeof(double)) : NULL;
		fixed = btc_xcalloc((size_t)np, sizeof(double));
		off = btc_xcalloc((size_t)np, sizeof(double));
		size_t nk = (size_t)ns * np * BTC_SCHED_MAX_CORE_COUNTS;
		if (p->time_cores_ms)
			tk = btc_xcalloc(nk, sizeof(double));
		for (int c = 0; c < np; c++) {
			double bc = fb[c], f = p->fixed_ms ? p->fixed_ms[c] : 0;
			fixed[c] = fmax(0, fa[c] + bc * f);
			off[c] = fmin(0, fa[c] + bc * f);
			for (int i = 0; i < ns; i++) {
				time[i * np + c] = bc * p->time_ms[i * np + c];
				if (start) /* compute time, as t: b_c S */
					start[i * np + c] = bc * p->start_ms[i * np + c];
				for (int j = 0; tk && j < BTC_SCHED_MAX_CORE_COUNTS; j++) {
					size_t x = btc_sched_cores_index(np, i, c, j);
					tk[x] = bc * p->time_cores_ms[x];
				}
			}
		}
		q.time_ms = time;
		q.fixed_ms = fixed;
		q.time_cores_ms = tk; /* calibrated per PU, every core count alike */
		q.start_ms = start;
	}
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	bool ok = btc_sched_fluid_bound_offset(&q, &plan->sched, off, b, &quiet) == BTC_OK;
	if (ok)
		btc_sched_assign_bound(&q, &plan->sched, off, b, a, &quiet);
	free(time);
	free(fixed);
	free(off);
	free(tk), free(start);
	if (!ok)
		btc_sched_bound_free(b);
	return ok;
}

/* Under `placed` a one-chunk schedule is predicted from the isolated rows
 * (btc_plan_mode_for), which the placed problem's bounds do not see: the
 * lowest such baseline period, calibrated as bound_of does and without
 * X, max(T_io, a_c + b_c (F_c + sum_i t_ic)), over the PUs the plan
 * allows that have every stage, its PU in *pu; INFINITY (*pu -1) when
 * there is none or m is not placed. */
static double placed_baselines(const struct btc_plan *plan, enum btc_mode m, const double *fa,
			       const double *fb, int *pu)
{
	*pu = -1;
	if (m != BTC_MODE_PLACED)
		return INFINITY;
	const struct btc_sched_problem *p =
		btc_plan_problem_of(plan, BTC_MODE_ISOLATED, plan->chunk_model);
	if (!p)
		return INFINITY;
	int ns = p->n_stages, np = p->n_pus;
	double best = INFINITY;
	for (int c = 0; c < np; c++) {
		if (plan->sched.forbid_mask & (1u << c))
			continue;
		double a = 0, b = 1, sum = p->fixed_ms ? p->fixed_ms[c] : 0;
		if (fa && fb) {
			a = fa[c];
			b = fb[c];
		}
		sum += p->start_ms ? p->start_ms[c] : 0; /* the one chunk starts at stage 0 */
		for (int i = 0; i < ns; i++)
			sum += p->time_ms[i * np + c]; /* NAN: no kernel, no baseline */
		if (!isnan(sum) && fmax(p->io_ms, a + b * sum) < best) {
			best = fmax(p->io_ms, a + b * sum);
			*pu = c;
		}
	}
	return best;
}

/* Which term of the bound is off when a measured period lies below it:
 * the baseline of PU cap_pu when it caps the bound (>= 0, placed_baselines),
 * io (T_io binds), else compute on the PU of the largest load at the
 * optimum of the bound that binds (the assignment's when it is the
 * tighter, else the fluid LP's): the one whose table time reads high. */
static void flag_below(struct btc_report *r, const struct btc_sched_bound *b,
		       const struct btc_sched_assign *a, int cap_pu,
		       const struct btc_device *dev)
{
	free(r->bound_below_term);
	free(r->bound_below_pu);
	r->bound_below_pu = NULL;
	if (cap_pu >= 0) { /* the isolated rows' baseline caps the bound */
		r->bound_below_term = btc_xstrdup("baseline");
		r->bound_below_pu = btc_xstrdup(dev->pus[cap_pu].name);
		return;
	}
	bool mip = a->exact && a->mip_ms > b->lp_ms;
	if (b->io_ms >= (mip ? a->mip_ms : b->lp_ms)) {
		r->bound_below_term = btc_xstrdup("io");
		return;
	}
	r->bound_below_term = btc_xstrdup("compute");
	const double *load = mip ? a->load_ms : b->load_ms;
	int worst = 0;
	for (int c = 1; c < b->n_pus; c++)
		if (load[c] > load[worst])
			worst = c;
	r->bound_below_pu = btc_xstrdup(dev->pus[worst].name);
}

static struct btc_report_bound_pu *pus_of(const struct btc_device *dev, int ns, int np,
					  const double *load, const double *touch,
					  const double *frac)
{
	struct btc_report_bound_pu *out = btc_xcalloc((size_t)np + 1, sizeof(*out));
	for (int c = 0; c < np; c++) {
		struct btc_report_bound_pu *u = &out[c];
		u->pu = btc_xstrdup(dev->pus[c].name);
		u->load_ms = load[c];
		u->touch = touch[c];
		u->frac = btc_xcalloc((size_t)ns + 1, sizeof(double));
		for (int i = 0; i < ns; i++)
			u->frac[i] = frac[i * np + c];
	}
	return out;
}

/* The calibration the bounds use (*fa, *fb: a_c, b_c per PU, caller
 * frees; NULL without one): the fit mode's, fitted on every measurement
 * but the chosen schedule's (as its LOO prediction is), so that its
 * efficiency never rests on its own measurement (issue 25); the fit on
 * all (r->pu_fits) without a chosen schedule. True when the chosen was
 * left out. */
static bool bound_fit(const struct btc_plan *plan, const struct btc_report *r, double **fa,
		      double **fb)
{
	int np = plan->dev->n_pus, n = plan->n_schedules;
	enum btc_mode m;
	*fa = *fb = NULL;
	if (r->n_pu_fits != np || !r->fit_mode || !btc_mode_parse(r->fit_mode, &m))
		return false;
	*fa = btc_xcalloc((size_t)np, sizeof(double));
	*fb = btc_xcalloc((size_t)np, sizeof(double));
	for (int c = 0; c < np; c++) {
		(*fa)[c] = r->pu_fits[c].a_ms;
		(*fb)[c] = r->pu_fits[c].b;
	}
	if (r->chosen < 0 || r->chosen >= n || r->candidates[r->chosen].status != BTC_RUN_VERIFIED)
		return false;
	struct btc_calib_schedule *cs = btc_xcalloc((size_t)n + 1, sizeof(*cs));
	struct btc_calib_chunk *chunks =
		btc_xcalloc((size_t)n * BTC_SCHED_MAX_PUS + 1, sizeof(*chunks));
	bool *use = btc_xcalloc((size_t)n + 1, sizeof(bool));
	bool ok = calib_input(plan, m, r, cs, chunks);
	if (ok) {
		for (int k = 0; k < n; k++)
			use[k] = k != r->chosen;
		struct btc_calib_options opt;
		btc_calib_options_init(&opt);
		struct btc_calib_fit f;
		btc_calib_fit(cs, n, np, use, &opt, &f);
		for (int c = 0; c < np; c++) {
			(*fa)[c] = f.a_ms[c];
			(*fb)[c] = f.b[c];
		}
		btc_calib_fit_free(&f);
	}
	free(use);
	free(chunks);
	free(cs);
	return ok;
}

void btc_fit_bound(const struct btc_plan *plan, struct btc_report *r)
{
	const struct btc_device *dev = plan->dev;
	if (!btc_plan_solved_problem(plan) || !plan->has_bound)
		return;
	/* The table mode that fits the measurements (r->fit_mode, picked by
	 * cross-validated fit) and its calibration when there is one; else
	 * the planned mode's own bounds. */
	enum btc_mode m = plan->mode;
	struct btc_sched_bound own, b = plan->bound;
	struct btc_sched_assign own_a, a = plan->assign;
	double *fa, *fb;
	r->bound_without_chosen = bound_fit(plan, r, &fa, &fb);
	bool fitted = r->fit_mode && btc_mode_parse(r->fit_mode, &m) &&
		      bound_of(plan, m, fa, fb, &own, &own_a);
	if (fitted) {
		b = own;
		a = own_a;
	} else {
		m = plan->mode;
	}
	int cap_pu;
	double cap = placed_baselines(plan, m, fa, fb, &cap_pu);
	free(fa);
	free(fb);
	bool capped = cap < fmax(b.bound_ms, a.frac ? a.bound_ms : 0);
	b.bound_ms = fmin(b.bound_ms, cap);
	a.bound_ms = fmin(a.bound_ms, cap);
	r->bound_baselines_ms = isinf(cap) ? NAN : cap;
	r->fluid_bound_ms = b.bound_ms;
	r->fluid_lp_ms = b.lp_ms;
	r->fluid_io_ms = b.io_ms;
	r->io_load_threads = (int)plan->load_threads;
	r->io_check_threads = (int)plan->check_threads;
	const struct btc_sched_problem *p = btc_plan_problem_of(plan, m, plan->chunk_model);
	r->fluid_model = btc_xstrdup(btc_model_has_terms(p) ? "chunk" : "paper");
	free(r->fluid_mode);
	r->fluid_mode = btc_xstrdup(btc_mode_name(m));
	r->fluid_calibrated = fitted && r->n_pu_fits == dev->n_pus;
	r->bound_without_chosen &= r->fluid_calibrated;
	r->n_bound_stages = b.n_stages;
	r->bound_pus = pus_of(dev, b.n_stages, b.n_pus, b.load_ms, b.touch, b.frac);
	r->n_bound_pus = b.n_pus;
	/* The tighter bound: the assignment's (>= the fluid one; = it when
	 * its MIP was not solved). */
	double bound = fmax(b.bound_ms, a.frac ? a.bound_ms : b.bound_ms);
	if (a.frac) {
		r->assign_bound_ms = a.bound_ms;
		r->assign_mip_ms = a.exact ? a.mip_ms : NAN;
		r->assign_exact = a.exact;
		r->assign_relaxed_ms = a.relaxed_ms;
		r->assign_contiguous = a.contiguous;
		r->assign_farms = a.farms;
		r->assign_pus = pus_of(dev, a.n_stages, a.n_pus, a.load_ms, a.share, a.frac);
		r->n_assign_pus = a.n_pus;
	}
	/* An efficiency above 1 is a bound that does not bound: flagged
	 * with its term, never reported as more than 100 %. */
	for (int k = 0; k < r->n_candidates; k++) {
		struct btc_report_candidate *c = &r->candidates[k];
		if (c->status != BTC_RUN_VERIFIED)
			continue;
		c->efficiency = btc_sched_bound_efficiency(bound, c->measured_ms);
		if (c->efficiency > 1) {
			c->efficiency = NAN;
			flag_below(r, &b, &a, capped ? cap_pu : -1, dev);
		}
	}
	if (r->chosen >= 0) {
		r->efficiency = btc_sched_bound_efficiency(bound, r->measured_ms);
		r->fluid_efficiency = btc_sched_bound_efficiency(b.bound_ms, r->measured_ms);
		if (r->fluid_efficiency > 1)
			r->fluid_efficiency = NAN;
		r->bound_below = r->efficiency > 1;
		if (r->bound_below) {
			r->efficiency = NAN;
			flag_below(r, &b, &a, capped ? cap_pu : -1, dev);
		}
	}
	if (fitted) {
		btc_sched_bound_free(&own);
		btc_sched_assign_free(&own_a);
	}
}

void btc_fit_print_bound(const struct btc_report *r, FILE *f)
{
	if (isnan(r->fluid_bound_ms))
		return;
	fprintf(f, "fluid bound: %.3f ms/task = max(compute %.3f, io %.3f) (%s%s table, %s model",
		r->fluid_bound_ms, r->fluid_lp_ms, r->fluid_io_ms,
		r->fluid_calibrated ? "calibrated " : "",
		r->fluid_mode ? r->fluid_mode : r->mode ? r->mode : "?",
		r->fluid_model ? r->fluid_model : "?");
	fprintf(f, "); loads at the optimum:");
	for (int c = 0; c < r->n_bound_pus; c++)
		if (r->bound_pus[c].touch > 0)
			fprintf(f, " %s %.3f ms", r->bound_pus[c].pu, r->bound_pus[c].load_ms);
	fprintf(f, "\n");
	bool assign = !isnan(r->assign_bound_ms);
	if (assign) {
		fprintf(f, "assignment bound: %.3f ms/task", r->assign_bound_ms);
		if (r->assign_exact)
			fprintf(f, " = max(fluid %.3f, io %.3f, MIP %.3f)", r->fluid_bound_ms,
				r->fluid_io_ms, r->assign_mip_ms);
		else
			fprintf(f, " (MIP not solved: the fluid bound)");
		if (r->assign_exact && r->assign_contiguous)
			fprintf(f, " (MIP with contiguity; relaxed: %.3f)", r->assign_relaxed_ms);
		if (!isnan(r->bound_baselines_ms))
			fprintf(f, " (at most the isolated baselines' %.3f)", r->bound_baselines_ms);
		if (r->assign_exact && r->assign_farms)
			fprintf(f, " (farm shares)");
		fprintf(f, "; loads:");
		for (int c = 0; c < r->n_assign_pus; c++) {
			const struct btc_report_bound_pu *u = &r->assign_pus[c];
			if (!(u->touch > 0))
				continue;
			fprintf(f, " %s %.3f ms (stages", u->pu, u->load_ms);
			for (int i = 0; i < r->n_bound_stages; i++)
				if (u->frac[i] > 0)
					fprintf(f, " %d", i);
			fprintf(f, ")");
		}
		fprintf(f, "\n");
	}
	const char *which = assign ? "assignment bound" : "fluid bound";
	if (r->bound_below_term)
		fprintf(f,
			"%s: NOT a bound here: a measured period lies below it "
			"(%s term%s%s reads high; no efficiency printed)\n",
			which, r->bound_below_term, r->bound_below_pu ? " of PU " : "",
			r->bound_below_pu ? r->bound_below_pu : "");
	if (!isnan(r->efficiency)) {
		fprintf(f, "efficiency: %s / measured = %.1f %% for the chosen schedule", which,
			100 * r->efficiency);
		if (assign && !isnan(r->fluid_efficiency))
			fprintf(f, " (fluid bound / measured: %.1f %%)", 100 * r->fluid_efficiency);
		fprintf(f, "\n");
	}
}

static void fmt(char *buf, size_t n, const char *f, double v)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, f, v);
}

void btc_fit_print(const struct btc_report *r, FILE *f)
{
	if (!r->n_fit_models) {
		fprintf(f, "fit: none (no table times)\n");
		return;
	}
	fprintf(f, "fit: predicted vs measured median over the verified schedules\n");
	fprintf(f, "fit:   %-32s %3s %9s %9s %9s %9s %14s %s\n", "model", "n", "Pearson",
		"Spearman", "med|err|", "max|err|", "best within 5%",
		"(candidates: Pearson Spearman)");
	for (int i = 0; i < r->n_fit_models; i++) {
		const struct btc_report_fit_model *m = &r->fit_models[i];
		char a[16], b[16], c[16], d[16], e[16], g[16];
		fmt(a, sizeof(a), "%.3f", m->pearson_r);
		fmt(b, sizeof(b), "%.3f", m->spearman_rho);
		fmt(c, sizeof(c), "%.1f%%", 100 * m->median_abs_rel_err);
		fmt(d, sizeof(d), "%.1f%%", 100 * m->max_abs_rel_err);
		fmt(e, sizeof(e), "%.3f", m->pearson_r_candidates);
		fmt(g, sizeof(g), "%.3f", m->spearman_rho_candidates);
		fprintf(f, "fit:   %-32s %3d %9s %9s %9s %9s %14s %9s %9s\n", m->name, m->n, a, b,
			c, d,
			m->best_within_5pct < 0 ? "n/a"
			: m->best_within_5pct   ? "yes"
						: "no",
			e, g);
	}
	if (r->fit_mode)
		fprintf(f, "fit: table mode by fit (cross-validated Spearman, then Pearson): %s\n",
			r->fit_mode);
	for (int p = 0; p < r->n_pu_fits; p++)
		fprintf(f, "fit:   PU %-12s a = %8.4f ms  b = %.3f  (bottleneck of %d)\n",
			r->pu_fits[p].pu, r->pu_fits[p].a_ms, r->pu_fits[p].b,
			r->pu_fits[p].n_bottleneck);
	fprintf(f, "fit: re-ranked by the calibrated model:");
	for (int rank = 1; rank <= r->n_candidates && rank <= 10; rank++)
		for (int k = 0; k < r->n_candidates; k++)
			if (r->candidates[k].calibrated_rank == rank)
				fprintf(f, " %d", r->candidates[k].index);
	fprintf(f, "\n");
}

double btc_fit_shown_ms(const struct btc_report *r, int i, enum btc_mode planned, char *what,
			size_t len)
{
	enum btc_mode m;
	const struct btc_report_candidate *c = &r->candidates[i];
	if (r->fit_mode && btc_mode_parse(r->fit_mode, &m) && !isnan(c->calibrated_loo_ms[m])) {
		snprintf(what, len, "calibrated %s (LOO), the best-fitting model", btc_mode_name(m));
		return c->calibrated_loo_ms[m];
	}
	snprintf(what, len, "%s table", btc_mode_name(planned));
	return c->predicted_ms[planned];
}
