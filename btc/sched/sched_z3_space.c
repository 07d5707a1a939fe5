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
 * This file holds the encoding and the bounds' guards; the model of the
 * encoding (the ops of the one Z3 layer, sched_z3.h: reading a check's
 * model, C5 blocking, lexmin) and the enumerations are
 * sched_z3_space_query.c, the search sched_space_rank.c, the solver's
 * entry (btc_space_solve_z3) sched_z3_space_solve.c. */
#include "sched/z3_space.h"

#include <stdlib.h>
#include <string.h>

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
			btc_z3_add(&z->b, Z3_mk_atmost(z->b.ctx, k, lits, 1));
		else
			btc_z3_add(&z->b, Z3_mk_pble(z->b.ctx, k, lits, coef, sp->cap[c]));
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
		z->st[i] = btc_z3_fresh(&z->b);
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
							      btc_z3_fresh(&z->b)};
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
			Z3_ast zl = btc_z3_fresh(&z->b);
			z->z[r] = zl;
			lits[k++] = zl;
			Z3_ast *ys = btc_xmalloc(sizeof(Z3_ast) * (size_t)(m + 1));
			for (int j = 0; j < m; j++) {
				ys[j] = z->y[z->rstart[r] + j].lit;
				btc_z3_clause2(&z->b, btc_z3_not(&z->b, ys[j]), zl);
			}
			ys[m] = btc_z3_not(&z->b, zl);
			btc_zx_clause(z, (unsigned)m + 1, ys);
			if (m > 1)
				btc_z3_add(&z->b, Z3_mk_atmost(z->b.ctx, (unsigned)m, ys, 1));
			free(ys);
			if (f > 0)
				btc_z3_clause2(&z->b, btc_z3_not(&z->b, zl), z->st[f]);
			if (l + 1 < n)
				btc_z3_clause2(&z->b, btc_z3_not(&z->b, zl), z->st[l + 1]);
			for (int j = f + 1; j <= l; j++)
				btc_z3_clause2(&z->b, btc_z3_not(&z->b, zl), btc_z3_not(&z->b, z->st[j]));
		}
		if (f > 0)
			lits[k++] = btc_z3_not(&z->b, z->st[f]);
		if (k == 0)
			btc_z3_add(&z->b, Z3_mk_false(z->b.ctx)); /* no chunk can start at 0 */
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
			btc_z3_add(&z->b, Z3_mk_atmost(z->b.ctx, k, lits, (unsigned)sp->kmax));
	}
	free(lits);
	/* the below chain over the distinct costs */
	z->vals = btc_xmalloc(sizeof(int64_t) * (size_t)(z->n_y + 1));
	for (int j = 0; j < z->n_y; j++)
		z->vals[j] = z->y[j].cost;
	z->n_vals = distinct(z->vals, z->n_y);
	z->b.tmax_vals = z->vals; /* T_max bisects over the encoded costs */
	z->b.n_tmax_vals = z->n_vals;
	z->below = btc_xcalloc((size_t)z->n_vals + 1, sizeof(Z3_ast));
	for (int j = 1; j < z->n_vals; j++)
		z->below[j] = btc_z3_fresh(&z->b);
	for (int j = 1; j + 1 < z->n_vals; j++)
		btc_z3_clause2(&z->b, btc_z3_not(&z->b, z->below[j]), z->below[j + 1]);
	for (int j = 0; j < z->n_y; j++) {
		int i = btc_z3_first_ge(z->vals, z->n_vals, z->y[j].cost);
		if (i + 1 < z->n_vals)
			btc_z3_clause2(&z->b, btc_z3_not(&z->b, z->y[j].lit), z->below[i + 1]);
	}
}

/* !g | !y | !below[threshold] for every y: some chosen chunk costs less
 * than thr(cost(y)) rules y out; g NULL: unguarded. */
void btc_zx_below_clauses(struct zx *z, Z3_ast g, int64_t (*thr)(const struct zx *, int64_t),
			  int64_t arg)
{
	for (int j = 0; j < z->n_y; j++) {
		int64_t t = thr(z, z->y[j].cost) - arg;
		int i = btc_z3_first_ge(z->vals, z->n_vals, t);
		if (i < 1 || i >= z->n_vals)
			continue;
		Z3_ast c[3];
		unsigned k = 0;
		if (g)
			c[k++] = btc_z3_not(&z->b, g);
		c[k++] = btc_z3_not(&z->b, z->y[j].lit);
		c[k++] = btc_z3_not(&z->b, z->below[i]);
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
	if (!z->b.filtered)
		return 0;
	int64_t a = z->prep->util_num, b = z->prep->util_den;
	int64_t num = a * v - b * z->b.gstar;
	return num <= 0 ? 0 : (num + b - 1) / b;
}

void btc_zx_encode_guard(struct btc_z3 *b, Z3_ast g, enum guard_kind kind, int64_t value)
{
	struct zx *z = btc_zx(b);
	if (kind == G_GAP_LE) {
		btc_zx_below_clauses(z, g, thr_gap, value);
		return;
	}
	for (int j = 0; j < z->n_y; j++) {
		int64_t c = z->y[j].cost;
		if (kind == G_TMAX_LE ? c > value : c < value)
			btc_z3_clause2(b, btc_z3_not(b, g), btc_z3_not(b, z->y[j].lit));
	}
}

void btc_zx_collect_sums(struct zx *z)
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
