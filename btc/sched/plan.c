/* The plan (sched/plan.h): the problems of a table, the schedules of a
 * build, their provenance, the solver's ranking and the fluid bound. */
#include "sched/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/model.h"
#include "util/out.h"
#include "util/sha256.h"
#include "util/num.h"

#include <btrt_model.h>

void btc_plan_options_init(struct btc_plan_options *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = BTC_MODE_INTERFERENCE;
	btc_sched_options_init(&o->sched);
	o->baselines = true;
}

void btc_plan_default_modes(struct btc_plan_options *o)
{
	o->mode = BTC_MODE_ISOLATED;
	o->candidate_modes = 1u << BTC_MODE_ISOLATED | 1u << BTC_MODE_INTERFERENCE;
	o->period_slice = BTC_PLAN_PERIOD_SLICE;
}

/* A stage by name, or by 0-based index; -1 when neither. */
static int stage_of(const struct btc_app *app, const char *s)
{
	int i = btc_app_stage_index(app, s);
	if (i >= 0)
		return i;
	long v;
	return btc_parse_int(s, 0, app->n_stages - 1, &v) ? (int)v : -1;
}

/* opt's --forbid and --pin names onto pl->sched (pl->pin: [n_stages]
 * when any pin is given). Reports every unknown name; false then. */
static bool resolve_names(struct btc_plan *pl, const struct btc_plan_options *opt,
			  struct btc_diag *d)
{
	const struct btc_app *app = pl->app;
	const struct btc_device *dev = pl->dev;
	const struct btc_loc none = {0};
	int before = d->errors;
	for (int k = 0; k < opt->n_forbid; k++) {
		int u = btc_device_pu_index(dev, opt->forbid[k]);
		if (u < 0)
			btc_error(d, none, "--forbid %s: device %s has no such PU", opt->forbid[k],
				  dev->name);
		else
			pl->sched.forbid_mask |= 1u << u;
	}
	if (!opt->n_pins)
		return d->errors == before;
	pl->pin = btc_xcalloc((size_t)app->n_stages, sizeof(int));
	for (int s = 0; s < app->n_stages; s++)
		pl->pin[s] = opt->sched.pin ? opt->sched.pin[s] : -1;
	for (int k = 0; k < opt->n_pins; k++) {
		const char *arg = opt->pins[k], *eq = strchr(arg, '=');
		if (!eq) {
			btc_error(d, none, "--pin %s: expected STAGE=PU", arg);
			continue;
		}
		char *stage = btc_xasprintf("%.*s", (int)(eq - arg), arg);
		int s = stage_of(app, stage), u = btc_device_pu_index(dev, eq + 1);
		if (s < 0)
			btc_error(d, none, "--pin %s: app %s has no stage '%s'", arg, app->name,
				  stage);
		else if (u < 0)
			btc_error(d, none, "--pin %s: device %s has no PU '%s'", arg, dev->name,
				  eq + 1);
		else
			pl->pin[s] = u;
		free(stage);
	}
	pl->sched.pin = pl->pin;
	return d->errors == before;
}

/* Every mode of the table as a problem, both models. Reports a table
 * without the planned mode (false). */
static bool build_models(struct btc_plan *pl, struct btc_diag *d)
{
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	for (int m = 0; m < BTC_N_MODES; m++)
		for (int cm = 0; cm < 2; cm++) {
			struct btc_plan_model *x = &pl->models[m][cm];
			if (!pl->table->has_mode[m])
				continue;
			btc_plan_buf_init(&x->buf, pl->app, pl->dev);
			x->ok = btc_plan_problem(pl->app, pl->dev, pl->table, (enum btc_mode)m, cm,
						 &x->p, &x->buf, &quiet);
		}
	if (pl->table->has_mode[pl->mode])
		return true;
	/* the planned mode's error, reported */
	struct btc_plan_buf b;
	struct btc_sched_problem p;
	btc_plan_buf_init(&b, pl->app, pl->dev);
	btc_plan_problem(pl->app, pl->dev, pl->table, pl->mode, true, &p, &b, d);
	btc_plan_buf_free(&b);
	return false;
}

const struct btc_sched_problem *btc_plan_problem_of(const struct btc_plan *plan,
						    enum btc_mode mode, bool chunk_model)
{
	if (!plan->table || mode < 0 || mode >= BTC_N_MODES)
		return NULL;
	const struct btc_plan_model *x = &plan->models[mode][chunk_model ? 1 : 0];
	return x->ok ? &x->p : NULL;
}

const struct btc_sched_problem *btc_plan_solved_problem(const struct btc_plan *plan)
{
	return btc_plan_problem_of(plan, plan->mode, plan->chunk_model);
}

double btc_plan_predict_ms(const struct btc_plan *plan, enum btc_mode mode, bool chunk_model,
			   const struct btc_schedule *s)
{
	if (!plan->table || !plan->table->has_mode[mode])
		return NAN;
	mode = btc_plan_mode_for(plan->table, mode, s); /* a mode the table has */
	const struct btc_sched_problem *p = btc_plan_problem_of(plan, mode, chunk_model);
	double tmax = p ? btc_model_tmax_ms(p, s) : NAN;
	return isnan(tmax) ? NAN : btc_model_period_ms(p, tmax);
}

/* Fills s's times from the problem; true when every stage has a time. */
static bool predict(struct btc_schedule *s, const struct btc_sched_problem *p)
{
	btc_model_fill_times(p, s);
	return !isnan(s->tmax_ms);
}

/* True when a and b place the same stages on the same PUs (chunks, farms
 * and core counts; times are not compared). */
static bool same_schedule(const struct btc_schedule *a, const struct btc_schedule *b)
{
	if (a->n_chunks != b->n_chunks)
		return false;
	for (int c = 0; c < a->n_chunks; c++) {
		const struct btc_sched_chunk *x = &a->chunks[c], *y = &b->chunks[c];
		if (x->pu != y->pu || x->first_stage != y->first_stage ||
		    x->last_stage != y->last_stage || x->farm != y->farm || x->cores != y->cores)
			return false;
	}
	return true;
}

/* The homogeneous baselines of every allowed PU with kernels for every
 * stage, after list[0..*n), in the device file's PU order. A baseline is
 * always listed, also when a schedule before it (a --chunks spec, an
 * optimizer candidate) is the same: its number n0 + k (n0 the plan's
 * schedules, k its place among the baselines) then never depends on what
 * the plan chose (docs/codegen.md, "the order of schedule numbers"). */
static void add_baselines(struct btc_plan *pl, struct btc_plan_schedule *list, int *n,
			  const struct btc_sched_problem *prob, struct btc_diag *d)
{
	const struct btc_app *app = pl->app;
	const struct btc_device *dev = pl->dev;
	int chosen = *n;
	for (int u = 0; u < dev->n_pus; u++) {
		if (pl->sched.forbid_mask & (1u << u))
			continue;
		bool all = true;
		for (int s = 0; s < app->n_stages; s++)
			all &= btc_stage_has(&app->stages[s], dev->pus[u].kind);
		if (!all)
			continue;
		struct btc_plan_schedule *g = &list[(*n)++];
		g->s.n_chunks = 1;
		g->s.chunks[0] = (struct btc_sched_chunk){.pu = u, .last_stage = app->n_stages - 1};
		g->baseline = true;
		if (prob)
			g->predicted = predict(&g->s, prob);
		for (int i = 0; i < chosen; i++)
			if (same_schedule(&list[i].s, &g->s)) {
				char *label = btc_plan_schedule_label(&g->s, dev);
				btc_note(d, (struct btc_loc){0},
					 "schedule %d (%s) is also the %s baseline, schedule %d: "
					 "both numbers run it",
					 i, label, dev->pus[u].name, *n - 1);
				free(label);
				break;
			}
	}
}

struct ranked {
	double period_ms; /* NAN last */
	int order;        /* the position before ranking, the tie-break */
};

static int by_period(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	bool nx = isnan(x->period_ms), ny = isnan(y->period_ms);
	if (nx != ny)
		return nx ? 1 : -1;
	if (!nx && x->period_ms != y->period_ms)
		return x->period_ms < y->period_ms ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* opt's solver on pl's table of `mode` with options o into *r (the
 * caller frees it); false, and nothing to free, when the table lacks
 * the mode or the solver fails (a note for the caller to skip). */
static bool solve_mode(struct btc_plan *pl, const struct btc_plan_options *opt, int mode,
		       const struct btc_sched_options *o, struct btc_sched_result *r)
{
	const struct btc_sched_problem *pm = btc_plan_problem_of(pl, (enum btc_mode)mode,
								 pl->chunk_model);
	if (!pm)
		return false;
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	enum btc_status st = opt->exhaustive ? btc_sched_solve_exhaustive(pm, o, r, &quiet)
					     : btc_sched_solve_z3(pm, o, r, &quiet);
	if (st != BTC_OK)
		btc_sched_result_free(r);
	return st == BTC_OK;
}

/* Twin PUs: two CPU PUs of one core type (or both without one) and as
 * many cores, so the same hardware, which the profiling tables tell apart
 * only by noise and by the service cores (docs/scheduler.md, "The
 * near-period slice"). */
static bool twins(const struct btc_pu *a, const struct btc_pu *b)
{
	const int *pin;
	return a->kind == BTC_BACKEND_CPU && b->kind == BTC_BACKEND_CPU &&
	       a->n_cores == b->n_cores && btc_pu_pinnable(a, &pin) == btc_pu_pinnable(b, &pin) &&
	       (a->core_type && b->core_type ? !strcmp(a->core_type, b->core_type)
					     : a->core_type == b->core_type);
}

/* The pairs of twin PUs of the device (p < q), at most n_pus^2 / 2. */
static int twin_pairs(const struct btc_device *dev)
{
	int n = 0;
	for (int p = 0; p < dev->n_pus; p++)
		for (int q = p + 1; q < dev->n_pus; q++)
			n += twins(&dev->pus[p], &dev->pus[q]);
	return n;
}

/* Appends s to list[0..*n), timed under prob (predicted: every stage
 * has a time there), unless a schedule there is the same. */
static void append_new(struct btc_plan_schedule *list, int *n, const struct btc_schedule *s,
		       const struct btc_sched_problem *prob)
{
	for (int k = 0; k < *n; k++)
		if (same_schedule(&list[k].s, s))
			return;
	list[*n] = (struct btc_plan_schedule){.s = *s};
	list[*n].predicted = predict(&list[*n].s, prob);
	(*n)++;
}

/* s with twin PUs p and q swapped into *m: false when s uses neither,
 * has a farm or a core count, or the swap breaks a pin or a forbidden
 * PU. */
static bool twin_mirror(const struct btc_plan *pl, const struct btc_schedule *s, int p, int q,
			struct btc_schedule *m)
{
	if ((pl->sched.forbid_mask & (1u << p | 1u << q)))
		return false;
	*m = *s;
	bool used = false;
	for (int c = 0; c < s->n_chunks; c++) {
		struct btc_sched_chunk *x = &m->chunks[c];
		if (x->farm || x->cores)
			return false;
		if (x->pu != p && x->pu != q)
			continue;
		used = true;
		x->pu = x->pu == p ? q : p;
		for (int i = x->first_stage; pl->sched.pin && i <= x->last_stage; i++)
			if (pl->sched.pin[i] >= 0 && pl->sched.pin[i] != x->pu)
				return false;
	}
	return used;
}

/* The near-period slice (issue 25; docs/scheduler.md, "The near-period
 * slice"), for each mode of `modes` the table has: the opt->period_slice
 * (at most top K) multi-chunk schedules of least T_max (objective
 * latency, so no gapness filter; the other solver options as planned)
 * and each one's twin mirrors, appended to list[0..*n) when not there.
 * At most BTC_N_MODES * period_slice * (1 + twin_pairs(dev)) schedules.
 * A solver failure leaves a mode's slice out. */
static void add_period_slice(struct btc_plan *pl, uint32_t modes,
			     const struct btc_plan_options *opt,
			     const struct btc_sched_problem *prob, struct btc_plan_schedule *list,
			     int *n)
{
	struct btc_sched_options o = pl->sched;
	o.objective = BTC_SCHED_LATENCY;
	o.top_k = opt->period_slice < pl->sched.top_k ? opt->period_slice : pl->sched.top_k;
	const struct btc_device *dev = pl->dev;
	for (int mode = 0; mode < BTC_N_MODES; mode++) {
		struct btc_sched_result r;
		bool ok = (modes & (1u << mode)) && solve_mode(pl, opt, mode, &o, &r);
		for (int i = 0; ok && i < r.n_candidates; i++) {
			append_new(list, n, &r.candidates[i], prob);
			struct btc_schedule m;
			for (int p = 0; p < dev->n_pus; p++)
				for (int q = p + 1; q < dev->n_pus; q++)
					if (twins(&dev->pus[p], &dev->pus[q]) &&
					    twin_mirror(pl, &r.candidates[i], p, q, &m))
						append_new(list, n, &m, prob);
		}
		if (ok)
			btc_sched_result_free(&r);
	}
}

/* opt->candidate_modes: every other mode's top K (same solver options)
 * and the near-period slice of every mode merged (add_period_slice)
 * appended to list[0..*n) when not there yet, then all of them re-timed
 * under prob (the planned mode) and sorted by that period, ties by list
 * order. The modes merged go to prov. A mode's solver failure is a
 * note, not an error: the planned mode's candidates stand. */
static bool merge_modes(struct btc_plan *pl, const struct btc_plan_options *opt,
			const struct btc_sched_problem *prob, struct btc_plan_schedule *list,
			int *n, struct btc_out *prov)
{
	uint32_t modes = opt->candidate_modes & ~(1u << pl->mode);
	if (!modes && opt->period_slice < 1)
		return true;
	struct btc_out names;
	btc_out_init(&names);
	btc_outf(&names, "%s", btc_mode_name(pl->mode));
	for (int m = 0; m < BTC_N_MODES; m++) {
		struct btc_sched_result r;
		if (!(modes & (1u << m)) || !solve_mode(pl, opt, m, &pl->sched, &r))
			continue;
		btc_outf(&names, ", %s", btc_mode_name((enum btc_mode)m));
		for (int i = 0; i < r.n_candidates; i++)
			append_new(list, n, &r.candidates[i], prob);
		btc_sched_result_free(&r);
	}
	if (opt->period_slice > 0)
		add_period_slice(pl, opt->candidate_modes | 1u << pl->mode, opt, prob, list, n);
	struct ranked *rk = btc_xcalloc((size_t)*n, sizeof(*rk));
	struct btc_plan_schedule *copy = btc_xcalloc((size_t)*n, sizeof(*copy));
	for (int i = 0; i < *n; i++) {
		list[i].predicted = predict(&list[i].s, prob);
		rk[i] = (struct ranked){btc_model_period_ms(prob, list[i].s.tmax_ms), i};
		copy[i] = list[i];
	}
	qsort(rk, (size_t)*n, sizeof(*rk), by_period);
	for (int i = 0; i < *n; i++)
		list[i] = copy[rk[i].order];
	free(rk);
	free(copy);
	btc_outl(prov, "candidates: {modes: [%s], ranked_by: %s, period_slice: %d}",
		 names.buf ? names.buf : "", btc_mode_name(pl->mode), opt->period_slice);
	btc_out_free(&names);
	return true;
}

/* The optimizer on prob: candidates into list, the origin into prov.
 * False on a solver failure (UNSAT is one only for a ranking). */
static bool optimize(struct btc_plan *pl, const struct btc_plan_options *opt,
		     const struct btc_sched_problem *prob, struct btc_plan_schedule *list, int *n,
		     struct btc_out *prov, struct btc_diag *d)
{
	enum btc_status st = opt->exhaustive
				     ? btc_sched_solve_exhaustive(prob, &pl->sched, &pl->result, d)
				     : btc_sched_solve_z3(prob, &pl->sched, &pl->result, d);
	pl->solved = true;
	if (st != BTC_OK && (opt->ranking || st != BTC_ERR_UNSAT)) {
		if (!d->errors) /* the solvers report; this is a safety net */
			btc_error(d, (struct btc_loc){0}, "schedule: %s", btc_strerror(st));
		return false;
	}
	btc_outl(prov,
		 "origin: {optimizer: %s, objective: %s, top_k: %d, utilisation_pct: %d, optimal: %s}",
		 opt->exhaustive ? "exhaustive" : "z3",
		 btc_sched_objective_name(pl->sched.objective), pl->sched.top_k,
		 pl->result.util_pct, pl->result.optimal ? "true" : "false");
	for (int i = 0; i < pl->result.n_candidates; i++) {
		list[*n].s = pl->result.candidates[i];
		list[*n].predicted = true;
		(*n)++;
	}
	return merge_modes(pl, opt, prob, list, n, prov);
}

/* opt->space: every schedule of the paper's space not in list yet,
 * appended with space_only (the exhaustive enumerator, objective latency:
 * every schedule, ranked by T_max). False, reported, when the space has
 * more than BTC_PLAN_MAX_SPACE schedules. */
static bool add_space(struct btc_plan *pl, const struct btc_sched_problem *prob,
		      struct btc_plan_schedule *list, int *n, struct btc_diag *d)
{
	struct btc_sched_options o = pl->sched;
	o.objective = BTC_SCHED_LATENCY;
	o.farms = false;
	o.core_splits = false;
	o.top_k = BTC_PLAN_MAX_SPACE + 1;
	o.time_budget_ms = 0;
	struct btc_sched_result r;
	enum btc_status st = btc_sched_solve_exhaustive(prob, &o, &r, d);
	int total = r.n_candidates + r.n_baselines;
	bool ok = st == BTC_OK;
	if (ok && total > BTC_PLAN_MAX_SPACE) {
		btc_error(d, (struct btc_loc){0},
			  "--exhaustive: the paper's space of %s on %s has %.0f schedules, more "
			  "than the %d it measures (narrow it: --gpu, --cpu-groups, a device "
			  "with fewer PUs)",
			  pl->app->name, pl->dev->name, btc_sched_count(prob, &o),
			  BTC_PLAN_MAX_SPACE);
		ok = false;
	}
	for (int i = 0; ok && i < r.n_candidates; i++) {
		bool dup = false;
		for (int k = 0; k < *n && !dup; k++)
			dup = same_schedule(&list[k].s, &r.candidates[i]);
		if (dup)
			continue;
		list[*n] = (struct btc_plan_schedule){.s = r.candidates[i], .space_only = true};
		list[*n].predicted = predict(&list[*n].s, prob);
		(*n)++;
	}
	if (ok)
		pl->n_space = total;
	btc_sched_result_free(&r);
	return ok;
}

/* The assignment bound's own assignment (btc_sched_assign_schedule) into
 * the ranking (pl->result: its times and its rank among the candidates)
 * and, for a build, appended to list as a from_bound candidate when it
 * has two or more chunks and no schedule in list is the same: the
 * gapness filter of the paper's objective can leave out the schedule of
 * least T_max (docs/scheduler.md, "The assignment bound's assignment").
 * Computed on prob, the planned (uncalibrated) table mode. */
static void add_bound_schedule(struct btc_plan *pl, const struct btc_plan_options *opt,
			       const struct btc_sched_problem *prob,
			       struct btc_plan_schedule *list, int *n)
{
	struct btc_schedule s;
	if (!pl->has_bound || !btc_sched_assign_schedule(&pl->assign, prob, &pl->sched, &s) ||
	    !predict(&s, prob))
		return;
	pl->result.has_assign_schedule = true;
	pl->result.assign_schedule = s;
	pl->result.assign_rank = 0;
	for (int i = 0; i < pl->result.n_candidates && !pl->result.assign_rank; i++)
		if (same_schedule(&pl->result.candidates[i], &s))
			pl->result.assign_rank = i + 1;
	if (opt->ranking || s.n_chunks < 2)
		return;
	for (int k = 0; k < *n; k++)
		if (same_schedule(&list[k].s, &s))
			return;
	list[(*n)++] = (struct btc_plan_schedule){.s = s, .predicted = true, .from_bound = true};
}

/* T*_compute of the io farms (docs/scheduler.md, "The io farms"): the
 * smallest predicted T_max of the plan's schedules (space-only ones left
 * out) in any mode of the table, by the chunk model. The planned mode alone
 * may read a PU far slow: the interference and placed modes have no
 * in-chunk rows, so they cost every GPU stage as if it started a chunk
 * (octree all on Vulkan 5.5 ms against 0.55-0.92 measured on lease
 * H200-AD), and the tuning then ran with one check worker, which set the
 * period. A farm sized for the fastest reading costs a service core's
 * share at worst; the io round races fewer threads where they do not
 * pay. INFINITY when no schedule is predicted. */
static double plan_best_tmax(const struct btc_plan *pl)
{
	double best = INFINITY;
	for (int i = 0; i < pl->n_schedules; i++) {
		const struct btc_plan_schedule *g = &pl->schedules[i];
		if (!g->predicted || g->space_only)
			continue;
		best = fmin(best, g->s.tmax_ms); /* fmin skips NAN */
		for (int m = 0; m < BTC_N_MODES; m++)
			if (pl->models[m][1].ok)
				best = fmin(best, btc_model_tmax_ms(&pl->models[m][1].p, &g->s));
	}
	return best;
}

/* The io farms (plan.h, load_threads and check_threads). The ranking
 * stays as solved: P = max(T_io, T_max) is monotone in T_max, so a
 * smaller T_io changes the periods, never the order. */
static void plan_io_farms(struct btc_plan *pl, const struct btc_plan_options *opt)
{
	pl->load_threads = pl->check_threads = 1;
	bool fixed = opt->load_threads || opt->check_threads;
	if (!pl->table || (!opt->io_threads_extra && !fixed))
		return;
	uint32_t kl, kc;
	if (fixed) { /* the measured program's farms */
		kl = opt->load_threads ? opt->load_threads : 1;
		kc = opt->check_threads ? opt->check_threads : 1;
	} else {
		double load, check;
		btc_table_io_ms(pl->table, pl->mode, 1, 1, &load, &check);
		double best = plan_best_tmax(pl);
		btrt_model_io_threads(load, check, BTC_PLAN_IO_HEADROOM * best,
				      opt->io_threads_extra, &kl, &kc);
	}
	if (kl > 1 || kc > 1)
		btc_plan_set_io_farms(pl, kl, kc);
}

void btc_plan_set_io_farms(struct btc_plan *pl, uint32_t kl, uint32_t kc)
{
	pl->load_threads = kl > 1 ? kl : 1;
	pl->check_threads = kc > 1 ? kc : 1;
	if (!pl->table)
		return;
	for (int m = 0; m < BTC_N_MODES; m++) {
		struct btc_plan_model *x = &pl->models[m][1]; /* the chunk model's T_io */
		if (x->ok && x->p.io_ms > 0)
			x->p.io_ms = btc_table_io_ms(pl->table, (enum btc_mode)m, pl->load_threads,
						     pl->check_threads, NULL, NULL);
	}
	const struct btc_sched_problem *prob = btc_plan_solved_problem(pl);
	if (!prob)
		return;
	for (int i = 0; i < pl->n_schedules; i++)
		if (pl->schedules[i].predicted)
			pl->schedules[i].s.period_ms =
				btc_model_period_ms(prob, pl->schedules[i].s.tmax_ms);
	for (int i = 0; pl->solved && i < pl->result.n_candidates; i++)
		pl->result.candidates[i].period_ms =
			btc_model_period_ms(prob, pl->result.candidates[i].tmax_ms);
	for (int i = 0; pl->solved && i < pl->result.n_baselines; i++)
		pl->result.baselines[i].period_ms =
			btc_model_period_ms(prob, pl->result.baselines[i].time_ms);
	if (pl->result.has_assign_schedule)
		pl->result.assign_schedule.period_ms =
			btc_model_period_ms(prob, pl->result.assign_schedule.tmax_ms);
	if (pl->has_bound)
		btc_sched_bound_set_io(&pl->bound, &pl->assign, prob->io_ms);
}

bool btc_plan_io_round_farms(const struct btc_plan *pl, double load_ms, double check_ms,
			     double period_ms, uint32_t extra, uint32_t *kl, uint32_t *kc)
{
	*kl = pl->load_threads;
	*kc = pl->check_threads;
	if (!(period_ms > 0) || !(load_ms >= 0) || !(check_ms >= 0))
		return false;
	double target = BTC_PLAN_IO_HEADROOM * period_ms;
	if (!(btrt_model_io_ms(load_ms, check_ms, *kl, *kc) >= target))
		return false;
	uint32_t used = *kl + *kc - 2, room = extra > used ? extra : used, l, c;
	btrt_model_io_threads(load_ms, check_ms, target, room, &l, &c);
	l = l > *kl ? l : *kl;
	c = c > *kc ? c : *kc;
	if (l + c - 2 > room || (l == *kl && c == *kc))
		return false;
	*kl = l;
	*kc = c;
	return true;
}

bool btc_plan_io_round_fewer(const struct btc_plan *pl, double load_ms, double check_ms,
			     uint32_t *kl, uint32_t *kc)
{
	*kl = pl->load_threads;
	*kc = pl->check_threads;
	if (!(load_ms >= 0) || !(check_ms >= 0) || (*kl <= 1 && *kc <= 1))
		return false;
	double t_load = *kl > 1 ? btrt_model_io_ms(load_ms, check_ms, *kl - 1, *kc) : INFINITY;
	double t_check = *kc > 1 ? btrt_model_io_ms(load_ms, check_ms, *kl, *kc - 1) : INFINITY;
	if (t_load <= t_check)
		(*kl)--;
	else
		(*kc)--;
	return true;
}

/* The fluid bound of prob under pl->sched, then the assignment bound
 * (which falls back on the fluid one): reported and false only for a
 * ranking. */
static bool bound(struct btc_plan *pl, const struct btc_plan_options *opt,
		  const struct btc_sched_problem *prob, struct btc_diag *d)
{
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	if (btc_sched_fluid_bound(prob, &pl->sched, &pl->bound, opt->ranking ? d : &quiet) !=
	    BTC_OK) {
		btc_sched_bound_free(&pl->bound);
		return !opt->ranking;
	}
	pl->has_bound = true;
	btc_sched_assign_bound(prob, &pl->sched, NULL, &pl->bound, &pl->assign, &quiet);
	return true;
}

/* The bounds into the solver's ranking (after the io farms' T_io). */
static void bound_result(struct btc_plan *pl)
{
	if (!pl->solved || !pl->has_bound)
		return;
	pl->result.has_fluid_bound = true;
	pl->result.fluid_bound_ms = pl->bound.bound_ms;
	pl->result.assign_bound_ms = pl->assign.bound_ms;
	pl->result.assign_exact = pl->assign.exact;
}

struct btc_plan *btc_plan(const struct btc_app *app, const struct btc_device *dev,
			  const struct btc_table *t, const char *table_path,
			  const struct btc_plan_options *opt, struct btc_diag *d)
{
	int before = d->errors;
	struct btc_plan *pl = btc_xcalloc(1, sizeof(*pl));
	*pl = (struct btc_plan){.app = app, .dev = dev, .table = t, .mode = opt->mode,
				.chunk_model = !opt->paper_model, .sched = opt->sched};
	if (t && !build_models(pl, d))
		goto fail;
	const struct btc_sched_problem *prob = btc_plan_solved_problem(pl);
	if (!t && !opt->n_specs && !opt->baselines_only) {
		btc_error(
			d, (struct btc_loc){0},
			"no profiling table for app '%s' on device '%s': pass --table (from `btc profile`) or --chunks",
			app->name, dev->name);
		goto fail;
	}
	uint32_t gpu_forbid;
	if (!btc_plan_gpu_mask(dev, opt->gpu, &gpu_forbid, d))
		goto fail;
	pl->sched.forbid_mask |= gpu_forbid;
	if (!resolve_names(pl, opt, d))
		goto fail;

	int cap = opt->n_specs + pl->sched.top_k * BTC_N_MODES + dev->n_pus + 1 +
		  BTC_N_MODES * (opt->period_slice > 0 ? opt->period_slice : 0) *
			  (1 + twin_pairs(dev)) +
		  (opt->space ? BTC_PLAN_MAX_SPACE + 1 : 0);
	struct btc_plan_schedule *list = btc_xcalloc((size_t)cap, sizeof(*list));
	pl->schedules = list;
	int n = 0;
	struct btc_out prov;
	btc_out_init(&prov);
	/* The table by name and content hash, never its path (no machine
	 * paths in generated files; the same bytes from any directory). */
	char *table_id = t && table_path ? btc_sha256_file_identity(table_path) : NULL;
	if (t)
		btc_outl(&prov, "table: {%s, mode: %s, layout: %s}",
			 table_id ? table_id : "file: profiled", btc_mode_name(opt->mode),
			 t->reference_layout ? "reference" : "btc");
	free(table_id);

	bool ok = true;
	if (opt->n_specs) {
		btc_outl(&prov, "origin: --chunks");
		for (int i = 0; i < opt->n_specs; i++) {
			struct btc_plan_schedule *g = &list[n];
			if (!btc_plan_parse_spec(opt->specs[i], app, dev, &g->s, d))
				continue;
			if (prob)
				g->predicted = predict(&g->s, prob);
			g->baseline = g->s.n_chunks == 1 && !g->s.chunks[0].farm &&
				      !g->s.chunks[0].cores;
			n++;
		}
	} else if (opt->baselines_only) {
		btc_outl(&prov, "origin: baselines (profiling build)");
	} else {
		ok = optimize(pl, opt, prob, list, &n, &prov, d);
	}
	if (ok && opt->baselines)
		add_baselines(pl, list, &n, prob, d);
	/* the bounds before the io farms (the LP and the MIP do not depend
	 * on T_io; plan_io_farms sets it in them), so that the assignment
	 * bound's assignment is among the schedules the farms are sized for */
	if (ok && prob)
		ok = bound(pl, opt, prob, d);
	if (ok && pl->solved && prob)
		add_bound_schedule(pl, opt, prob, list, &n);
	if (ok && opt->space && prob)
		ok = add_space(pl, prob, list, &n, d);
	pl->n_schedules = n;
	pl->provenance = prov.buf;
	if (ok)
		plan_io_farms(pl, opt);
	bound_result(pl);
	if (!ok || d->errors != before)
		goto fail;
	if (n == 0 && !opt->ranking) {
		btc_error(d, (struct btc_loc){0}, "no schedule to generate");
		goto fail;
	}
	return pl;
fail:
	btc_plan_free(pl);
	return NULL;
}

int btc_plan_find_schedule(const struct btc_plan *pl, const struct btc_schedule *s)
{
	for (int k = 0; k < pl->n_schedules; k++)
		if (same_schedule(&pl->schedules[k].s, s))
			return k;
	return -1;
}

int btc_plan_add_bound_schedule(struct btc_plan *pl, const struct btc_schedule *s, bool *added)
{
	*added = false;
	const struct btc_sched_problem *prob = btc_plan_solved_problem(pl);
	if (!prob)
		return -1;
	int k = btc_plan_find_schedule(pl, s);
	if (k >= 0)
		return k;
	struct btc_plan_schedule g = {.s = *s, .from_bound = true};
	if (!(g.predicted = predict(&g.s, prob)))
		return -1;
	pl->schedules = btc_xrealloc(pl->schedules,
				     (size_t)(pl->n_schedules + 1) * sizeof(*pl->schedules));
	pl->schedules[pl->n_schedules] = g;
	*added = true;
	return pl->n_schedules++;
}

void btc_plan_free(struct btc_plan *plan)
{
	if (!plan)
		return;
	for (int m = 0; m < BTC_N_MODES; m++)
		for (int cm = 0; cm < 2; cm++)
			btc_plan_buf_free(&plan->models[m][cm].buf);
	btc_sched_result_free(&plan->result);
	btc_sched_bound_free(&plan->bound);
	btc_sched_assign_free(&plan->assign);
	free(plan->schedules);
	free(plan->provenance);
	free(plan->pin);
	free(plan);
}
