/* The fluid and assignment bounds and the regret in the report
 * (report/limits.h). */
#include "report/limits.h"
#include "report/json.h"

#include <math.h>
#include <stdlib.h>

#include "util/str.h"

/* A bound's PUs at its optimum: pu, load_ms, touch (the fluid y_c, the
 * assignment's share) and the stage fractions. */
static void write_pus(cJSON *b, const char *key, const struct btc_report_bound_pu *pu, int n,
		      int n_stages)
{
	cJSON *pus = cJSON_AddArrayToObject(b, key);
	for (int i = 0; i < n; i++) {
		const struct btc_report_bound_pu *u = &pu[i];
		cJSON *o = cJSON_CreateObject();
		btc_json_add_str(o, "pu", u->pu);
		btc_json_add_num(o, "load_ms", u->load_ms);
		btc_json_add_num(o, "touch", u->touch);
		cJSON *f = cJSON_AddArrayToObject(o, "stage_fractions");
		for (int s = 0; s < n_stages; s++)
			cJSON_AddItemToArray(f, cJSON_CreateNumber(round(u->frac[s] * 1e6) / 1e6));
		cJSON_AddItemToArray(pus, o);
	}
}

static struct btc_report_bound_pu *read_pus(const cJSON *pus, int *n, int *n_stages)
{
	const cJSON *c, *f;
	struct btc_report_bound_pu *out =
		btc_xcalloc((size_t)cJSON_GetArraySize(pus) + 1, sizeof(*out));
	*n = 0;
	cJSON_ArrayForEach (c, pus) {
		struct btc_report_bound_pu *u = &out[(*n)++];
		u->pu = btc_json_str(c, "pu");
		u->load_ms = btc_json_num(c, "load_ms");
		u->touch = btc_json_num(c, "touch");
		const cJSON *fr = btc_json_get(c, "stage_fractions");
		int m = cJSON_GetArraySize(fr), s = 0;
		if (*n == 1 && *n_stages == 0)
			*n_stages = m;
		u->frac = btc_xcalloc((size_t)*n_stages + 1, sizeof(double));
		cJSON_ArrayForEach (f, fr)
			if (s < *n_stages)
				u->frac[s++] = cJSON_IsNumber(f) ? f->valuedouble : NAN;
		while (s < *n_stages)
			u->frac[s++] = NAN;
	}
	return out;
}

/* The fluid bound, the assignment bound and the chosen schedule's
 * efficiency (docs/report.md). */
static void write_bound(cJSON *j, const struct btc_report *r)
{
	btc_json_add_num(j, "fluid_bound_ms", r->fluid_bound_ms);
	btc_json_add_num(j, "efficiency", r->efficiency);
	if (isnan(r->efficiency_ci_low)) {
		cJSON_AddNullToObject(j, "efficiency_ci");
	} else {
		cJSON *e = cJSON_AddObjectToObject(j, "efficiency_ci");
		btc_json_add_num(e, "low", r->efficiency_ci_low);
		btc_json_add_num(e, "high", r->efficiency_ci_high);
	}
	if (isnan(r->fluid_bound_ms)) {
		cJSON_AddNullToObject(j, "fluid_bound");
		return;
	}
	cJSON *b = cJSON_AddObjectToObject(j, "fluid_bound");
	btc_json_add_str(b, "mode", r->fluid_mode ? r->fluid_mode : r->mode);
	btc_json_add_str(b, "model", r->fluid_model);
	btc_json_add_num(b, "lp_ms", r->fluid_lp_ms);
	btc_json_add_num(b, "io_ms", r->fluid_io_ms);
	if (r->io_load_threads > 0 && r->io_check_threads > 0) {
		cJSON_AddNumberToObject(b, "load_threads", r->io_load_threads);
		cJSON_AddNumberToObject(b, "check_threads", r->io_check_threads);
	}
	btc_json_add_num(b, "compute_ms", r->fluid_lp_ms);
	cJSON_AddBoolToObject(b, "calibrated", r->fluid_calibrated);
	cJSON_AddBoolToObject(b, "calibrated_without_chosen", r->bound_without_chosen);
	cJSON *lc = cJSON_AddObjectToObject(b, "loo_check");
	cJSON_AddNumberToObject(lc, "checked", r->bound_loo_checked);
	cJSON_AddNumberToObject(lc, "below", r->bound_loo_below);
	if (r->bound_below_term) {
		cJSON *w = cJSON_AddObjectToObject(b, "below");
		btc_json_add_str(w, "term", r->bound_below_term);
		btc_json_add_str(w, "pu", r->bound_below_pu);
		cJSON_AddBoolToObject(w, "chosen", r->bound_below);
	} else {
		cJSON_AddNullToObject(b, "below");
	}
	write_pus(b, "pus", r->bound_pus, r->n_bound_pus, r->n_bound_stages);
	if (isnan(r->assign_bound_ms)) {
		cJSON_AddNullToObject(j, "assignment_bound");
		return;
	}
	b = cJSON_AddObjectToObject(j, "assignment_bound");
	btc_json_add_num(b, "bound_ms", r->assign_bound_ms);
	btc_json_add_num(b, "mip_ms", r->assign_mip_ms);
	cJSON_AddBoolToObject(b, "exact", r->assign_exact);
	btc_json_add_num(b, "relaxed_ms", r->assign_relaxed_ms);
	cJSON_AddBoolToObject(b, "contiguous", r->assign_contiguous);
	cJSON_AddBoolToObject(b, "farms", r->assign_farms);
	btc_json_add_num(b, "fluid_efficiency", r->fluid_efficiency);
	btc_json_add_num(b, "baselines_ms", r->bound_baselines_ms);
	write_pus(b, "pus", r->assign_pus, r->n_assign_pus, r->n_bound_stages);
}

void btc_report_regret(struct btc_report *r)
{
	r->regret = r->regret_ci_low = r->regret_ci_high = NAN;
	r->regret_best = -1;
	r->n_space_measured = 0;
	if ((r->n_space <= 0 && !r->regret_round) || r->chosen < 0)
		return;
	double best_hi = INFINITY, best_lo = INFINITY;
	for (int k = 0; k < r->n_candidates; k++) {
		const struct btc_report_candidate *c = &r->candidates[k];
		if (c->status != BTC_RUN_VERIFIED || isnan(c->measured_ms))
			continue;
		r->n_space_measured++;
		if (r->regret_best < 0 || c->measured_ms < r->candidates[r->regret_best].measured_ms)
			r->regret_best = k;
		best_lo = fmin(best_lo, isnan(c->ci_low_ms) ? c->measured_ms : c->ci_low_ms);
		best_hi = fmin(best_hi, isnan(c->ci_high_ms) ? c->measured_ms : c->ci_high_ms);
	}
	const struct btc_report_candidate *c = &r->candidates[r->chosen];
	const struct btc_report_candidate *b = &r->candidates[r->regret_best];
	r->regret = c->measured_ms / b->measured_ms - 1;
	double lo = isnan(c->ci_low_ms) ? c->measured_ms : c->ci_low_ms;
	double hi = isnan(c->ci_high_ms) ? c->measured_ms : c->ci_high_ms;
	r->regret_ci_low = fmax(0, lo / best_hi - 1);
	r->regret_ci_high = hi / best_lo - 1;
}

void btc_report_print_regret(const struct btc_report *r, FILE *f)
{
	if (isnan(r->regret))
		return;
	const struct btc_report_candidate *b = &r->candidates[r->regret_best];
	fprintf(f,
		"regret: chosen %.3f ms / measured best %.3f ms (%s) - 1 = %.1f %% [%.1f, %.1f] ",
		r->candidates[r->chosen].measured_ms, b->measured_ms, b->label, 100 * r->regret,
		100 * r->regret_ci_low, 100 * r->regret_ci_high);
	if (r->n_space > 0)
		fprintf(f,
			"over %d measured of the %d schedules of the paper's space (--exhaustive)\n",
			r->n_space_measured, r->n_space);
	else
		fprintf(f, "over the %d schedules measured, not the space (--regret-round)\n",
			r->n_space_measured);
	char paired[256];
	if (btc_report_paired_regret_text(r, paired, sizeof(paired)))
		fprintf(f, "regret, paired (the regret round): %s\n", paired);
}

bool btc_report_paired_regret_text(const struct btc_report *r, char *buf, size_t n)
{
	const struct btc_report_race *p = &r->regret_paired;
	if (p->rounds <= 0 || r->regret_paired_best < 0)
		return false;
	const char *label = r->candidates[r->regret_paired_best].label;
	snprintf(buf, n,
		 "chosen / %s time ratio %.3f [%.3f, %.3f] over %d rounds - 1 = %.1f %% "
		 "[%.1f, %.1f]",
		 label ? label : "?", p->ratio, p->ratio_lo, p->ratio_hi, p->rounds,
		 100 * (p->ratio - 1), 100 * (p->ratio_lo - 1), 100 * (p->ratio_hi - 1));
	return true;
}

void btc_report_limits_to_json(cJSON *j, const struct btc_report *r)
{
	write_bound(j, r);
	if (isnan(r->regret)) {
		cJSON_AddNullToObject(j, "regret");
		return;
	}
	cJSON *o = cJSON_AddObjectToObject(j, "regret");
	btc_json_add_num(o, "value", r->regret);
	btc_json_add_num(o, "ci_low", r->regret_ci_low);
	btc_json_add_num(o, "ci_high", r->regret_ci_high);
	cJSON_AddNumberToObject(o, "best_index", r->regret_best);
	btc_json_add_str(o, "best_label", r->candidates[r->regret_best].label);
	btc_json_add_num(o, "best_ms", r->candidates[r->regret_best].measured_ms);
	cJSON_AddNumberToObject(o, "measured", r->n_space_measured);
	cJSON_AddNumberToObject(o, "space", r->n_space);
	const struct btc_report_race *p = &r->regret_paired;
	if (p->rounds <= 0 || r->regret_paired_best < 0) {
		cJSON_AddNullToObject(o, "paired");
		return;
	}
	cJSON *q = cJSON_AddObjectToObject(o, "paired");
	cJSON_AddNumberToObject(q, "best_index", r->regret_paired_best);
	btc_json_add_str(q, "best_label", r->candidates[r->regret_paired_best].label);
	cJSON_AddNumberToObject(q, "rounds", p->rounds);
	btc_json_add_num(q, "ratio_median", p->ratio);
	btc_json_add_num(q, "ratio_ci_low", p->ratio_lo);
	btc_json_add_num(q, "ratio_ci_high", p->ratio_hi);
	cJSON_AddBoolToObject(q, "decided", p->decided);
	btc_json_add_str(q, "stop", p->stop);
}

static void read_bound(const cJSON *j, struct btc_report *r)
{
	r->fluid_bound_ms = btc_json_num(j, "fluid_bound_ms");
	r->efficiency = btc_json_num(j, "efficiency");
	const cJSON *eci = btc_json_get(j, "efficiency_ci");
	r->efficiency_ci_low = btc_json_num(eci, "low");
	r->efficiency_ci_high = btc_json_num(eci, "high");
	const cJSON *b = btc_json_get(j, "fluid_bound"), *pus = btc_json_get(b, "pus");
	r->fluid_model = btc_json_str(b, "model");
	r->fluid_lp_ms = btc_json_num(b, "lp_ms");
	r->fluid_io_ms = btc_json_num(b, "io_ms");
	const cJSON *kl = btc_json_get(b, "load_threads"), *kc = btc_json_get(b, "check_threads");
	r->io_load_threads = cJSON_IsNumber(kl) ? kl->valueint : 0;
	r->io_check_threads = cJSON_IsNumber(kc) ? kc->valueint : 0;
	r->fluid_mode = btc_json_str(b, "mode");
	const cJSON *below = btc_json_get(b, "below");
	r->bound_below_term = btc_json_str(below, "term");
	r->bound_below_pu = btc_json_str(below, "pu");
	r->bound_below = cJSON_IsTrue(btc_json_get(below, "chosen"));
	r->fluid_calibrated = cJSON_IsTrue(btc_json_get(b, "calibrated"));
	r->bound_without_chosen = cJSON_IsTrue(btc_json_get(b, "calibrated_without_chosen"));
	const cJSON *lc = btc_json_get(b, "loo_check");
	double lck = btc_json_num(lc, "checked"), lbe = btc_json_num(lc, "below");
	r->bound_loo_checked = isnan(lck) ? 0 : (int)lck;
	r->bound_loo_below = isnan(lbe) ? 0 : (int)lbe;
	r->n_bound_stages = 0;
	r->bound_pus = read_pus(pus, &r->n_bound_pus, &r->n_bound_stages);
	const cJSON *a = btc_json_get(j, "assignment_bound");
	r->assign_bound_ms = btc_json_num(a, "bound_ms");
	r->assign_mip_ms = btc_json_num(a, "mip_ms");
	r->assign_exact = cJSON_IsTrue(btc_json_get(a, "exact"));
	r->assign_relaxed_ms = btc_json_num(a, "relaxed_ms");
	r->assign_contiguous = cJSON_IsTrue(btc_json_get(a, "contiguous"));
	r->assign_farms = cJSON_IsTrue(btc_json_get(a, "farms"));
	r->fluid_efficiency = btc_json_num(a, "fluid_efficiency");
	r->bound_baselines_ms = btc_json_num(a, "baselines_ms");
	r->assign_pus = read_pus(btc_json_get(a, "pus"), &r->n_assign_pus, &r->n_bound_stages);
}

void btc_report_limits_from_json(const cJSON *j, struct btc_report *r)
{
	read_bound(j, r);
	const cJSON *o = btc_json_get(j, "regret");
	r->regret = btc_json_num(o, "value");
	r->regret_ci_low = btc_json_num(o, "ci_low");
	r->regret_ci_high = btc_json_num(o, "ci_high");
	double best = btc_json_num(o, "best_index");
	r->regret_best = isnan(best) || best < 0 || best >= r->n_candidates ? -1 : (int)best;
	if (r->regret_best < 0)
		r->regret = NAN;
	double m = btc_json_num(o, "measured");
	r->n_space_measured = isnan(m) ? 0 : (int)m;
	double sp = btc_json_num(o, "space");
	r->n_space = isnan(sp) ? 0 : (int)sp;
	const cJSON *q = btc_json_get(o, "paired");
	double pb = btc_json_num(q, "best_index"), pr = btc_json_num(q, "rounds");
	if (r->regret_best < 0 || isnan(pb) || pb < 0 || pb >= r->n_candidates || isnan(pr) ||
	    pr < 1)
		return;
	r->regret_paired_best = (int)pb;
	r->regret_paired.rounds = (int)pr;
	r->regret_paired.ratio = btc_json_num(q, "ratio_median");
	r->regret_paired.ratio_lo = btc_json_num(q, "ratio_ci_low");
	r->regret_paired.ratio_hi = btc_json_num(q, "ratio_ci_high");
	r->regret_paired.decided = cJSON_IsTrue(btc_json_get(q, "decided"));
	r->regret_paired.stop = btc_json_str(q, "stop");
}
