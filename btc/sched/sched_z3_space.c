/* BT-Optimizer with the Z3 C API over the larger space (space.h;
 * docs/scheduler.md, "The larger space").
 *
 * Encoding. A Boolean y per chunk (option o on stages f..l) that may occur;
 * st[i]: a chunk starts at stage i (st[0], st[n] true); z[f][l]: the chunk
 * of stages f..l exists. z <-> OR of its y, at most one y per range;
 * z[f][l] -> st[f], st[l+1], !st[m] for f < m <= l; st[f] -> OR_l z[f][l]:
 * the chunks tile the stages exactly. Units: per PU, sum of the units of
 * its y <= its units (a cardinality constraint where every use takes the
 * whole PU). The whole range on one PU is a baseline and has no y, so
 * every model is a candidate. Chunk-count limit: atmost over the z.
 *
 * Bounds, each behind a guard literal g created once per value:
 *   T_max <= B : !g | !y           for every y costing more than B
 *   T_min >= L : !g | !y           for every y costing less than L
 *   gap <= G   : !g | !y | !below[j(cost(y) - G)]
 * with below[j] ("a chosen chunk costs less than vals[j]", vals the sorted
 * distinct costs) implied by y -> below[index of cost(y) + 1] and
 * below[j] -> below[j + 1]; bt's filter a T_max - b T_min <= b G* is the
 * same clause with the threshold ceil((a cost(y) - b G*) / b). So every
 * bound is clausal, whatever the costs (farm costs are not sums).
 *
 * Search. With the presolve (btc_space_dp_*), T_max rankings are counted
 * first: B, the T_max of the K-th candidate, the T_min bound L at that tie
 * level, and the chunks useful under T_max <= B, which are all that gets
 * encoded; Z3 then finds exactly the counted schedules, and ties at
 * (B, L) beyond the window cap are taken one at a time in vector order
 * (lexmin). Otherwise (gapness, or too many presolve states) the window
 * enumeration of sched_z3.c, falling back to one candidate at a time.
 *
 * This file holds the encoding, the bounds' guards and the solver's entry
 * (btc_space_solve_z3); the queries of the encoding (checks, C5 blocking,
 * minimising, lexmin, the found schedules) are sched_z3_space_query.c,
 * the search sched_space_rank.c. */
#include "sched/z3_space.h"

#include <stdlib.h>
#include <string.h>

Z3_ast btc_zx_fresh(struct zx *z)
{
	return Z3_mk_const(z->ctx, Z3_mk_int_symbol(z->ctx, (int)z->next_sym++), z->bs);
}

static void add(struct zx *z, Z3_ast f)
{
	Z3_solver_assert(z->ctx, z->s, f);
}

static void clause2(struct zx *z, Z3_ast a, Z3_ast b)
{
	Z3_ast c[2] = {a, b};
	btc_zx_clause(z, 2, c);
}

/* Sorts and deduplicates v[0..k); returns the new count. */
static int distinct(int64_t *v, int k)
{
	qsort(v, (size_t)k, sizeof(int64_t), btc_sched_z3_cmp_i64);
	int m = 0;
	for (int j = 0; j < k; j++)
		if (m == 0 || v[m - 1] != v[j])
			v[m++] = v[j];
	return m;
}

/* First index j with a[j] >= v (n if none). */
int btc_zx_first_ge(const int64_t *a, int n, int64_t v)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int m = lo + (hi - lo) / 2;
		if (a[m] < v)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* ---- encoding ---- */

static bool encodable(const struct zx *z, int o, int f, int l)
{
	const struct btc_space *sp = z->sp;
	/* the whole range on one PU is a baseline, not a candidate */
	return btc_space_cost(sp, o, f, l) >= 0 &&
	       !(f == 0 && l == z->n - 1 && !sp->opts[o].farm);
}

static void encode_units(struct zx *z)
{
	const struct btc_space *sp = z->sp;
	Z3_ast *lits = btc_xmalloc(sizeof(Z3_ast) * (size_t)(z->n_y + 1));
	int *coef = btc_xmalloc(sizeof(int) * (size_t)(z->n_y + 1));
	for (int c = 0; c < sp->p; c++) {
		unsigned k = 0;
		bool whole = true;
		for (int j = 0; j < z->n_y; j++) {
			int u = btc_space_units(sp, z->y[j].o, c);
			if (!u)
				continue;
			whole = whole && u == sp->cap[c];
			lits[k] = z->y[j].lit;
			coef[k++] = u;
		}
		if (k < 2)
			continue;
		if (whole)
			add(z, Z3_mk_atmost(z->ctx, k, lits, 1));
		else
			add(z, Z3_mk_pble(z->ctx, k, lits, coef, sp->cap[c]));
	}
	free(lits);
	free(coef);
}

/* Encodes the chunks allowed by `useful` ([n_opts * n * n] 0/1, or NULL:
 * every chunk of the space). */
void btc_zx_encode(struct zx *z, const unsigned char *useful)
{
	struct btc_space *sp = z->sp;
	int n = z->n;
	size_t cap = 64;
	z->y = btc_xmalloc(sizeof(*z->y) * cap);
	z->rstart = btc_xmalloc(sizeof(int) * (size_t)n * (size_t)n);
	z->rcount = btc_xcalloc((size_t)n * (size_t)n, sizeof(int));
	z->z = btc_xcalloc((size_t)n * (size_t)n, sizeof(Z3_ast));
	z->st = btc_xcalloc((size_t)n + 1, sizeof(Z3_ast));
	for (int i = 1; i < n; i++)
		z->st[i] = btc_zx_fresh(z);
	for (int f = 0; f < n; f++)
		for (int l = f; l < n; l++) {
			z->rstart[f * n + l] = z->n_y;
			for (int o = 0; o < sp->n_opts; o++) {
				if (!encodable(z, o, f, l) ||
				    (useful && !useful[((size_t)o * n + f) * n + l]))
					continue;
				if ((size_t)z->n_y == cap) {
					cap *= 2;
					z->y = btc_xrealloc(z->y, sizeof(*z->y) * cap);
				}
				z->y[z->n_y++] = (struct ych){o, f, l, btc_space_cost(sp, o, f, l),
							      btc_zx_fresh(z)};
			}
			z->rcount[f * n + l] = z->n_y - z->rstart[f * n + l];
		}
	Z3_ast *lits = btc_xmalloc(sizeof(Z3_ast) * (size_t)(z->n_y + n + 2));
	/* ranges: z <-> OR y, at most one y; the tiling through st */
	for (int f = 0; f < n; f++) {
		unsigned k = 0;
		for (int l = f; l < n; l++) {
			int r = f * n + l, m = z->rcount[r];
			if (!m)
				continue;
			Z3_ast zl = btc_zx_fresh(z);
			z->z[r] = zl;
			lits[k++] = zl;
			Z3_ast *ys = btc_xmalloc(sizeof(Z3_ast) * (size_t)(m + 1));
			for (int j = 0; j < m; j++) {
				ys[j] = z->y[z->rstart[r] + j].lit;
				clause2(z, btc_zx_not(z, ys[j]), zl);
			}
			ys[m] = btc_zx_not(z, zl);
			btc_zx_clause(z, (unsigned)m + 1, ys);
			if (m > 1)
				add(z, Z3_mk_atmost(z->ctx, (unsigned)m, ys, 1));
			free(ys);
			if (f > 0)
				clause2(z, btc_zx_not(z, zl), z->st[f]);
			if (l + 1 < n)
				clause2(z, btc_zx_not(z, zl), z->st[l + 1]);
			for (int j = f + 1; j <= l; j++)
				clause2(z, btc_zx_not(z, zl), btc_zx_not(z, z->st[j]));
		}
		if (f > 0)
			lits[k++] = btc_zx_not(z, z->st[f]);
		if (k == 0)
			add(z, Z3_mk_false(z->ctx)); /* no chunk can start at 0 */
		else
			btc_zx_clause(z, k, lits);
	}
	encode_units(z);
	if (sp->limit_binds) {
		unsigned k = 0;
		for (int r = 0; r < n * n; r++)
			if (z->z[r])
				lits[k++] = z->z[r];
		if (k > (unsigned)sp->kmax)
			add(z, Z3_mk_atmost(z->ctx, k, lits, (unsigned)sp->kmax));
	}
	free(lits);
	/* the below chain over the distinct costs */
	z->vals = btc_xmalloc(sizeof(int64_t) * (size_t)(z->n_y + 1));
	for (int j = 0; j < z->n_y; j++)
		z->vals[j] = z->y[j].cost;
	z->n_vals = distinct(z->vals, z->n_y);
	z->below = btc_xcalloc((size_t)z->n_vals + 1, sizeof(Z3_ast));
	for (int j = 1; j < z->n_vals; j++)
		z->below[j] = btc_zx_fresh(z);
	for (int j = 1; j + 1 < z->n_vals; j++)
		clause2(z, btc_zx_not(z, z->below[j]), z->below[j + 1]);
	for (int j = 0; j < z->n_y; j++) {
		int i = btc_zx_first_ge(z->vals, z->n_vals, z->y[j].cost);
		if (i + 1 < z->n_vals)
			clause2(z, btc_zx_not(z, z->y[j].lit), z->below[i + 1]);
	}
}

/* !g | !y | !below[threshold] for every y: some chosen chunk costs less
 * than thr(cost(y)) rules y out; g NULL: unguarded. */
void btc_zx_below_clauses(struct zx *z, Z3_ast g, int64_t (*thr)(const struct zx *, int64_t),
			  int64_t arg)
{
	for (int j = 0; j < z->n_y; j++) {
		int64_t t = thr(z, z->y[j].cost) - arg;
		int i = btc_zx_first_ge(z->vals, z->n_vals, t);
		if (i < 1 || i >= z->n_vals)
			continue;
		Z3_ast c[3];
		unsigned k = 0;
		if (g)
			c[k++] = btc_zx_not(z, g);
		c[k++] = btc_zx_not(z, z->y[j].lit);
		c[k++] = btc_zx_not(z, z->below[i]);
		btc_zx_clause(z, k, c);
	}
}

static int64_t thr_gap(const struct zx *z, int64_t cost)
{
	(void)z;
	return cost;
}

/* bt's filter: T_min >= ceil((a T_max - b G*) / b). */
int64_t btc_zx_filter_lo(const struct zx *z, int64_t v)
{
	if (!z->filtered)
		return 0;
	int64_t a = z->prep->util_num, b = z->prep->util_den;
	int64_t num = a * v - b * z->gstar;
	return num <= 0 ? 0 : (num + b - 1) / b;
}

Z3_ast btc_zx_guard(struct zx *z, enum gkind kind, int64_t value)
{
	for (int j = 0; j < z->n_guards; j++)
		if (z->guards[j].kind == kind && z->guards[j].value == value)
			return z->guards[j].lit;
	Z3_ast g = btc_zx_fresh(z);
	if (kind == G_GAP_LE) {
		btc_zx_below_clauses(z, g, thr_gap, value);
	} else {
		for (int j = 0; j < z->n_y; j++) {
			int64_t c = z->y[j].cost;
			if (kind == G_TMAX_LE ? c > value : c < value)
				clause2(z, btc_zx_not(z, g), btc_zx_not(z, z->y[j].lit));
		}
	}
	if (z->n_guards == z->cap_guards) {
		z->cap_guards = z->cap_guards ? 2 * z->cap_guards : 64;
		z->guards = btc_xrealloc(z->guards, sizeof(*z->guards) * (size_t)z->cap_guards);
	}
	z->guards[z->n_guards++] = (struct guard){kind, value, g};
	return g;
}

Z3_ast btc_zx_key_guard(struct zx *z, enum key k, int64_t v, int64_t fixed_tmax)
{
	if (k == K_TMAX)
		return btc_zx_guard(z, G_TMAX_LE, v);
	if (fixed_tmax >= 0)
		return btc_zx_guard(z, G_TMIN_GE, fixed_tmax - v);
	return btc_zx_guard(z, G_GAP_LE, v);
}

static void collect_sums(struct zx *z)
{
	const struct btc_space *sp = z->sp;
	size_t m = (size_t)sp->n_opts * (size_t)z->n * (size_t)z->n;
	z->sums = btc_xmalloc(sizeof(int64_t) * (m + 1));
	int k = 0;
	for (size_t j = 0; j < m; j++)
		if (sp->cost[j] >= 0)
			z->sums[k++] = sp->cost[j];
	z->n_sums = distinct(z->sums, k);
}

enum btc_status btc_space_solve_z3(const struct btc_sched_problem *p,
				   const struct btc_sched_options *opt,
				   const struct btc_sched_prep *prep, struct btc_sched_result *res,
				   struct btc_diag *d, double t0)
{
	struct btc_space sp;
	enum btc_status st = btc_space_build(p, opt, prep, &sp, d);
	if (st != BTC_OK)
		return st;
	btc_sched_result_begin(p, opt, prep, res);
	res->candidates = btc_xcalloc((size_t)opt->top_k, sizeof(*res->candidates));
	struct zx z = {
		.p = p,
		.prep = prep,
		.sp = &sp,
		.n = prep->n,
	};
	if (opt->time_budget_ms > 0)
		sp.deadline = z.deadline = t0 + opt->time_budget_ms;
	collect_sums(&z);
	btc_sched_z3_start(&z.ctx, &z.s);
	z.bs = Z3_mk_bool_sort(z.ctx);
	btc_zx_rank(&z, opt, res);
	if (z.expired || sp.expired)
		res->optimal = false;
	qsort(res->candidates, (size_t)res->n_candidates, sizeof(*res->candidates),
	      btc_sched_qsort_tmax);
	res->n_checks = z.checks;
	btc_sched_z3_stop(z.ctx, z.s);
	free(z.y);
	free(z.rstart);
	free(z.rcount);
	free(z.z);
	free(z.st);
	free(z.vals);
	free(z.below);
	free(z.sums);
	free(z.guards);
	free(z.assume);
	btc_space_free(&sp);
	res->solve_ms = btc_sched_now_ms() - t0;
	return BTC_OK;
}
