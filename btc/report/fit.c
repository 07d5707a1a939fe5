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
#include "report/fit_internal.h"
#include "report/stats.h"
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
		c->runs_ms = c->runs ? btc_tune_entry_runs_copy(e) : NULL;
		c->runs_times = c->runs ? btc_tune_entry_times_copy(e) : NULL;
		c->tasks = e->tasks;
		c->warmup = e->warmup;
		c->rounds = e->rounds;
		c->finalist = e->finalist;
		c->space_only = scheds[i].space_only;
		c->bound = scheds[i].from_bound;
		c->error = e->error ? btc_xstrdup(e->error) : NULL;
	}
}

/* The schedules as the calibration sees them under mode m: per chunk its
 * PU and predicted time. chunk_buf: [n * BTC_SCHED_MAX_PUS]. False when
 * the table has no such mode. */
bool btc_fit_calib_input(const struct btc_plan *plan, enum btc_mode m, const struct btc_report *r,
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
		for (int q = 0; q < s->n_chunks; q++) {
			int pu = s->chunks[q].pu, f = s->chunks[q].first_stage;
			int l = s->chunks[q].last_stage;
			c[q] = (struct btc_calib_chunk){
				.pu = pu,
				.predicted_ms = btc_model_chunk_ms(pk, pu, f, l),
				.first_stage = f,
				.n_stages = l - f + 1,
				.stage_stride = pk->n_pus,
				.stage_ms = &pk->time_ms[(size_t)f * pk->n_pus + pu]};
		}
		const struct btc_report_candidate *rc = &r->candidates[k];
		bool v = rc->status == BTC_RUN_VERIFIED;
		out[k] = (struct btc_calib_schedule){c, s->n_chunks, pk->io_ms,
						     v ? rc->measured_ms : NAN,
						     v ? rc->ci_low_ms : NAN};
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
		if (!btc_fit_calib_input(plan, (enum btc_mode)m, r, cs, chunks))
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
		btc_fit_calib_input(plan, m, r, cs, chunks);
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
