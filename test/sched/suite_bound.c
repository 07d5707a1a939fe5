/* The fluid bound (sched/bound.h): hand-solvable LPs (one stage on two
 * PUs: ab / (a + b); a stage with a time on one PU only; forbidden and
 * pinned PUs; the fixed cost F_c; T_io), tables whose PUs differ by a
 * constant speed (the bound is total work / total speed), errors, and a
 * property test on random tables: the bound lies at or below the period
 * of the best schedule the exhaustive oracle finds (equal with one PU and
 * no transfers), and the LP's solution is feasible. Fixed seed; a private
 * generator so every libc gives the same tables. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "sched/bound.h"
#include "sched/glpk_guard.h"
#include "sched/model.h"
#include "best_period.h"
#include "rng.h"
#include "suites.h"

/* Relative tolerance of the comparisons: the LP's optimum comes from
 * GLPK's double simplex, certified within 1e-9 by a dual bound and in
 * practice a few ulps off; the closed forms round a few times too. */
#define REL 1e-12

static bool near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void assert_near(double got, double want, const char *what)
{
	if (!near(got, want, REL))
		fprintf(stderr, "\n    %s: got %.17g, want %.17g\n", what, got, want);
	CU_ASSERT(near(got, want, REL));
}

static enum btc_status bound_of(const struct btc_sched_problem *p,
				const struct btc_sched_options *o, struct btc_sched_bound *b)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	return btc_sched_fluid_bound(p, o, b, &d);
}

static void test_one_stage_two_pus(void)
{
	static const double ab[][2] = { { 1, 2 }, { 3, 6 }, { 0.7, 0.7 }, { 10.5, 0.25 } };
	for (size_t k = 0; k < sizeof ab / sizeof ab[0]; k++) {
		double a = ab[k][0], b = ab[k][1];
		struct btc_sched_problem p = { .n_stages = 1, .n_pus = 2, .time_ms = ab[k] };
		struct btc_sched_bound r;
		CU_ASSERT_EQUAL_FATAL(bound_of(&p, NULL, &r), BTC_OK);
		assert_near(r.bound_ms, a * b / (a + b), "ab/(a+b)");
		assert_near(r.lp_ms, r.bound_ms, "lp");
		assert_near(r.frac[0], b / (a + b), "x[0][0]");
		assert_near(r.frac[1], a / (a + b), "x[0][1]");
		assert_near(r.load_ms[0], r.lp_ms, "load 0");
		assert_near(r.load_ms[1], r.lp_ms, "load 1");
		CU_ASSERT(r.gap_ms <= 1e-12 * r.lp_ms);
		btc_sched_bound_free(&r);
	}
}

/* Stage 0 runs only on PU 0 (time 1), stage 1 anywhere (4 on either):
 * PU 0 takes a of stage 1, 1 + 4a = 4 (1 - a), a = 3/8, T = 2.5. */
static void test_one_pu_only(void)
{
	const double t[] = { 1, NAN, 4, 4 };
	struct btc_sched_problem p = { .n_stages = 2, .n_pus = 2, .time_ms = t };
	struct btc_sched_bound r;
	CU_ASSERT_EQUAL_FATAL(bound_of(&p, NULL, &r), BTC_OK);
	assert_near(r.bound_ms, 2.5, "bound");
	assert_near(r.frac[0], 1, "x[0][0]");
	CU_ASSERT_EQUAL(r.frac[1], 0); /* no variable: exactly 0 */
	assert_near(r.frac[2], 3.0 / 8, "x[1][0]");
	assert_near(r.frac[3], 5.0 / 8, "x[1][1]");
	btc_sched_bound_free(&r);
}

/* One stage on three PUs (2, 3, 6): 1 / (1/2 + 1/3 + 1/6) = 1; PU 2
 * forbidden: 6/5; PU 0 forbidden: 2; pinned to PU 1: 3. */
static void test_forbid_and_pin(void)
{
	const double t[] = { 2, 3, 6 };
	struct btc_sched_problem p = { .n_stages = 1, .n_pus = 3, .time_ms = t };
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	struct btc_sched_bound r;
	CU_ASSERT_EQUAL_FATAL(bound_of(&p, &o, &r), BTC_OK);
	assert_near(r.bound_ms, 1, "all");
	btc_sched_bound_free(&r);
	o.forbid_mask = 1u << 2;
	CU_ASSERT_EQUAL_FATAL(bound_of(&p, &o, &r), BTC_OK);
	assert_near(r.bound_ms, 6.0 / 5, "PU 2 forbidden");
	CU_ASSERT_EQUAL(r.frac[2], 0);
	CU_ASSERT_EQUAL(r.load_ms[2], 0);
	btc_sched_bound_free(&r);
	o.forbid_mask = 1u << 0;
	CU_ASSERT_EQUAL_FATAL(bound_of(&p, &o, &r), BTC_OK);
	assert_near(r.bound_ms, 2, "PU 0 forbidden");
	btc_sched_bound_free(&r);
	o.forbid_mask = 0;
	int pin[] = { 1 };
	o.pin = pin;
	CU_ASSERT_EQUAL_FATAL(bound_of(&p, &o, &r), BTC_OK);
	assert_near(r.bound_ms, 3, "pinned to PU 1");
	assert_near(r.frac[1], 1, "x[0][1]");
	btc_sched_bound_free(&r);
}

/* F_c is paid once per task a PU touches: one stage, t = (2, 2), F =
 * (0, 2): 2 (1 - x) = 2 x + 2 x, x = 1/3, T = 4/3 (1 without F). With
 * two stages of 1 on PU 1 the fixed cost is paid once, not per stage:
 * t = (1, 1; 1, 1), F = (0, 1): PU 1 takes x of both, load 2x + x,
 * PU 0 2 (1 - x): x = 2/5, T = 6/5. T_io above the LP: the bound. */
static void test_fixed_and_io(void)
{
	const double t1[] = { 2, 2 }, f[] = { 0, 2 };
	struct btc_sched_problem p = { .n_stages = 1, .n_pus = 2, .time_ms = t1 };
	struct btc_sched_bound r;
	CU_ASSERT_EQUAL_FATAL(bound_of(&p, NULL, &r), BTC_OK);
	assert_near(r.bound_ms, 1, "without F");
	btc_sched_bound_free(&r);
	p.fixed_ms = f;
	CU_ASSERT_EQUAL_FATAL(bound_of(&p, NULL, &r), BTC_OK);
	assert_near(r.bound_ms, 4.0 / 3, "with F");
	assert_near(r.touch[1], 1.0 / 3, "y[1]");
	assert_near(r.load_ms[1], 4.0 / 3, "load 1");
	btc_sched_bound_free(&r);

	const double t2[] = { 1, 1, 1, 1 }, f2[] = { 0, 1 };
	struct btc_sched_problem q = { .n_stages = 2, .n_pus = 2, .time_ms = t2, .fixed_ms = f2 };
	CU_ASSERT_EQUAL_FATAL(bound_of(&q, NULL, &r), BTC_OK);
	assert_near(r.bound_ms, 6.0 / 5, "F once per task");
	btc_sched_bound_free(&r);

	q.io_ms = 1.5;
	CU_ASSERT_EQUAL_FATAL(bound_of(&q, NULL, &r), BTC_OK);
	assert_near(r.lp_ms, 6.0 / 5, "lp under T_io");
	assert_near(r.bound_ms, 1.5, "T_io");
	CU_ASSERT_EQUAL(r.io_ms, 1.5);
	btc_sched_bound_free(&r);
}

static void test_errors(void)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_sched_bound r;
	const double neg[] = { 1, -1 };
	struct btc_sched_problem p = { .n_stages = 1, .n_pus = 2, .time_ms = neg };
	CU_ASSERT_EQUAL(btc_sched_fluid_bound(&p, NULL, &r, &d), BTC_ERR_TABLE);
	btc_sched_bound_free(&r);

	static const char *const stages[] = { "morton", "sort" };
	const double t[] = { 1, 2, NAN, 3 };
	struct btc_sched_problem q = { .n_stages = 2, .n_pus = 2, .time_ms = t,
				       .stage_names = stages };
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	o.forbid_mask = 1u << 1;
	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL(btc_sched_fluid_bound(&q, &o, &r, &d), BTC_ERR_UNSAT);
	CU_ASSERT_STRING_EQUAL(d.last,
			       "error: fluid bound: stage 1 (sort) has a time only on forbidden PUs");
	btc_sched_bound_free(&r);

	CU_ASSERT(isnan(btc_sched_bound_efficiency(1, 0)));
	CU_ASSERT(isnan(btc_sched_bound_efficiency(NAN, 2)));
	assert_near(btc_sched_bound_efficiency(1, 4), 0.25, "efficiency");
}

/* GLPK's internal error in the fluid bound's simplex (sched/glpk_guard.h):
 * caught, said, counted; GLPK's next call works in a fresh environment. */
static void test_glpk_internal_error(void)
{
	const double t[] = { 1, 3, 3, 2 };
	struct btc_sched_problem p = { .n_stages = 2, .n_pus = 2, .time_ms = t };
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_sched_bound r;
	int errors = btc_glpk_internal_errors;
	btc_glpk_simplex_fail = 1;
	CU_ASSERT_EQUAL(btc_sched_fluid_bound(&p, NULL, &r, &d), BTC_ERR_LIMIT);
	CU_ASSERT_EQUAL(btc_glpk_simplex_fail, 0);
	CU_ASSERT_EQUAL(btc_glpk_internal_errors, errors + 1);
	CU_ASSERT_STRING_EQUAL(d.last,
			       "error: fluid bound: GLPK's simplex stopped on an internal error");
	btc_sched_bound_free(&r);
	CU_ASSERT_EQUAL_FATAL(btc_sched_fluid_bound(&p, NULL, &r, &d), BTC_OK);
	assert_near(r.bound_ms, 1.6, "the next bound");
	CU_ASSERT_EQUAL(btc_glpk_internal_errors, errors + 1);
	btc_sched_bound_free(&r);
}

/* btc schedule's output with the bound: t = (1, 3; 3, 2); the best
 * candidate is PU 0 [0], PU 1 [1] with T_max = 2; the LP gives PU 0
 * stage 0 and a of stage 1: 1 + 3a = 2 (1 - a), a = 1/5, T = 1.6: 80 %. */
static void test_output(void)
{
	const double t[] = { 1, 3, 3, 2 };
	struct btc_sched_problem p = { .n_stages = 2, .n_pus = 2, .time_ms = t };
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	struct btc_sched_result res;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL_FATAL(btc_sched_solve_exhaustive(&p, &o, &res, &d), BTC_OK);
	struct btc_sched_bound b;
	CU_ASSERT_EQUAL_FATAL(btc_sched_fluid_bound(&p, &o, &b, &d), BTC_OK);
	assert_near(b.bound_ms, 1.6, "bound");
	struct btc_sched_assign a;
	CU_ASSERT_EQUAL_FATAL(btc_sched_assign_bound(&p, &o, NULL, &b, &a, &d), BTC_OK);
	res.has_fluid_bound = true;
	res.fluid_bound_ms = b.bound_ms;
	res.assign_bound_ms = a.bound_ms; /* 2: stage 0 on PU 0, 1 on PU 1 */
	res.assign_exact = a.exact;
	btc_sched_assign_free(&a);
	btc_sched_bound_free(&b);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(f != NULL);
	btc_sched_print_text(f, &p, &res, false);
	btc_sched_print_json(f, &p, &res, false);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(
		buf, "\nfluid bound: 1.6000 ms (efficiency of the best candidate: "
		     "bound / T_max = 80.0 %)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nassignment bound: 2.0000 ms (efficiency of the best "
					   "candidate: bound / T_max = 100.0 %)\n"));
	/* 2 less GLPK's tolerance (BTC_SCHED_ASSIGN_SLACK (1.6 + 2): the
	 * fluid optimum is the MIP's unit) */
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "],\"fluid_bound_ms\":1.600000,\"assign_bound_ms\":1.999996,"
					   "\"assign_exact\":true,\n\"optimal\":true"));
	free(buf);
	/* unset: not printed (the solvers' own output is unchanged) */
	res.has_fluid_bound = false;
	f = open_memstream(&buf, &len);
	btc_sched_print_text(f, &p, &res, false);
	btc_sched_print_json(f, &p, &res, false);
	fclose(f);
	CU_ASSERT_PTR_NULL(strstr(buf, "fluid"));
	free(buf);
	btc_sched_result_free(&res);
}

/* ---- random tables ---- */

/* PUs that differ by a constant speed: t_{i,c} = w_i / s_c, every stage
 * everywhere. Any split loads PU c with W_c / s_c, so the optimum puts
 * s_c / sum s of all work on c: T = sum w / sum s. */
static void test_proportional(void)
{
	rng_state = 16;
	for (int k = 0; k < 100; k++) {
		int n = rnd_in(1, 12), np = rnd_in(1, 8);
		double w[12], s[8], t[12 * 8], sw = 0, ss = 0;
		for (int i = 0; i < n; i++)
			sw += w[i] = rnd_in(1, 100000) / 1e3;
		for (int c = 0; c < np; c++)
			ss += s[c] = rnd_in(1, 1000) / 1e2;
		for (int i = 0; i < n; i++)
			for (int c = 0; c < np; c++)
				t[i * np + c] = w[i] / s[c];
		struct btc_sched_problem p = { .n_stages = n, .n_pus = np, .time_ms = t };
		struct btc_sched_bound r;
		CU_ASSERT_EQUAL_FATAL(bound_of(&p, NULL, &r), BTC_OK);
		if (!near(r.bound_ms, sw / ss, 1e-9))
			fprintf(stderr, "\n    table %d (%dx%d): bound %.17g, sum w / sum s %.17g\n",
				k, n, np, r.bound_ms, sw / ss);
		CU_ASSERT(near(r.bound_ms, sw / ss, 1e-9));
		for (int c = 0; c < np; c++)
			CU_ASSERT(near(r.load_ms[c], r.lp_ms, 1e-9));
		btc_sched_bound_free(&r);
	}
}

/* The LP's solution is feasible: every row sums to 1, nothing on a pair
 * that is not allowed, every load (recomputed here) at most the optimum. */
static void check_feasible(const struct btc_sched_problem *p, const struct btc_sched_options *o,
			   const struct btc_sched_bound *r)
{
	int n = p->n_stages, np = p->n_pus;
	for (int i = 0; i < n; i++) {
		double sum = 0;
		for (int c = 0; c < np; c++) {
			double x = r->frac[i * np + c];
			bool ok = !isnan(p->time_ms[i * np + c]) && !(o->forbid_mask & (1u << c)) &&
				  !(o->pin && o->pin[i] >= 0 && o->pin[i] != c);
			CU_ASSERT(x >= 0);
			if (!ok)
				CU_ASSERT_EQUAL(x, 0);
			sum += x;
		}
		CU_ASSERT(near(sum, 1, 1e-9));
	}
	for (int c = 0; c < np; c++) {
		double load = 0, y = 0;
		for (int i = 0; i < n; i++) {
			double x = r->frac[i * np + c];
			if (x > 0)
				load += x * p->time_ms[i * np + c];
			y = fmax(y, x);
		}
		load += (p->fixed_ms ? p->fixed_ms[c] : 0) * y;
		CU_ASSERT(near(load, r->load_ms[c], 1e-9));
		CU_ASSERT(load <= r->lp_ms * (1 + 1e-9) + 1e-12);
	}
	CU_ASSERT(near(r->bound_ms, fmax(r->lp_ms, p->io_ms), 0));
}

static void test_random_below_best_schedule(void)
{
	rng_state = 20261121;
	int compared = 0, single = 0, tight = 0;
	for (int k = 0; k < 400; k++) {
		int n = rnd_in(1, 9), np = k % 8 == 0 ? 1 : rnd_in(2, 5);
		double t[9 * 5], f[5], x[9 * 5 * 9];
		bool coarse = rnd_in(0, 9) < 3;
		for (int i = 0; i < n; i++) {
			bool have = false;
			for (int c = 0; c < np; c++) {
				bool missing = np > 1 && rnd_in(0, 9) < 2;
				t[i * np + c] = missing ? NAN
					      : coarse ? 0.5 * rnd_in(0, 8)
						       : rnd_in(1, 200000) / 1e4;
				have |= !missing;
			}
			if (!have)
				t[i * np + rnd_in(0, np - 1)] = rnd_in(1, 200000) / 1e4;
		}
		struct btc_sched_problem p = { .n_stages = n, .n_pus = np, .time_ms = t };
		rnd_model_terms(&p, f, x);
		struct btc_sched_options o;
		btc_sched_options_init(&o);
		int pin[9];
		if (np > 1 && rnd_in(0, 3) == 0)
			o.forbid_mask = 1u << rnd_in(0, np - 1);
		if (np > 1 && rnd_in(0, 3) == 0)
			o.pin = rnd_pin(pin, t, n, np, o.forbid_mask);
		struct btc_sched_bound r;
		enum btc_status st = bound_of(&p, &o, &r);
		double best = best_period(&p, &o);
		if (st != BTC_OK) {
			/* only a forbidden PU that held a stage's only time */
			CU_ASSERT_EQUAL(st, BTC_ERR_UNSAT);
			CU_ASSERT(isinf(best));
			btc_sched_bound_free(&r);
			continue;
		}
		CU_ASSERT(r.gap_ms <= 1e-12 * r.lp_ms);
		check_feasible(&p, &o, &r);
		if (isinf(best)) { /* the pins leave no schedule: nothing to compare */
			btc_sched_bound_free(&r);
			continue;
		}
		compared++;
		if (!(r.bound_ms <= best * (1 + 1e-12)))
			fprintf(stderr, "\n    table %d (%dx%d): bound %.17g above the best %.17g\n",
				k, n, np, r.bound_ms, best);
		CU_ASSERT(r.bound_ms <= best * (1 + 1e-12));
		if (np == 1 && !p.xfer_ms) {
			single++;
			assert_near(r.bound_ms, best, "one PU: the baseline");
		}
		tight += near(r.bound_ms, best, 1e-9);
		btc_sched_bound_free(&r);
	}
	/* the generator must exercise the comparison, and the bound is not
	 * trivially the optimum everywhere */
	CU_ASSERT(compared >= 300);
	CU_ASSERT(single >= 40);
	CU_ASSERT(tight < compared);
}

int register_bound_suite(void)
{
	CU_pSuite s = CU_add_suite("bound", NULL, NULL);
	if (!s || !CU_add_test(s, "one stage on two PUs: ab / (a + b)", test_one_stage_two_pus) ||
	    !CU_add_test(s, "a stage with a time on one PU only", test_one_pu_only) ||
	    !CU_add_test(s, "forbidden and pinned PUs", test_forbid_and_pin) ||
	    !CU_add_test(s, "F_c once per task touched; T_io", test_fixed_and_io) ||
	    !CU_add_test(s, "errors", test_errors) ||
	    !CU_add_test(s, "GLPK's internal error, caught", test_glpk_internal_error) ||
	    !CU_add_test(s, "btc schedule's text and JSON", test_output) ||
	    !CU_add_test(s, "constant speed ratios: sum w / sum s", test_proportional) ||
	    !CU_add_test(s, "400 random tables: bound <= best schedule (= with 1 PU)",
			 test_random_below_best_schedule))
		return -1;
	return 0;
}
