/* BT-Optimizer with Z3 over the larger space: the search (docs/
 * scheduler.md, "The larger space"). With the presolve, T_max rankings are
 * counted (count_plan) and gapness rankings too (gap_plan): the chunks
 * useful under the counted bounds are encoded and Z3 finds exactly the
 * counted schedules; ties beyond the window cap are taken one at a time in
 * vector order. bt's long walks go to the window enumeration over the
 * chunks useful under a galloped bound; without the presolve the window
 * enumeration and the one-at-a-time ranking of sched_z3.c. */
#include "sched/space_gap.h"
#include "sched/z3_space.h"

#include <stdlib.h>
#include <string.h>

/* ---- the searches of the presolve ---- */

/* The least x in [x0, xmax] with count(z, x) >= K, for a count that
 * grows with x: galloping from x0, then bisection. 1 with the least in *x;
 * 0 when even count(xmax) < K, which goes to *c; -1 when a count fails
 * (presolve unavailable or expired). */
static int least_reaching(struct zx *z, int K, int64_t x0, int64_t xmax,
			  double (*count)(struct zx *z, int64_t x), int64_t *x, double *c)
{
	int64_t a = x0, b = x0, step = 1;
	for (;;) {
		*c = count(z, b);
		if (*c < 0)
			return -1;
		if (*c >= K)
			break;
		if (b >= xmax)
			return 0;
		a = b + 1;
		b = b + step < xmax ? b + step : xmax;
		step *= 2;
	}
	while (a < b) {
		int64_t m = a + (b - a) / 2;
		double cm = count(z, m);
		if (cm < 0)
			return -1;
		if (cm >= K)
			b = m;
		else
			a = m + 1;
	}
	*x = a;
	return 1;
}

/* Candidates with every chunk <= sums[i] (presolve). */
static double count_sum(struct zx *z, int64_t i)
{
	return btc_space_dp_count(z->sp, 0, z->sums[i], false);
}

static double gap_count(struct zx *z, int64_t W, unsigned char *useful);

/* Candidates of gapness <= W (presolve). */
static double gap_count_at(struct zx *z, int64_t W)
{
	return gap_count(z, W, NULL);
}

/* ---- the T_max ranking by counting (the presolve) ---- */

/* The least T_max of all candidates (presolve), bounded by the cheapest
 * whole farm, a candidate itself; cached. */
static int64_t min_tmax0(struct zx *z)
{
	if (!z->v1)
		z->v1 = btc_space_dp_min_tmax(z->sp, 0, btc_space_whole_farm(z->sp));
	return z->v1;
}

/* Candidates with T_max exactly v and every chunk >= L. */
static double count_at(struct zx *z, int64_t v, int64_t L)
{
	double a = btc_space_dp_count(z->sp, L, v, false);
	double b = btc_space_dp_count(z->sp, L, v - 1, false);
	return a < 0 || b < 0 ? -1 : a - b;
}

struct plan {
	int64_t B;      /* T_max of the K-th candidate (or above all) */
	double below;   /* admitted candidates with T_max < B */
	int64_t L;      /* the tie level's T_min bound */
	int64_t L_next; /* the next chunk cost above L (INT64_MAX: none) */
	double above_l; /* T_max = B, T_min >= L_next */
	double tie;     /* T_max = B, T_min = L */
};

/* Walks T_max up the chunk costs, counting the admitted candidates at
 * each value (lo(v) = bt's filter), to B (without the filter: galloping
 * and bisection); then the largest L that keeps K - below of them at
 * T_max = B (as sched_z3.c's enumerate_counted). Returns 1, 0 (no
 * candidate at all), 2 (the walk would take over WALK_STEPS values) or -1
 * (presolve unavailable or expired). */
#define WALK_STEPS 48
int btc_space_walk_steps;
static int count_plan(struct zx *z, int K, struct plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	int64_t v1 = min_tmax0(z);
	if (v1 < 0)
		return -1;
	if (v1 == INT64_MAX)
		return 0;
	int i = btc_z3_first_ge(z->sums, z->n_sums, v1), last = -1;
	double at = 0;
	if (!z->b.filtered) {
		/* no filter: count(0, v) grows with v; galloping, then
		 * bisection for B */
		int64_t a;
		double c;
		int r = least_reaching(z, K, i, z->n_sums - 1, count_sum, &a, &c);
		if (r < 0)
			return -1;
		if (r == 0) {
			pl->below = c;
			pl->B = z->sums[z->n_sums - 1] + 1;
			pl->L = pl->L_next = INT64_MAX;
			return c > 0;
		}
		pl->below = btc_space_dp_count(z->sp, 0, z->sums[a] - 1, false);
		if (pl->below < 0)
			return -1;
		last = i = (int)a;
	}
	for (int steps = 0; z->b.filtered && i < z->n_sums; i++) {
		if (++steps > (btc_space_walk_steps > 0 ? btc_space_walk_steps : WALK_STEPS))
			return 2; /* a long walk: the window does better */
		int64_t v = z->sums[i];
		double c = count_at(z, v, btc_zx_filter_lo(z, v));
		if (c < 0)
			return -1;
		if (c <= 0)
			continue;
		last = i;
		if (pl->below + c >= K) {
			at = c;
			break;
		}
		pl->below += c;
	}
	if (last < 0)
		return 0;
	if (i == z->n_sums) {
		/* fewer than K in all */
		pl->B = z->sums[last] + 1;
		pl->L = pl->L_next = INT64_MAX;
		return 1;
	}
	int64_t B = z->sums[last], L = btc_zx_filter_lo(z, B);
	double need = K - pl->below;
	int lo = btc_z3_first_ge(z->sums, z->n_sums, L), hi = btc_z3_first_ge(z->sums, z->n_sums, B + 1) - 1;
	while (lo < hi) {
		int m = lo + (hi - lo + 1) / 2;
		double c = count_at(z, B, z->sums[m] > L ? z->sums[m] : L);
		if (c < 0)
			return -1;
		if (c >= need)
			lo = m;
		else
			hi = m - 1;
	}
	if (lo < z->n_sums && z->sums[lo] > L)
		L = z->sums[lo];
	int nx = btc_z3_first_ge(z->sums, z->n_sums, L + 1);
	pl->B = B;
	pl->L = L;
	pl->L_next = nx < z->n_sums ? z->sums[nx] : INT64_MAX;
	pl->above_l = pl->L_next <= B ? count_at(z, B, pl->L_next) : 0;
	double all = count_at(z, B, L);
	if (pl->above_l < 0 || all < 0)
		return -1;
	pl->tie = all - pl->above_l;
	(void)at;
	return 1;
}

/* Z3 finds the planned schedules: below B, at B above L, then the best of
 * the tie (B, L) by vector order. 1 done, -1 expired. */
static int enumerate_plan(struct zx *z, struct btc_sched_result *res, int K, int cap,
			  const struct plan *pl)
{
	struct found f = {0};
	Z3_ast g = btc_z3_fresh(&z->b);
	int rc = btc_zx_enumerate_phase(z, &f, g, pl->below, pl->B - 1, 0);
	if (rc == 0 && pl->L != INT64_MAX && pl->above_l > 0)
		rc = btc_zx_enumerate_phase(z, &f, g, pl->above_l, pl->B, pl->L_next);
	double need = K - f.n;
	if (rc == 0 && pl->L != INT64_MAX && need > 0) {
		if (pl->tie <= cap) {
			rc = btc_zx_enumerate_phase(z, &f, g, pl->tie, pl->B, pl->L);
		} else {
			/* massive ties: the best `need` by vector order */
			Z3_ast b[2] = {btc_z3_guard(&z->b, G_TMAX_LE, pl->B),
				       btc_z3_guard(&z->b, G_TMIN_GE, pl->L)};
			rc = btc_zx_enumerate_ties(z, &f, g, need, pl->tie, b, 2);
		}
	}
	btc_sched_z3_end(&z->b, res, &f, K, K_TMAX, rc);
	return rc < 0 ? -1 : 1;
}

static int64_t dp_gstar(struct zx *z);

/* ---- the gapness ranking by counting (space_gap.c) ---- */

struct gplan {
	int64_t G;      /* gapness of the K-th candidate */
	double below;   /* candidates of gapness < G (all of them when all) */
	int64_t LK;     /* the T_min of the last level taken at gapness G */
	double before;  /* gapness G, T_min < LK */
	double at;      /* gapness G, T_min = LK */
	bool all;       /* fewer than K candidates in all */
};

static double gap_count(struct zx *z, int64_t W, unsigned char *useful)
{
	return btc_space_gap_count(z->sp, z->sums, z->n_sums, W, useful);
}

/* G = the least W with K candidates of gapness <= W (galloping and
 * bisection from G*), then the T_min levels at gapness G in T_max order
 * (T_max = T_min + G) until K. 1, or -1 (presolve unavailable, expired). */
static int gap_plan(struct zx *z, int K, struct gplan *pl)
{
	memset(pl, 0, sizeof(*pl));
	int64_t gstar = dp_gstar(z);
	if (gstar < 0 || z->n_sums == 0)
		return -1;
	int64_t maxw = z->sums[z->n_sums - 1];
	int64_t a;
	double all;
	int r = least_reaching(z, K, gstar, maxw, gap_count_at, &a, &all);
	if (r < 0)
		return -1;
	if (r == 0) {
		pl->all = true;
		pl->below = all;
		pl->G = maxw;
		return 1;
	}
	pl->G = a;
	pl->below = gap_count(z, a - 1, NULL);
	if (pl->below < 0)
		return -1;
	double need = K - pl->below;
	for (int j = 0; j < z->n_sums; j++) {
		double c = btc_space_gap_level(z->sp, z->sums, z->n_sums, a, z->sums[j]);
		if (c < 0)
			return -1;
		if (c <= 0)
			continue;
		if (pl->before + c >= need) {
			pl->LK = z->sums[j];
			pl->at = c;
			return 1;
		}
		pl->before += c;
	}
	btc_panic("gapness levels hold fewer schedules than their count");
}

/* Z3 finds the planned schedules: gapness < G, gapness G below T_min LK,
 * then the best of T_min = LK by vector order. */
static void enumerate_gap_plan(struct zx *z, struct btc_sched_result *res, int K, int cap,
			       const struct gplan *pl)
{
	struct found f = {0};
	Z3_ast g = btc_z3_fresh(&z->b);
	int rc = 0;
	if (pl->all) {
		rc = btc_zx_enumerate_n(z, &f, g, pl->below, NULL, 0);
	} else {
		Z3_ast b[3];
		if (pl->below > 0) {
			b[0] = btc_z3_guard(&z->b, G_GAP_LE, pl->G - 1);
			rc = btc_zx_enumerate_n(z, &f, g, pl->below, b, 1);
		}
		b[0] = btc_z3_guard(&z->b, G_GAP_LE, pl->G);
		if (rc == 0 && pl->before > 0) {
			b[1] = btc_z3_guard(&z->b, G_TMAX_LE, pl->LK + pl->G - 1);
			rc = btc_zx_enumerate_n(z, &f, g, pl->before, b, 2);
		}
		b[1] = btc_z3_guard(&z->b, G_TMAX_LE, pl->LK + pl->G);
		b[2] = btc_z3_guard(&z->b, G_TMIN_GE, pl->LK);
		double need = K - f.n;
		if (rc == 0 && pl->at <= cap) {
			rc = btc_zx_enumerate_n(z, &f, g, pl->at, b, 3);
		} else {
			rc = btc_zx_enumerate_ties(z, &f, g, need, pl->at, b, 3);
		}
	}
	btc_sched_z3_end(&z->b, res, &f, K, K_GAP, rc);
}

/* ---- the ranking ---- */

static int64_t space_min_tmax(void *ctx, int64_t L)
{
	return btc_space_dp_min_tmax(ctx, L, INT64_MAX);
}

/* G* by the presolve over the space's costs (btc_z3_gstar); -1 when
 * unavailable. */
static int64_t dp_gstar(struct zx *z)
{
	struct btc_space *sp = z->sp;
	/* a farm over every stage has gapness 0 */
	if (btc_space_whole_farm(sp) != INT64_MAX)
		return 0;
	if (!sp->dp_ok || z->n_sums == 0)
		return -1;
	int64_t v1 = min_tmax0(z);
	if (v1 < 0 || v1 == INT64_MAX)
		return -1;
	return btc_z3_gstar(z->sums, z->n_sums, v1, space_min_tmax, sp);
}

static void assert_filter(struct zx *z)
{
	if (z->b.filtered)
		btc_zx_below_clauses(z, NULL, btc_zx_filter_lo, 0);
}

/* Level 1 of bt: G* (presolve, else Z3 over every chunk). Returns 1 found,
 * 0 no candidate, -1 expired. */
static int level1(struct zx *z, struct btc_sched_result *res)
{
	int64_t gstar = dp_gstar(z);
	if (gstar < 0) {
		if (!z->y)
			btc_zx_encode(z, NULL);
		btc_z3_assume_reset(&z->b, 0);
		int r = btc_z3_check(&z->b);
		if (r <= 0)
			return r;
		if (btc_z3_minimise(&z->b, 0, K_GAP, 0, false, -1, &gstar) < 0)
			return -1;
	}
	res->gstar_q = gstar;
	res->gstar_ms = (double)gstar * (double)z->prep->quantum_ns / 1e6;
	if (z->prep->util_num > 0) {
		z->b.filtered = true;
		z->b.gstar = gstar;
	}
	return 1;
}

/* The chunks the T_max window needs under bt's filter: those useful under
 * T_max <= V, V the first chunk cost at which the candidates with every
 * chunk in [lo(V), V] (all admitted, all of T_max <= V) number K, found
 * by galloping; NULL (every chunk) when there is no such V or the
 * presolve fails. */
static unsigned char *window_chunks(struct zx *z, int K)
{
	int64_t v1 = min_tmax0(z);
	if (v1 < 0 || v1 == INT64_MAX)
		return NULL;
	int i = btc_z3_first_ge(z->sums, z->n_sums, v1), step = 1;
	for (;;) {
		int64_t v = z->sums[i];
		double c = btc_space_dp_count(z->sp, btc_zx_filter_lo(z, v), v, false);
		if (c < 0)
			return NULL;
		if (c >= K)
			break;
		if (i == z->n_sums - 1)
			return NULL;
		i = i + step < z->n_sums - 1 ? i + step : z->n_sums - 1;
		step *= 2;
	}
	size_t m = (size_t)z->sp->n_opts * (size_t)z->n * (size_t)z->n;
	unsigned char *useful = btc_xmalloc(m);
	if (btc_space_dp_useful(z->sp, 0, z->sums[i], useful) < 0) {
		free(useful);
		return NULL;
	}
	return useful;
}

/* The layer-by-layer table of the chunks the presolve marked useful
 * ([n_opts][n][n] flags, zeroed), owned by the caller. */
static unsigned char *useful_alloc(const struct zx *z)
{
	return btc_xcalloc((size_t)z->sp->n_opts * (size_t)z->n * (size_t)z->n, 1);
}

/* The T_max objective's presolved plan (count_plan): true when it settled
 * the ranking (none, or enumerated from the plan); else *pruned may hold
 * the window's chunks for the plain search. */
static bool tmax_planned(struct zx *z, struct btc_sched_result *res, int K, int cap,
			 unsigned char **pruned)
{
	struct plan pl;
	int r = count_plan(z, K, &pl);
	if (r == 0)
		return true;
	if (r == 2)
		*pruned = window_chunks(z, K);
	if (r != 1)
		return false;
	unsigned char *useful = useful_alloc(z);
	int64_t hi = pl.B < INT64_MAX ? pl.B : INT64_MAX;
	bool done = btc_space_dp_useful(z->sp, 0, hi, useful) == 0 && !z->y;
	if (done) {
		btc_zx_encode(z, useful);
		assert_filter(z);
	}
	free(useful);
	if (done)
		enumerate_plan(z, res, K, cap, &pl);
	return done;
}

/* The gapness objective's presolved plan (gap_plan): true when it
 * enumerated the ranking. */
static bool gap_planned(struct zx *z, struct btc_sched_result *res, int K, int cap)
{
	struct gplan gp;
	if (gap_plan(z, K, &gp) <= 0)
		return false;
	unsigned char *useful = useful_alloc(z);
	bool done = gap_count(z, gp.G, useful) >= 0 && !z->y;
	if (done)
		btc_zx_encode(z, useful);
	free(useful);
	if (done)
		enumerate_gap_plan(z, res, K, cap, &gp);
	return done;
}

void btc_zx_rank(struct zx *z, const struct btc_sched_options *opt, struct btc_sched_result *res)
{
	int K = opt->top_k;
	int cap = btc_sched_z3_window_cap > 0 ? btc_sched_z3_window_cap : 8 * K + 64;
	enum key primary = opt->objective == BTC_SCHED_GAPNESS ? K_GAP : K_TMAX;
	if (opt->objective == BTC_SCHED_BT) {
		int r = level1(z, res);
		if (r <= 0) {
			if (r < 0)
				res->optimal = false;
			return;
		}
	}
	unsigned char *pruned = NULL;
	if (z->sp->dp_ok) {
		if (primary == K_TMAX ? tmax_planned(z, res, K, cap, &pruned)
				      : gap_planned(z, res, K, cap))
			return;
		if (z->sp->expired) {
			res->optimal = false;
			return;
		}
	}
	if (!z->y)
		btc_zx_encode(z, pruned);
	free(pruned);
	assert_filter(z);
	int64_t lo = primary == K_TMAX && z->sp->dp_ok ? min_tmax0(z) : 0;
	lo = lo > 0 ? lo : 0;
	if (primary == K_GAP) {
		int64_t g = dp_gstar(z);
		lo = g > 0 ? g : 0;
	}
	btc_z3_assume_reset(&z->b, 0);
	int first = btc_z3_check(&z->b); /* the window starts from a model */
	if (first == 0 ||
	    (first > 0 && btc_z3_enumerate_window(&z->b, res, K, primary, lo,
						   z->n_vals ? z->vals[z->n_vals - 1] : 0,
						   cap) == 0)) {
		res->n_candidates = 0;
		btc_z3_enumerate_exact(&z->b, res, K, primary, primary == K_TMAX ? K_GAP : K_TMAX);
	}
}

