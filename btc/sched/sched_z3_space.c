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
 * enumeration of sched_z3.c, falling back to one candidate at a time. */
#include "sched/optimizer.h"
#include "sched/space.h"

#include <stdlib.h>
#include <string.h>
#include <z3.h>

enum gkind { G_TMAX_LE, G_TMIN_GE, G_GAP_LE };
enum key { K_TMAX, K_GAP };

struct guard {
	enum gkind kind;
	int64_t value;
	Z3_ast lit;
};

struct ych {
	int o, f, l;
	int64_t cost;
	Z3_ast lit;
};

struct zx {
	Z3_context ctx;
	Z3_solver s;
	Z3_sort bs;
	const struct btc_sched_problem *p;
	const struct btc_sched_prep *prep;
	struct btc_space *sp;
	int n;
	struct ych *y; /* encoded chunks, ordered by (f, l, o) */
	int n_y;
	int *rstart, *rcount; /* [n * n]: the y of range (f, l) */
	Z3_ast *z;            /* [n * n] range literal, or NULL */
	Z3_ast *st;           /* [n + 1] start literal, NULL at 0 and n */
	int64_t *vals;        /* distinct costs of the y, ascending */
	int n_vals;
	Z3_ast *below; /* [n_vals]; [0] unused */
	int64_t *sums; /* distinct costs of every chunk of the space */
	int n_sums;
	unsigned next_sym;
	struct guard *guards;
	int n_guards, cap_guards;
	Z3_ast *assume;
	int n_assume, cap_assume;
	struct btc_schedule cur; /* the last model */
	int cur_y[BTC_SCHED_MAX_PUS];
	int cur_n;
	int64_t v1;    /* min_tmax0's cache, 0: not computed */
	bool filtered; /* bt's filter, with G* gstar */
	int64_t gstar;
	double deadline;
	bool expired;
	long checks;
};

static Z3_ast fresh(struct zx *z)
{
	return Z3_mk_const(z->ctx, Z3_mk_int_symbol(z->ctx, (int)z->next_sym++), z->bs);
}

static Z3_ast neg(struct zx *z, Z3_ast a)
{
	return Z3_mk_not(z->ctx, a);
}

static void add(struct zx *z, Z3_ast f)
{
	Z3_solver_assert(z->ctx, z->s, f);
}

static void clause(struct zx *z, unsigned k, Z3_ast *lits)
{
	add(z, k == 1 ? lits[0] : Z3_mk_or(z->ctx, k, lits));
}

static void clause2(struct zx *z, Z3_ast a, Z3_ast b)
{
	Z3_ast c[2] = {a, b};
	clause(z, 2, c);
}

static int cmp_i64p(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* Sorts and deduplicates v[0..k); returns the new count. */
static int distinct(int64_t *v, int k)
{
	qsort(v, (size_t)k, sizeof(int64_t), cmp_i64p);
	int m = 0;
	for (int j = 0; j < k; j++)
		if (m == 0 || v[m - 1] != v[j])
			v[m++] = v[j];
	return m;
}

/* First index j with a[j] >= v (n if none). */
static int first_ge(const int64_t *a, int n, int64_t v)
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
static void encode(struct zx *z, const unsigned char *useful)
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
		z->st[i] = fresh(z);
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
							      fresh(z)};
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
			Z3_ast zl = fresh(z);
			z->z[r] = zl;
			lits[k++] = zl;
			Z3_ast *ys = btc_xmalloc(sizeof(Z3_ast) * (size_t)(m + 1));
			for (int j = 0; j < m; j++) {
				ys[j] = z->y[z->rstart[r] + j].lit;
				clause2(z, neg(z, ys[j]), zl);
			}
			ys[m] = neg(z, zl);
			clause(z, (unsigned)m + 1, ys);
			if (m > 1)
				add(z, Z3_mk_atmost(z->ctx, (unsigned)m, ys, 1));
			free(ys);
			if (f > 0)
				clause2(z, neg(z, zl), z->st[f]);
			if (l + 1 < n)
				clause2(z, neg(z, zl), z->st[l + 1]);
			for (int j = f + 1; j <= l; j++)
				clause2(z, neg(z, zl), neg(z, z->st[j]));
		}
		if (f > 0)
			lits[k++] = neg(z, z->st[f]);
		if (k == 0)
			add(z, Z3_mk_false(z->ctx)); /* no chunk can start at 0 */
		else
			clause(z, k, lits);
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
		z->below[j] = fresh(z);
	for (int j = 1; j + 1 < z->n_vals; j++)
		clause2(z, neg(z, z->below[j]), z->below[j + 1]);
	for (int j = 0; j < z->n_y; j++) {
		int i = first_ge(z->vals, z->n_vals, z->y[j].cost);
		if (i + 1 < z->n_vals)
			clause2(z, neg(z, z->y[j].lit), z->below[i + 1]);
	}
}

/* !g | !y | !below[threshold] for every y: some chosen chunk costs less
 * than thr(cost(y)) rules y out; g NULL: unguarded. */
static void below_clauses(struct zx *z, Z3_ast g, int64_t (*thr)(const struct zx *, int64_t),
			  int64_t arg)
{
	for (int j = 0; j < z->n_y; j++) {
		int64_t t = thr(z, z->y[j].cost) - arg;
		int i = first_ge(z->vals, z->n_vals, t);
		if (i < 1 || i >= z->n_vals)
			continue;
		Z3_ast c[3];
		unsigned k = 0;
		if (g)
			c[k++] = neg(z, g);
		c[k++] = neg(z, z->y[j].lit);
		c[k++] = neg(z, z->below[i]);
		clause(z, k, c);
	}
}

static int64_t thr_gap(const struct zx *z, int64_t cost)
{
	(void)z;
	return cost;
}

/* bt's filter: T_min >= ceil((a T_max - b G*) / b). */
static int64_t filter_lo(const struct zx *z, int64_t v)
{
	if (!z->filtered)
		return 0;
	int64_t a = z->prep->util_num, b = z->prep->util_den;
	int64_t num = a * v - b * z->gstar;
	return num <= 0 ? 0 : (num + b - 1) / b;
}

static Z3_ast guard(struct zx *z, enum gkind kind, int64_t value)
{
	for (int j = 0; j < z->n_guards; j++)
		if (z->guards[j].kind == kind && z->guards[j].value == value)
			return z->guards[j].lit;
	Z3_ast g = fresh(z);
	if (kind == G_GAP_LE) {
		below_clauses(z, g, thr_gap, value);
	} else {
		for (int j = 0; j < z->n_y; j++) {
			int64_t c = z->y[j].cost;
			if (kind == G_TMAX_LE ? c > value : c < value)
				clause2(z, neg(z, g), neg(z, z->y[j].lit));
		}
	}
	if (z->n_guards == z->cap_guards) {
		z->cap_guards = z->cap_guards ? 2 * z->cap_guards : 64;
		z->guards = btc_xrealloc(z->guards, sizeof(*z->guards) * (size_t)z->cap_guards);
	}
	z->guards[z->n_guards++] = (struct guard){kind, value, g};
	return g;
}

static Z3_ast key_guard(struct zx *z, enum key k, int64_t v, int64_t fixed_tmax)
{
	if (k == K_TMAX)
		return guard(z, G_TMAX_LE, v);
	if (fixed_tmax >= 0)
		return guard(z, G_TMIN_GE, fixed_tmax - v);
	return guard(z, G_GAP_LE, v);
}

/* ---- checks ---- */

static void assume_reset(struct zx *z, int keep)
{
	z->n_assume = keep;
}

static void assume(struct zx *z, Z3_ast lit)
{
	if (z->n_assume == z->cap_assume) {
		z->cap_assume = z->cap_assume ? 2 * z->cap_assume : 64;
		z->assume = btc_xrealloc(z->assume, sizeof(Z3_ast) * (size_t)z->cap_assume);
	}
	z->assume[z->n_assume++] = lit;
}

static bool is_true(struct zx *z, Z3_model m, Z3_ast a)
{
	Z3_ast v;
	return Z3_model_eval(z->ctx, m, a, true, &v) && Z3_get_bool_value(z->ctx, v) == Z3_L_TRUE;
}

/* The model's chunks, walked from stage 0 along the ranges. */
static void read_model(struct zx *z, Z3_model m)
{
	int n = z->n, k = 0, co[BTC_SCHED_MAX_PUS], cf[BTC_SCHED_MAX_PUS], cl[BTC_SCHED_MAX_PUS];
	for (int f = 0; f < n;) {
		int found = -1;
		for (int l = f; l < n && found < 0; l++) {
			int r = f * n + l;
			if (!z->z[r] || !is_true(z, m, z->z[r]))
				continue;
			for (int j = 0; j < z->rcount[r] && found < 0; j++)
				if (is_true(z, m, z->y[z->rstart[r] + j].lit))
					found = z->rstart[r] + j;
		}
		if (found < 0 || k == BTC_SCHED_MAX_PUS)
			btc_panic("Z3 model has no chunk from stage %d", f);
		z->cur_y[k] = found;
		co[k] = z->y[found].o;
		cf[k] = f;
		cl[k] = z->y[found].l;
		k++;
		f = z->y[found].l + 1;
	}
	z->cur_n = k;
	btc_space_schedule(z->p, z->sp, co, cf, cl, k, &z->cur);
}

static int check(struct zx *z)
{
	if (z->expired)
		return -1;
	if (z->deadline > 0) {
		double left = z->deadline - btc_sched_now_ms();
		if (left < 1) {
			z->expired = true;
			return -1;
		}
		Z3_params prm = Z3_mk_params(z->ctx);
		Z3_params_inc_ref(z->ctx, prm);
		Z3_params_set_uint(z->ctx, prm, Z3_mk_string_symbol(z->ctx, "timeout"),
				   (unsigned)left);
		Z3_solver_set_params(z->ctx, z->s, prm);
		Z3_params_dec_ref(z->ctx, prm);
	}
	z->checks++;
	Z3_lbool r = Z3_solver_check_assumptions(z->ctx, z->s, (unsigned)z->n_assume, z->assume);
	if (r == Z3_L_UNDEF) {
		z->expired = true;
		return -1;
	}
	if (r == Z3_L_FALSE)
		return 0;
	Z3_model m = Z3_solver_get_model(z->ctx, z->s);
	Z3_model_inc_ref(z->ctx, m);
	read_model(z, m);
	Z3_model_dec_ref(z->ctx, m);
	return 1;
}

static int64_t key_of(const struct btc_schedule *s, enum key k)
{
	return k == K_TMAX ? s->tmax_q : s->gap_q;
}

/* Blocks the model's schedule (under g when not NULL): C5. */
static void block(struct zx *z, Z3_ast g)
{
	Z3_ast c[BTC_SCHED_MAX_PUS + 1];
	unsigned k = 0;
	for (int j = 0; j < z->cur_n; j++)
		c[k++] = neg(z, z->y[z->cur_y[j]].lit);
	if (g)
		c[k++] = neg(z, g);
	clause(z, k, c);
}

/* Minimises key k over the first `keep` assumptions from the model in
 * z->cur (as in sched_z3.c). Returns 0, or -1 on expiry. */
static int minimise(struct zx *z, int keep, enum key k, int64_t lo, bool probe_lo,
		    int64_t fixed_tmax, int64_t *val)
{
	struct btc_schedule best = z->cur;
	int best_y[BTC_SCHED_MAX_PUS], best_n = z->cur_n;
	memcpy(best_y, z->cur_y, sizeof(best_y));
	int64_t hi = key_of(&z->cur, k);
	int rc = 0;
	while (lo < hi) {
		int64_t mid = probe_lo ? lo : lo + (hi - lo) / 2;
		probe_lo = false;
		if (k == K_TMAX && fixed_tmax < 0) {
			int a = first_ge(z->vals, z->n_vals, lo), b = first_ge(z->vals, z->n_vals, hi);
			if (a >= b) {
				lo = hi;
				break;
			}
			mid = z->vals[a + (b - a - 1) / 2];
		}
		assume_reset(z, keep);
		assume(z, key_guard(z, k, mid, fixed_tmax));
		int r = check(z);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 1) {
			hi = key_of(&z->cur, k);
			best = z->cur;
			best_n = z->cur_n;
			memcpy(best_y, z->cur_y, sizeof(best_y));
		} else {
			lo = mid + 1;
		}
	}
	z->cur = best;
	z->cur_n = best_n;
	memcpy(z->cur_y, best_y, sizeof(best_y));
	assume_reset(z, keep);
	*val = hi;
	return rc;
}

/* The index of the model's chunk over stage i. */
static int chunk_at(const struct zx *z, int i)
{
	for (int k = 0; k < z->cur_n; k++)
		if (z->y[z->cur_y[k]].l >= i)
			return z->cur_y[k];
	btc_panic("no chunk over stage %d", i);
}

/* A fresh literal that implies "stage i lies in a chunk whose code is
 * below (`less`) or equal to `code`"; NULL when no chunk qualifies. */
static Z3_ast code_lit(struct zx *z, int i, uint64_t code, bool less)
{
	Z3_ast *c = btc_xmalloc(sizeof(Z3_ast) * (size_t)(z->n_y + 1));
	unsigned k = 0;
	Z3_ast v = fresh(z);
	c[k++] = neg(z, v);
	for (int j = 0; j < z->n_y; j++) {
		const struct ych *y = &z->y[j];
		uint64_t cj = z->sp->opts[y->o].code;
		if (y->f <= i && i <= y->l && (less ? cj < code : cj == code))
			c[k++] = y->lit;
	}
	if (k > 1)
		clause(z, k, c);
	free(c);
	return k > 1 ? v : NULL;
}

/* The smallest schedule in vector order (btc_sched_cmp_*: codes stage by
 * stage, then the boundaries, an unbroken run first) under the first
 * `keep` assumptions, from the model in z->cur. Returns 0 or -1. */
static int lexmin(struct zx *z, int keep)
{
	int n = z->n, rc = 0;
	int fixed = keep;
	for (int i = 0; i < n && rc == 0; i++) {
		for (;;) {
			uint64_t code = z->sp->opts[z->y[chunk_at(z, i)].o].code;
			Z3_ast less = code_lit(z, i, code, true);
			if (!less)
				break;
			assume_reset(z, fixed);
			assume(z, less);
			struct btc_schedule keep_s = z->cur;
			int keep_y[BTC_SCHED_MAX_PUS], keep_n = z->cur_n;
			memcpy(keep_y, z->cur_y, sizeof(keep_y));
			int r = check(z);
			if (r == 1)
				continue;
			z->cur = keep_s;
			z->cur_n = keep_n;
			memcpy(z->cur_y, keep_y, sizeof(keep_y));
			if (r < 0)
				rc = -1;
			break;
		}
		assume_reset(z, fixed);
		assume(z, code_lit(z, i, z->sp->opts[z->y[chunk_at(z, i)].o].code, false));
		fixed = z->n_assume;
	}
	for (int i = 1; i < n && rc == 0; i++) {
		bool cut = z->y[chunk_at(z, i)].f == i;
		if (cut) {
			assume_reset(z, fixed);
			assume(z, neg(z, z->st[i]));
			struct btc_schedule keep_s = z->cur;
			int keep_y[BTC_SCHED_MAX_PUS], keep_n = z->cur_n;
			memcpy(keep_y, z->cur_y, sizeof(keep_y));
			int r = check(z);
			if (r != 1) {
				z->cur = keep_s;
				z->cur_n = keep_n;
				memcpy(z->cur_y, keep_y, sizeof(keep_y));
			}
			if (r < 0)
				rc = -1;
			cut = r != 1;
		}
		assume_reset(z, fixed);
		assume(z, cut ? z->st[i] : neg(z, z->st[i]));
		fixed = z->n_assume;
	}
	assume_reset(z, keep);
	return rc;
}

/* ---- the found schedules ---- */

struct found {
	int n, cap;
	struct btc_schedule *s;
};

static void found_add(struct zx *z, struct found *f, Z3_ast g)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->s = btc_xrealloc(f->s, sizeof(*f->s) * (size_t)f->cap);
	}
	f->s[f->n++] = z->cur;
	block(z, g);
}

static int cmp_gap_qsort(const void *x, const void *y)
{
	return btc_sched_cmp_gap(x, y);
}

static void take_best(struct btc_sched_result *res, struct found *f, int K, enum key primary)
{
	qsort(f->s, (size_t)f->n, sizeof(*f->s),
	      primary == K_TMAX ? btc_sched_qsort_tmax : cmp_gap_qsort);
	int m = f->n < K ? f->n : K;
	memcpy(res->candidates, f->s, sizeof(*f->s) * (size_t)m);
	res->n_candidates = m;
}

static int64_t kth_key(const struct found *f, enum key k, int K, int64_t bound)
{
	int64_t *keys = btc_xmalloc(sizeof(int64_t) * (size_t)(f->n + 1));
	int m = 0;
	for (int j = 0; j < f->n; j++) {
		int64_t v = key_of(&f->s[j], k);
		if (v <= bound)
			keys[m++] = v;
	}
	int64_t r = -1;
	if (m >= K) {
		qsort(keys, (size_t)m, sizeof(int64_t), cmp_i64p);
		r = keys[K - 1];
	}
	free(keys);
	return r;
}

/* Finds `count` schedules under the assumptions g and bounds[0..nb), each
 * blocked under g; the presolve counted them, so every check is sat. 0, or
 * -1 expired. */
static int enumerate_n(struct zx *z, struct found *f, Z3_ast g, double count, const Z3_ast *bounds,
		       int nb)
{
	for (int k = 0; k < (int)count; k++) {
		assume_reset(z, 0);
		assume(z, g);
		for (int j = 0; j < nb; j++)
			assume(z, bounds[j]);
		int r = check(z);
		if (r < 0)
			return -1;
		if (r == 0)
			btc_panic("presolve counts %.0f schedules; Z3 finds %d", count, k);
		found_add(z, f, g);
	}
	return 0;
}

/* enumerate_n under T_max <= tmax and T_min >= tmin (tmin 0: none). */
static int enumerate_phase(struct zx *z, struct found *f, Z3_ast g, double count, int64_t tmax,
			   int64_t tmin)
{
	Z3_ast b[2] = {guard(z, G_TMAX_LE, tmax), NULL};
	if (tmin > 0)
		b[1] = guard(z, G_TMIN_GE, tmin);
	return enumerate_n(z, f, g, count, b, tmin > 0 ? 2 : 1);
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
	int i = first_ge(z->sums, z->n_sums, v1), last = -1;
	double at = 0;
	if (!z->filtered) {
		/* no filter: count(0, v) grows with v; galloping, then
		 * bisection for B */
		int a = i, b = i, step = 1;
		for (;;) {
			double c = btc_space_dp_count(z->sp, 0, z->sums[b], false);
			if (c < 0)
				return -1;
			if (c >= K)
				break;
			if (b == z->n_sums - 1) {
				pl->below = c;
				pl->B = z->sums[b] + 1;
				pl->L = pl->L_next = INT64_MAX;
				return c > 0;
			}
			a = b + 1;
			b = b + step < z->n_sums - 1 ? b + step : z->n_sums - 1;
			step *= 2;
		}
		while (a < b) {
			int m = a + (b - a) / 2;
			double c = btc_space_dp_count(z->sp, 0, z->sums[m], false);
			if (c < 0)
				return -1;
			if (c >= K)
				b = m;
			else
				a = m + 1;
		}
		pl->below = btc_space_dp_count(z->sp, 0, z->sums[a] - 1, false);
		if (pl->below < 0)
			return -1;
		last = i = a;
	}
	for (int steps = 0; z->filtered && i < z->n_sums; i++) {
		if (++steps > (btc_space_walk_steps > 0 ? btc_space_walk_steps : WALK_STEPS))
			return 2; /* a long walk: the window does better */
		int64_t v = z->sums[i];
		double c = count_at(z, v, filter_lo(z, v));
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
	int64_t B = z->sums[last], L = filter_lo(z, B);
	double need = K - pl->below;
	int lo = first_ge(z->sums, z->n_sums, L), hi = first_ge(z->sums, z->n_sums, B + 1) - 1;
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
	int nx = first_ge(z->sums, z->n_sums, L + 1);
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
	Z3_ast g = fresh(z);
	int rc = enumerate_phase(z, &f, g, pl->below, pl->B - 1, 0);
	if (rc == 0 && pl->L != INT64_MAX && pl->above_l > 0)
		rc = enumerate_phase(z, &f, g, pl->above_l, pl->B, pl->L_next);
	double need = K - f.n;
	if (rc == 0 && pl->L != INT64_MAX && need > 0) {
		if (pl->tie <= cap) {
			rc = enumerate_phase(z, &f, g, pl->tie, pl->B, pl->L);
		} else {
			/* massive ties: the best `need` by vector order */
			for (int k = 0; k < (int)need && rc == 0; k++) {
				assume_reset(z, 0);
				assume(z, g);
				assume(z, guard(z, G_TMAX_LE, pl->B));
				assume(z, guard(z, G_TMIN_GE, pl->L));
				int r = check(z);
				if (r == 0)
					btc_panic("presolve counts %.0f tied schedules; Z3 finds %d",
						  pl->tie, k);
				rc = r < 0 ? -1 : lexmin(z, 3);
				if (rc == 0)
					found_add(z, &f, g);
			}
		}
	}
	if (rc < 0)
		res->optimal = false;
	take_best(res, &f, K, K_TMAX);
	free(f.s);
	assume_reset(z, 0);
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
	int64_t a = gstar, b = gstar, step = 1;
	for (;;) {
		double c = gap_count(z, b, NULL);
		if (c < 0)
			return -1;
		if (c >= K)
			break;
		if (b >= maxw) {
			pl->all = true;
			pl->below = c;
			pl->G = maxw;
			return 1;
		}
		a = b + 1;
		b = b + step < maxw ? b + step : maxw;
		step *= 2;
	}
	while (a < b) {
		int64_t m = a + (b - a) / 2;
		double c = gap_count(z, m, NULL);
		if (c < 0)
			return -1;
		if (c >= K)
			b = m;
		else
			a = m + 1;
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
	Z3_ast g = fresh(z);
	int rc = 0;
	if (pl->all) {
		rc = enumerate_n(z, &f, g, pl->below, NULL, 0);
	} else {
		Z3_ast b[3];
		if (pl->below > 0) {
			b[0] = guard(z, G_GAP_LE, pl->G - 1);
			rc = enumerate_n(z, &f, g, pl->below, b, 1);
		}
		b[0] = guard(z, G_GAP_LE, pl->G);
		if (rc == 0 && pl->before > 0) {
			b[1] = guard(z, G_TMAX_LE, pl->LK + pl->G - 1);
			rc = enumerate_n(z, &f, g, pl->before, b, 2);
		}
		b[1] = guard(z, G_TMAX_LE, pl->LK + pl->G);
		b[2] = guard(z, G_TMIN_GE, pl->LK);
		double need = K - f.n;
		if (rc == 0 && pl->at <= cap) {
			rc = enumerate_n(z, &f, g, pl->at, b, 3);
		} else {
			for (int k = 0; k < (int)need && rc == 0; k++) {
				assume_reset(z, 0);
				assume(z, g);
				for (int j = 0; j < 3; j++)
					assume(z, b[j]);
				int r = check(z);
				if (r == 0)
					btc_panic("presolve counts %.0f tied schedules; Z3 finds %d",
						  pl->at, k);
				rc = r < 0 ? -1 : lexmin(z, 4);
				if (rc == 0)
					found_add(z, &f, g);
			}
		}
	}
	if (rc < 0)
		res->optimal = false;
	take_best(res, &f, K, K_GAP);
	free(f.s);
	assume_reset(z, 0);
}

/* ---- window enumeration and the one-at-a-time ranking ---- */

static void push_candidate(struct zx *z, struct btc_sched_result *res, int cap)
{
	if (res->n_candidates == cap)
		btc_panic("more candidates than K");
	res->candidates[res->n_candidates++] = z->cur;
}

/* The K best in the order (primary, secondary, vector), one at a time. */
static void enumerate_exact(struct zx *z, struct btc_sched_result *res, int K, enum key primary,
			    enum key secondary)
{
	int64_t prev_p = -1, prev_s = -1;
	while (res->n_candidates < K) {
		assume_reset(z, 0);
		int r;
		if (prev_p >= 0) {
			assume(z, key_guard(z, primary, prev_p, -1));
			r = check(z);
			if (r == 0) {
				assume_reset(z, 0);
				r = check(z);
			}
		} else {
			r = check(z);
		}
		if (r < 0)
			break;
		if (r == 0)
			return;
		assume_reset(z, 0);
		int64_t pv, sv;
		if (minimise(z, 0, primary, prev_p >= 0 ? prev_p : 0, false, -1, &pv) < 0)
			break;
		assume(z, key_guard(z, primary, pv, -1));
		int64_t fixed = primary == K_TMAX ? pv : -1;
		bool same = pv == prev_p;
		if (minimise(z, 1, secondary, same ? prev_s : 0, same, fixed, &sv) < 0)
			break;
		assume(z, key_guard(z, secondary, sv, fixed));
		if (lexmin(z, 2) < 0)
			break;
		push_candidate(z, res, K);
		block(z, NULL);
		prev_p = pv;
		prev_s = sv;
	}
	if (z->expired)
		res->optimal = false;
}

/* As sched_z3.c's enumerate_window: every schedule with primary key <= B,
 * B growing from the minimum until K lie below, shrinking to the K-th key.
 * 1 done, 0 window over cap, -1 expired. */
static int enumerate_window(struct zx *z, struct btc_sched_result *res, int K, enum key primary,
			    int64_t lo, int cap)
{
	struct found f = {0};
	int rc = 1;
	assume_reset(z, 0);
	int r = check(z);
	if (r <= 0)
		return r;
	Z3_ast g = fresh(z);
	int64_t v1;
	if (minimise(z, 0, primary, lo, lo > 0, -1, &v1) < 0) {
		found_add(z, &f, g);
		rc = -1;
		goto out;
	}
	int64_t maxkey = z->n_vals ? z->vals[z->n_vals - 1] : 0;
	int64_t w = z->cur.tmax_q / 64;
	w = w > 0 ? w : 1;
	found_add(z, &f, g);
	int64_t B = v1 + w < maxkey ? v1 + w : maxkey;
	for (;;) {
		if (f.n > cap) {
			rc = 0;
			break;
		}
		assume_reset(z, 0);
		assume(z, g);
		assume(z, key_guard(z, primary, B, -1));
		r = check(z);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 1) {
			found_add(z, &f, g);
			int64_t kth = kth_key(&f, primary, K, B);
			if (kth >= 0)
				B = kth;
			continue;
		}
		if (B >= maxkey || kth_key(&f, primary, K, B) >= 0)
			break;
		w *= 2;
		B = v1 + w < maxkey ? v1 + w : maxkey;
	}
out:
	if (rc != 0) {
		take_best(res, &f, K, primary);
		if (rc < 0)
			res->optimal = false;
	}
	free(f.s);
	assume_reset(z, 0);
	return rc;
}

/* G* by the presolve (sched_z3.c's dp_gstar over the space's costs); -1
 * when unavailable. */
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
	int a = 0, b = z->n_sums - 1;
	while (a < b) {
		int m = a + (b - a + 1) / 2;
		int64_t t = btc_space_dp_min_tmax(sp, z->sums[m], INT64_MAX);
		if (t < 0)
			return -1;
		if (t != INT64_MAX)
			a = m;
		else
			b = m - 1;
	}
	int i0 = first_ge(z->sums, z->n_sums, v1 + 1) - 1;
	i0 = i0 > a ? a : i0;
	int64_t best = INT64_MAX;
	for (int i = i0; i >= 0 && best > 0; i--) {
		int64_t L = z->sums[i];
		if (best != INT64_MAX && L <= v1 - best)
			break;
		int64_t m = btc_space_dp_min_tmax(sp, L, INT64_MAX);
		if (m < 0)
			return -1;
		if (m != INT64_MAX && m - L < best)
			best = m - L;
	}
	for (int i = i0 + 1; i <= a && best > 0;) {
		int64_t L = z->sums[i];
		int64_t m = btc_space_dp_min_tmax(sp, L, INT64_MAX);
		if (m < 0)
			return -1;
		if (m == INT64_MAX)
			break;
		if (m - L < best)
			best = m - L;
		int next = first_ge(z->sums, z->n_sums, m - best + 1);
		i = next > i + 1 ? next : i + 1;
	}
	return best;
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

static void start_z3(struct zx *z)
{
	btc_sched_z3_memory();
	Z3_global_param_set("sat.random_seed", "0");
	Z3_global_param_set("smt.random_seed", "0");
	Z3_config cfg = Z3_mk_config();
	Z3_set_param_value(cfg, "model", "true");
	z->ctx = Z3_mk_context(cfg);
	Z3_del_config(cfg);
	z->bs = Z3_mk_bool_sort(z->ctx);
	z->s = Z3_mk_simple_solver(z->ctx);
	Z3_solver_inc_ref(z->ctx, z->s);
	/* ctrl_c off, as in sched_z3.c (btc keeps its own SIGINT handler) */
	Z3_params prm = Z3_mk_params(z->ctx);
	Z3_params_inc_ref(z->ctx, prm);
	Z3_params_set_bool(z->ctx, prm, Z3_mk_string_symbol(z->ctx, "ctrl_c"), false);
	Z3_solver_set_params(z->ctx, z->s, prm);
	Z3_params_dec_ref(z->ctx, prm);
}

static void assert_filter(struct zx *z)
{
	if (z->filtered)
		below_clauses(z, NULL, filter_lo, 0);
}

/* Level 1 of bt: G* (presolve, else Z3 over every chunk). Returns 1 found,
 * 0 no candidate, -1 expired. */
static int level1(struct zx *z, struct btc_sched_result *res)
{
	int64_t gstar = dp_gstar(z);
	if (gstar < 0) {
		if (!z->y)
			encode(z, NULL);
		assume_reset(z, 0);
		int r = check(z);
		if (r <= 0)
			return r;
		if (minimise(z, 0, K_GAP, 0, false, -1, &gstar) < 0)
			return -1;
	}
	res->gstar_q = gstar;
	res->gstar_ms = (double)gstar * (double)z->prep->quantum_ns / 1e6;
	if (z->prep->util_num > 0) {
		z->filtered = true;
		z->gstar = gstar;
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
	int i = first_ge(z->sums, z->n_sums, v1), step = 1;
	for (;;) {
		int64_t v = z->sums[i];
		double c = btc_space_dp_count(z->sp, filter_lo(z, v), v, false);
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

static void rank(struct zx *z, const struct btc_sched_options *opt, struct btc_sched_result *res)
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
	if (primary == K_TMAX && z->sp->dp_ok) {
		struct plan pl;
		int r = count_plan(z, K, &pl);
		if (r == 0)
			return;
		if (r == 2)
			pruned = window_chunks(z, K);
		if (r == 1) {
			unsigned char *useful = btc_xmalloc((size_t)z->sp->n_opts * (size_t)z->n *
							    (size_t)z->n);
			int64_t hi = pl.B < INT64_MAX ? pl.B : INT64_MAX;
			if (btc_space_dp_useful(z->sp, 0, hi, useful) == 0 && !z->y) {
				encode(z, useful);
				assert_filter(z);
				free(useful);
				enumerate_plan(z, res, K, cap, &pl);
				return;
			}
			free(useful);
		}
		if (z->sp->expired) {
			res->optimal = false;
			return;
		}
	}
	if (primary == K_GAP && z->sp->dp_ok) {
		struct gplan gp;
		if (gap_plan(z, K, &gp) > 0) {
			size_t m = (size_t)z->sp->n_opts * (size_t)z->n * (size_t)z->n;
			unsigned char *useful = btc_xcalloc(m, 1);
			if (gap_count(z, gp.G, useful) >= 0 && !z->y) {
				encode(z, useful);
				free(useful);
				enumerate_gap_plan(z, res, K, cap, &gp);
				return;
			}
			free(useful);
		}
		if (z->sp->expired) {
			res->optimal = false;
			return;
		}
	}
	if (!z->y)
		encode(z, pruned);
	free(pruned);
	assert_filter(z);
	int64_t lo = primary == K_TMAX && z->sp->dp_ok ? min_tmax0(z) : 0;
	lo = lo > 0 ? lo : 0;
	if (primary == K_GAP) {
		int64_t g = dp_gstar(z);
		lo = g > 0 ? g : 0;
	}
	if (enumerate_window(z, res, K, primary, lo, cap) == 0) {
		res->n_candidates = 0;
		enumerate_exact(z, res, K, primary, primary == K_TMAX ? K_GAP : K_TMAX);
	}
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
	start_z3(&z);
	rank(&z, opt, res);
	if (z.expired || sp.expired)
		res->optimal = false;
	qsort(res->candidates, (size_t)res->n_candidates, sizeof(*res->candidates),
	      btc_sched_qsort_tmax);
	res->n_checks = z.checks;
	Z3_solver_dec_ref(z.ctx, z.s);
	Z3_del_context(z.ctx);
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
