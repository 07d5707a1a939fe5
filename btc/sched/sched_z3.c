/* BT-Optimizer with the Z3 C API (paper Sec. III-D).
 *
 * Encoding (docs/scheduler.md): Boolean x[i][c] for every allowed (stage,
 * PU) pair only. C1: at least one and at most one x per stage. C2
 * (contiguity): ended[i][c] says PU c's chunk ended before stage i;
 * x[i-1][c] & !x[i][c] -> ended[i][c], ended[i][c] -> ended[i+1][c],
 * ended[i][c] -> !x[i][c]. used[c] <-> OR_i x[i][c]. Multi-chunk: stage 0
 * and stage n-1 are not on the same PU. Times are integer quanta, so every
 * bound on a chunk sum is a pseudo-Boolean constraint over the x of one or
 * two PUs and the whole problem stays in Z3's SAT core (logic QF_FD, native
 * PB constraints, incremental with assumptions):
 *   C3a  T_max <= B : sum_i t[i][c] x[i][c] <= B                  per PU c
 *   C3b  T_min >= L : sum_i t[i][c] x[i][c] + L !used[c] >= L     per PU c
 *   O1   gap <= G   : used[d] -> T_c - T_d <= G                   per pair
 * Each bound is guarded by a literal g (g -> constraint) created once per
 * value and switched on by assumption, so one solver serves every query.
 * A found schedule is excluded by a blocking clause (C5).
 *
 * Search: the candidates come out one by one in the objective's total
 * order: bisection on the primary key (T_max or gapness; the previous
 * candidate's value is a lower bound and is probed first), bisection on the
 * secondary key under the primary's value, then the lexicographically
 * smallest stage-to-PU vector under both (greedy, stage by stage, asking for
 * a lower PU through assumptions !x[i][d], d >= current). The result is
 * therefore exactly the oracle's ranking, independent of Z3's choices. */
#include "sched/optimizer.h"
#include "sched/model.h"
#include "sched/space.h"
#include "sched/sched_z3.h"

#include <stdlib.h>
#include <string.h>
#include <z3.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#endif

enum guard_kind { G_TMAX_LE, G_TMIN_GE, G_GAP_LE };

struct guard {
	enum guard_kind kind;
	int64_t value;
	Z3_ast lit;
};

struct z3s {
	Z3_context ctx;
	Z3_solver s;
	Z3_sort bool_sort;
	const struct btc_sched_problem *p;
	const struct btc_sched_prep *prep;
	int n, np;
	Z3_ast *x;       /* [n * np], NULL: not allowed */
	Z3_ast *used;    /* [np], NULL: PU runs nothing */
	int64_t *pu_sum; /* [np] sum of allowed tq */
	/* Chunk model with transfers (prep->xq): y[(f*np+c)*n+l] <-> the
	 * chunk (PU c, stages f..l) exists, for the chunks with X > 0;
	 * NULL otherwise. y_sum[c]: sum of their X quanta. */
	Z3_ast *y;
	int64_t *y_sum;
	int64_t maxcost; /* largest chunk cost: bound on T_max */
	unsigned next_sym;
	struct guard *guards;
	int n_guards, cap_guards;
	Z3_ast *assume; /* scratch: assumptions */
	int n_assume, cap_assume;
	int *a;        /* [n] assignment of the last model */
	int64_t *sums; /* sorted distinct chunk sums: every T_max */
	int n_sums;
	int max_chunks;  /* the option (0 = none), for the presolve */
	bool filtered;   /* bt's utilisation filter is asserted */
	int64_t gstar;   /* G* of that filter, quanta */
	double deadline; /* ms, 0 = none */
	bool expired;
	long checks;
};

static Z3_ast fresh(struct z3s *z)
{
	return Z3_mk_const(z->ctx, Z3_mk_int_symbol(z->ctx, (int)z->next_sym++), z->bool_sort);
}

static Z3_ast X(const struct z3s *z, int i, int c)
{
	return z->x[i * z->np + c];
}

static int64_t TQ(const struct z3s *z, int i, int c)
{
	return z->prep->tq[i * z->np + c];
}

static int64_t XQ(const struct z3s *z, int c, int f, int l)
{
	return z->prep->xq ? z->prep->xq[((size_t)f * (size_t)z->np + (size_t)c) * (size_t)z->n +
					 (size_t)l]
			   : 0;
}

static Z3_ast *Y(const struct z3s *z, int c, int f, int l)
{
	return &z->y[((size_t)f * (size_t)z->np + (size_t)c) * (size_t)z->n + (size_t)l];
}

static void add(struct z3s *z, Z3_ast f)
{
	Z3_solver_assert(z->ctx, z->s, f);
}

static void clause2(struct z3s *z, Z3_ast a, Z3_ast b)
{
	Z3_ast args[2] = {a, b};
	add(z, Z3_mk_or(z->ctx, 2, args));
}

static Z3_ast neg(struct z3s *z, Z3_ast a)
{
	return Z3_mk_not(z->ctx, a);
}

/* The literals of "not the chunk (PU c, stages f..l)" into cl (at most 4):
 * !x[f][c] | x[f-1][c] | !x[l][c] | x[l+1][c]. With C2, x[f] and x[l]
 * put f..l on c, and the two others say the chunk neither starts earlier
 * nor ends later. Returns the count. */
static unsigned not_chunk(struct z3s *z, int c, int f, int l, Z3_ast *cl)
{
	unsigned k = 0;
	cl[k++] = neg(z, X(z, f, c));
	if (f > 0 && X(z, f - 1, c))
		cl[k++] = X(z, f - 1, c);
	if (l != f)
		cl[k++] = neg(z, X(z, l, c));
	if (l + 1 < z->n && X(z, l + 1, c))
		cl[k++] = X(z, l + 1, c);
	return k;
}

/* The chunk variables of the transfer term: y <-> chunk (c, f..l), for
 * every chunk with X_c(f, l) > 0 on an allowed run of stages. */
static void encode_chunks(struct z3s *z)
{
	int n = z->n, np = z->np;
	z->y = btc_xcalloc((size_t)n * (size_t)np * (size_t)n, sizeof(Z3_ast));
	for (int c = 0; c < np; c++)
		for (int f = 0; f < n; f++)
			for (int l = f; l < n && X(z, l, c); l++) {
				if (XQ(z, c, f, l) <= 0)
					continue;
				Z3_ast y = fresh(z), cl[5];
				*Y(z, c, f, l) = y;
				z->y_sum[c] += XQ(z, c, f, l);
				unsigned k = not_chunk(z, c, f, l, cl);
				/* y -> each condition; all conditions -> y */
				for (unsigned j = 0; j < k; j++)
					clause2(z, neg(z, y), neg(z, cl[j]));
				cl[k++] = y;
				add(z, Z3_mk_or(z->ctx, k, cl));
			}
}

/* ---- the formulation: C1, C2, multi-chunk, options ---- */

static void encode(struct z3s *z, const struct btc_sched_options *opt)
{
	Z3_context ctx = z->ctx;
	int n = z->n, np = z->np;
	Z3_ast *lits = btc_xcalloc((size_t)(n > np ? n : np) + 1, sizeof(Z3_ast));

	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++)
			if (TQ(z, i, c) >= 0)
				z->x[i * np + c] = fresh(z);

	/* C1: exactly one PU per stage. */
	for (int i = 0; i < n; i++) {
		int k = 0;
		for (int c = 0; c < np; c++)
			if (X(z, i, c))
				lits[k++] = X(z, i, c);
		add(z, k == 1 ? lits[0] : Z3_mk_or(ctx, (unsigned)k, lits));
		for (int a = 0; a < k; a++)
			for (int b = a + 1; b < k; b++)
				clause2(z, neg(z, lits[a]), neg(z, lits[b]));
	}

	/* used[c] <-> OR_i x[i][c]; C2 contiguity via ended[i][c]. */
	for (int c = 0; c < np; c++) {
		int k = 0;
		for (int i = 0; i < n; i++)
			if (X(z, i, c))
				lits[k++] = X(z, i, c);
		if (k == 0)
			continue;
		z->used[c] = fresh(z);
		for (int j = 0; j < k; j++)
			clause2(z, neg(z, lits[j]), z->used[c]);
		lits[k] = neg(z, z->used[c]);
		add(z, Z3_mk_or(ctx, (unsigned)k + 1, lits));
		for (int i = 0; i < n; i++)
			if (X(z, i, c))
				z->pu_sum[c] += TQ(z, i, c);

		Z3_ast prev_ended = NULL;
		for (int i = 1; i < n; i++) {
			Z3_ast e = fresh(z);
			Z3_ast xp = X(z, i - 1, c), xi = X(z, i, c);
			if (xp) {
				/* x[i-1] & !x[i] -> e */
				Z3_ast cl[3] = {neg(z, xp), e, xi};
				add(z, Z3_mk_or(ctx, xi ? 3 : 2, cl));
			}
			if (prev_ended)
				clause2(z, neg(z, prev_ended), e);
			if (xi)
				clause2(z, neg(z, e), neg(z, xi));
			prev_ended = e;
		}
	}

	/* Multi-chunk: stage 0 and stage n-1 on different PUs (with C2, one
	 * PU on both ends means one chunk). */
	for (int c = 0; c < np; c++)
		if (X(z, 0, c) && X(z, n - 1, c))
			clause2(z, neg(z, X(z, 0, c)), neg(z, X(z, n - 1, c)));
	if (n == 1)
		add(z, Z3_mk_false(ctx));

	/* Option: at most max_chunks chunks (one per used PU). */
	int k = 0;
	for (int c = 0; c < np; c++)
		if (z->used[c])
			lits[k++] = z->used[c];
	if (opt->max_chunks > 0 && opt->max_chunks < k)
		add(z, Z3_mk_atmost(ctx, (unsigned)k, lits, (unsigned)opt->max_chunks));
	free(lits);
}

/* ---- pseudo-Boolean bounds ---- */

/* sum_i coef_c * t[i][c] x[i][c] + coef_d * sum_i t[i][d] !x[i][d]
 * <= rhs (d < 0: no second PU). */
static Z3_ast pb_pair(struct z3s *z, int c, int coef_c, int d, int coef_d, int64_t rhs)
{
	int n = z->n;
	size_t cap = 2 * (size_t)n + 1 + (z->y ? 2 * (size_t)n * (size_t)n : 0);
	Z3_ast *args = btc_xmalloc(sizeof(Z3_ast) * cap);
	int *coefs = btc_xmalloc(sizeof(int) * cap);
	unsigned k = 0;
	/* F_c * used[c]; T_d's F_d is a constant under used[d] */
	if (coef_c > 0 && z->prep->fq[c] > 0) {
		args[k] = z->used[c];
		coefs[k++] = (int)(coef_c * z->prep->fq[c]);
	}
	if (d >= 0)
		rhs += coef_d * z->prep->fq[d];
	/* X: coef_c X y_c, and -coef_d X y_d = coef_d X !y_d - coef_d X */
	for (int f = 0; z->y && f < n; f++)
		for (int l = f; l < n; l++) {
			if (coef_c > 0 && *Y(z, c, f, l)) {
				args[k] = *Y(z, c, f, l);
				coefs[k++] = (int)(coef_c * XQ(z, c, f, l));
			}
			if (d >= 0 && *Y(z, d, f, l)) {
				args[k] = neg(z, *Y(z, d, f, l));
				coefs[k++] = (int)(coef_d * XQ(z, d, f, l));
			}
		}
	if (d >= 0)
		rhs += coef_d * z->y_sum[d];
	for (int i = 0; i < n; i++) {
		if (X(z, i, c) && TQ(z, i, c) > 0 && coef_c > 0) {
			args[k] = X(z, i, c);
			coefs[k++] = (int)(coef_c * TQ(z, i, c));
		}
		if (d >= 0 && X(z, i, d) && TQ(z, i, d) > 0) {
			args[k] = neg(z, X(z, i, d));
			coefs[k++] = (int)(coef_d * TQ(z, i, d));
		}
	}
	if (d >= 0)
		rhs += coef_d * z->pu_sum[d];
	Z3_ast r;
	if (rhs < 0)
		r = Z3_mk_false(z->ctx);
	else if (rhs > INT32_MAX)
		btc_panic("pseudo-Boolean bound overflows (quantum too fine)");
	else
		r = Z3_mk_pble(z->ctx, k, args, coefs, (int)rhs);
	free(args);
	free(coefs);
	return r;
}

/* used[d] -> num * T_c - den * T_d <= den * bound, for all c != d. */
static void assert_pairs(struct z3s *z, Z3_ast g, int num, int den, int64_t bound)
{
	for (int d = 0; d < z->np; d++) {
		if (!z->used[d])
			continue;
		for (int c = 0; c < z->np; c++) {
			if (c == d || !z->used[c])
				continue;
			Z3_ast pre[2] = {z->used[d], g};
			Z3_ast ante = g ? Z3_mk_and(z->ctx, 2, pre) : z->used[d];
			add(z,
			    Z3_mk_implies(z->ctx, ante, pb_pair(z, c, num, d, den, den * bound)));
		}
	}
}

/* Implied constraints from the presolve, under g: a chunk (PU c, stages
 * f..l) on no schedule with T_max <= B cannot occur,
 * !g | !x[f][c] | x[f-1][c] | !x[l][c] | x[l+1][c], and a start (c, f)
 * that begins no such chunk cannot occur, !g | !x[f][c] | x[f-1][c]. They
 * are implied by T_max <= B and the base constraints, and turn most checks
 * under the bound into little more than propagation. */
static void add_useful_clauses(struct z3s *z, Z3_ast g, int64_t B)
{
	int n = z->n, np = z->np;
	unsigned char *useful = btc_xmalloc((size_t)n * (size_t)np * (size_t)n);
	if (btc_sched_dp_useful(z->prep, z->max_chunks, B, useful) < 0) {
		free(useful);
		return;
	}
	for (int c = 0; c < np; c++)
		for (int f = 0; f < n; f++) {
			if (!X(z, f, c))
				continue;
			Z3_ast head[3];
			unsigned k = 0;
			head[k++] = neg(z, g);
			head[k++] = neg(z, X(z, f, c));
			if (f > 0 && X(z, f - 1, c))
				head[k++] = X(z, f - 1, c);
			bool any = false;
			int64_t st = 0;
			for (int l = f; l < n && X(z, l, c); l++) {
				st += TQ(z, l, c);
				if (btc_sched_chunk_q(z->prep, c, f, l, st) > B) {
					if (z->prep->mono)
						break; /* the T_max clauses cover it */
					continue;
				}
				if (useful[((size_t)f * (size_t)np + (size_t)c) * (size_t)n +
					   (size_t)l]) {
					any = true;
					continue;
				}
				Z3_ast cl[5];
				memcpy(cl, head, sizeof(Z3_ast) * k);
				unsigned m = k;
				cl[m++] = neg(z, X(z, l, c));
				if (l + 1 < n && X(z, l + 1, c))
					cl[m++] = X(z, l + 1, c);
				add(z, Z3_mk_or(z->ctx, m, cl));
			}
			if (!any)
				add(z, Z3_mk_or(z->ctx, k, head));
		}
	free(useful);
}

/* C3a, T_max <= B, as clauses: by C2, stages f and l on PU c put f..l on
 * c, so it suffices to forbid, for every first stage f, f together with
 * the first stage L(f)+1 that would push the sum over B:
 * !g | !x[f][c] | !x[L(f)+1][c]. Unit propagation then does the work
 * that pseudo-Boolean reasoning over large coefficients does badly. */
/* Without transfers (prep->mono) a chunk's cost F_c + sum grows with the
 * chunk in both directions, which the clauses above use. With transfers
 * it need not (a longer chunk may keep an intermediate on the device), so
 * every chunk over the bound is forbidden by itself: !g | not_chunk. */
static void chunk_bound_clauses(struct z3s *z, Z3_ast g, int64_t lo, int64_t hi)
{
	for (int c = 0; c < z->np; c++)
		for (int f = 0; f < z->n; f++) {
			int64_t st = 0;
			for (int l = f; l < z->n && X(z, l, c); l++) {
				st += TQ(z, l, c);
				int64_t w = btc_sched_chunk_q(z->prep, c, f, l, st);
				if (w >= lo && w <= hi)
					continue;
				Z3_ast cl[5];
				cl[0] = neg(z, g);
				unsigned k = 1 + not_chunk(z, c, f, l, cl + 1);
				add(z, Z3_mk_or(z->ctx, k, cl));
			}
		}
}

static void tmax_clauses(struct z3s *z, Z3_ast g, int64_t B)
{
	add_useful_clauses(z, g, B);
	if (!z->prep->mono) {
		chunk_bound_clauses(z, g, INT64_MIN, B);
		return;
	}
	for (int c = 0; c < z->np; c++) {
		if (!z->used[c] || z->pu_sum[c] + z->prep->fq[c] <= B)
			continue;
		for (int f = 0; f < z->n; f++) {
			if (!X(z, f, c))
				continue;
			int64_t s = z->prep->fq[c];
			int l = f;
			while (l < z->n && X(z, l, c) && s + TQ(z, l, c) <= B) {
				s += TQ(z, l, c);
				l++;
			}
			if (l == f) {
				clause2(z, neg(z, g), neg(z, X(z, f, c)));
			} else if (l < z->n && X(z, l, c)) {
				Z3_ast cl[3] = {neg(z, g), neg(z, X(z, f, c)), neg(z, X(z, l, c))};
				add(z, Z3_mk_or(z->ctx, 3, cl));
			}
		}
	}
}

/* C3b, T_min >= L, as clauses: a chunk that starts at f on PU c (x[f][c]
 * and not x[f-1][c]) reaches at least the first stage R(f) at which its
 * sum is >= L: !g | !x[f][c] | x[f-1][c] | x[R(f)][c]; without such R
 * the chunk cannot start at f. */
static void tmin_clauses(struct z3s *z, Z3_ast g, int64_t L)
{
	if (L <= 0)
		return;
	if (!z->prep->mono) {
		chunk_bound_clauses(z, g, L, INT64_MAX);
		return;
	}
	for (int c = 0; c < z->np; c++) {
		if (!z->used[c])
			continue;
		for (int f = 0; f < z->n; f++) {
			if (!X(z, f, c))
				continue;
			int64_t s = z->prep->fq[c];
			int r = f;
			while (r < z->n && X(z, r, c)) {
				s += TQ(z, r, c);
				if (s >= L)
					break;
				r++;
			}
			if (r == f)
				continue;
			Z3_ast cl[4];
			unsigned k = 0;
			cl[k++] = neg(z, g);
			cl[k++] = neg(z, X(z, f, c));
			if (f > 0 && X(z, f - 1, c))
				cl[k++] = X(z, f - 1, c);
			if (r < z->n && X(z, r, c))
				cl[k++] = X(z, r, c);
			add(z, Z3_mk_or(z->ctx, k, cl));
		}
	}
}

static Z3_ast guard(struct z3s *z, enum guard_kind kind, int64_t value)
{
	for (int j = 0; j < z->n_guards; j++)
		if (z->guards[j].kind == kind && z->guards[j].value == value)
			return z->guards[j].lit;
	Z3_ast g = fresh(z);
	switch (kind) {
	case G_TMAX_LE:
		tmax_clauses(z, g, value);
		break;
	case G_TMIN_GE:
		tmin_clauses(z, g, value);
		break;
	case G_GAP_LE:
		assert_pairs(z, g, 1, 1, value);
		break;
	}
	if (z->n_guards == z->cap_guards) {
		z->cap_guards = z->cap_guards ? 2 * z->cap_guards : 64;
		z->guards = btc_xrealloc(z->guards, sizeof(*z->guards) * (size_t)z->cap_guards);
	}
	z->guards[z->n_guards++] = (struct guard){kind, value, g};
	return g;
}

/* ---- checks ---- */

static void assume_reset(struct z3s *z, int keep)
{
	z->n_assume = keep;
}

static void assume(struct z3s *z, Z3_ast lit)
{
	if (z->n_assume == z->cap_assume) {
		z->cap_assume = z->cap_assume ? 2 * z->cap_assume : 64;
		z->assume = btc_xrealloc(z->assume, sizeof(Z3_ast) * (size_t)z->cap_assume);
	}
	z->assume[z->n_assume++] = lit;
}

/* Checks under the current assumptions; on sat reads the model into z->a.
 * Returns 1 sat, 0 unsat, -1 unknown (time budget spent). */
static int check(struct z3s *z)
{
	if (z->expired)
		return -1;
	Z3_lbool r = btc_sched_z3_check(z->ctx, z->s, z->deadline, (unsigned)z->n_assume, z->assume,
					&z->checks);
	if (r == Z3_L_UNDEF) {
		z->expired = true;
		return -1;
	}
	if (r == Z3_L_FALSE)
		return 0;
	Z3_model m = Z3_solver_get_model(z->ctx, z->s);
	Z3_model_inc_ref(z->ctx, m);
	for (int i = 0; i < z->n; i++) {
		z->a[i] = -1;
		for (int c = 0; c < z->np && z->a[i] < 0; c++) {
			Z3_ast v;
			if (X(z, i, c) && Z3_model_eval(z->ctx, m, X(z, i, c), true, &v) &&
			    Z3_get_bool_value(z->ctx, v) == Z3_L_TRUE)
				z->a[i] = c;
		}
		if (z->a[i] < 0)
			btc_panic("Z3 model leaves stage %d unassigned", i);
	}
	Z3_model_dec_ref(z->ctx, m);
	return 1;
}

static bool out_of_time(const struct z3s *z)
{
	return z->deadline > 0 && btc_sched_now_ms() > z->deadline;
}

/* ---- keys of the model in z->a ---- */

struct keys {
	int64_t tmax, tmin;
};

static struct keys model_keys(const struct z3s *z)
{
	struct keys k = {0, INT64_MAX};
	for (int f = 0; f < z->n;) {
		int c = z->a[f], l = f;
		int64_t st = TQ(z, f, c);
		while (l + 1 < z->n && z->a[l + 1] == c)
			st += TQ(z, ++l, c);
		int64_t w = btc_sched_chunk_q(z->prep, c, f, l, st);
		k.tmax = w > k.tmax ? w : k.tmax;
		k.tmin = w < k.tmin ? w : k.tmin;
		f = l + 1;
	}
	return k;
}

/* The keys the search minimises. primary/secondary per objective. */
enum key { K_TMAX, K_GAP };

static int64_t key_of(const struct z3s *z, enum key k)
{
	struct keys v = model_keys(z);
	return k == K_TMAX ? v.tmax : v.tmax - v.tmin;
}

/* "key <= v" as a guard literal; `fixed_tmax` >= 0 says T_max is known to
 * equal it for every remaining schedule, so gap <= v is T_min >= tmax - v
 * (one PB per PU instead of one per pair). */
static Z3_ast key_guard(struct z3s *z, enum key k, int64_t v, int64_t fixed_tmax)
{
	if (k == K_TMAX)
		return guard(z, G_TMAX_LE, v);
	if (fixed_tmax >= 0)
		return guard(z, G_TMIN_GE, fixed_tmax - v);
	return guard(z, G_GAP_LE, v);
}

/* Index of the first chunk sum >= v (n_sums if none). */
static int first_sum_ge(const struct z3s *z, int64_t v)
{
	int a = 0, b = z->n_sums;
	while (a < b) {
		int m = a + (b - a) / 2;
		if (z->sums[m] < v)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

static int cmp_i64p(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* Every contiguous range of allowed stages on one PU. */
static void collect_sums(struct z3s *z)
{
	size_t cap = (size_t)z->n * (size_t)(z->n + 1) / 2 * (size_t)z->np;
	z->sums = btc_xmalloc(sizeof(int64_t) * (cap ? cap : 1));
	int k = 0;
	z->maxcost = 0;
	for (int c = 0; c < z->np; c++)
		for (int f = 0; f < z->n; f++) {
			int64_t s = 0;
			for (int l = f; l < z->n && TQ(z, l, c) >= 0; l++) {
				s += TQ(z, l, c);
				int64_t w = btc_sched_chunk_q(z->prep, c, f, l, s);
				z->sums[k++] = w;
				z->maxcost = w > z->maxcost ? w : z->maxcost;
			}
		}
	qsort(z->sums, (size_t)k, sizeof(int64_t), cmp_i64p);
	int m = 0;
	for (int j = 0; j < k; j++)
		if (m == 0 || z->sums[m - 1] != z->sums[j])
			z->sums[m++] = z->sums[j];
	z->n_sums = m;
}

/* Minimises key k over the schedules allowed by the first `keep`
 * assumptions. z->a holds a model of them with key value hi; lo is a
 * proven lower bound; probe_lo tries lo first. On return z->a is a model
 * with the minimum (or, after expiry, the best found) and *val its key.
 * Returns 0, or -1 on expiry. */
static int minimise(struct z3s *z, int keep, enum key k, int64_t lo, bool probe_lo,
		    int64_t fixed_tmax, int64_t *val)
{
	int *best = btc_xmalloc(sizeof(int) * (size_t)z->n);
	memcpy(best, z->a, sizeof(int) * (size_t)z->n);
	int64_t hi = key_of(z, k);
	int rc = 0;
	while (lo < hi) {
		int64_t mid = probe_lo ? lo : lo + (hi - lo) / 2;
		probe_lo = false;
		if (k == K_TMAX && fixed_tmax < 0) {
			/* T_max is a chunk sum: bisect over those in
			 * [lo, hi) instead of over all integers. */
			int a = first_sum_ge(z, lo), b = first_sum_ge(z, hi);
			if (a >= b) {
				lo = hi;
				break;
			}
			mid = z->sums[a + (b - a - 1) / 2];
		}
		assume_reset(z, keep);
		assume(z, key_guard(z, k, mid, fixed_tmax));
		int r = check(z);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 1) {
			hi = key_of(z, k);
			memcpy(best, z->a, sizeof(int) * (size_t)z->n);
		} else {
			lo = mid + 1;
		}
	}
	memcpy(z->a, best, sizeof(int) * (size_t)z->n);
	free(best);
	assume_reset(z, keep);
	*val = hi;
	return rc;
}

/* Lexicographically smallest stage-to-PU vector under the first `keep`
 * assumptions, starting from the model in z->a. Returns 0 or -1. */
static int lexmin(struct z3s *z, int keep)
{
	int n = z->n, np = z->np;
	int *best = btc_xmalloc(sizeof(int) * (size_t)n);
	memcpy(best, z->a, sizeof(int) * (size_t)n);
	uint32_t prefix_used = 0;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		for (;;) {
			int cur = best[i];
			/* A lower PU is possible only if it continues the
			 * previous chunk or has not been used yet. */
			bool any = false;
			for (int c = 0; c < cur && !any; c++)
				any = X(z, i, c) &&
				      ((i > 0 && c == best[i - 1]) || !(prefix_used & (1u << c)));
			if (!any)
				break;
			assume_reset(z, keep);
			for (int j = 0; j < i; j++)
				assume(z, X(z, j, best[j]));
			for (int c = cur; c < np; c++)
				if (X(z, i, c))
					assume(z, neg(z, X(z, i, c)));
			int r = check(z);
			if (r < 0) {
				rc = -1;
				break;
			}
			if (r == 0)
				break;
			memcpy(best, z->a, sizeof(int) * (size_t)n);
		}
		prefix_used |= 1u << best[i];
	}
	memcpy(z->a, best, sizeof(int) * (size_t)n);
	free(best);
	assume_reset(z, keep);
	return rc;
}

static void block(struct z3s *z)
{
	Z3_ast *lits = btc_xmalloc(sizeof(Z3_ast) * (size_t)z->n);
	for (int i = 0; i < z->n; i++)
		lits[i] = neg(z, X(z, i, z->a[i]));
	add(z, Z3_mk_or(z->ctx, (unsigned)z->n, lits));
	free(lits);
}

static void push_candidate(struct z3s *z, struct btc_sched_result *res, int cap)
{
	if (res->n_candidates == cap)
		btc_panic("more candidates than K");
	btc_sched_from_assignment(z->p, z->prep, z->a, &res->candidates[res->n_candidates++]);
}

/* The K best in the order (primary, secondary, vector), one candidate at
 * a time (the fallback of enumerate_window). */
static void enumerate_exact(struct z3s *z, struct btc_sched_result *res, int K, enum key primary,
			    enum key secondary)
{
	int64_t prev_p = -1, prev_s = -1;
	while (res->n_candidates < K) {
		assume_reset(z, 0);
		int64_t pv, sv;
		int r;
		if (prev_p >= 0) {
			/* Ties are likely: probe the previous value first. */
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
			return; /* no schedule left */
		assume_reset(z, 0);
		int64_t lo = prev_p >= 0 ? prev_p : 0;
		if (minimise(z, 0, primary, lo, false, -1, &pv) < 0)
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
		block(z);
		prev_p = pv;
		prev_s = sv;
	}
	if (z->expired) {
		/* z->a holds the best model found before the budget ran out
		 * (a valid, not necessarily optimal, schedule) unless the
		 * very first check of this round expired. */
		res->optimal = false;
		bool have = true;
		for (int i = 0; i < z->n; i++)
			have = have && z->a[i] >= 0;
		if (have && res->n_candidates < K) {
			struct btc_schedule s;
			btc_sched_from_assignment(z->p, z->prep, z->a, &s);
			bool dup = false;
			for (int j = 0; j < res->n_candidates; j++)
				dup = dup || (btc_sched_cmp_tmax(&s, &res->candidates[j]) == 0);
			if (!dup)
				res->candidates[res->n_candidates++] = s;
		}
	}
}

int btc_sched_z3_window_cap;

/* Schedules found by enumerate_window. */
struct found {
	int n, cap;
	struct btc_schedule *s;
};

static int64_t key_of_schedule(const struct btc_schedule *s, enum key k)
{
	return k == K_TMAX ? s->tmax_q : s->gap_q;
}

static void block_under(struct z3s *z, Z3_ast g)
{
	Z3_ast *lits = btc_xmalloc(sizeof(Z3_ast) * (size_t)(z->n + 1));
	for (int i = 0; i < z->n; i++)
		lits[i] = neg(z, X(z, i, z->a[i]));
	lits[z->n] = neg(z, g);
	add(z, Z3_mk_or(z->ctx, (unsigned)z->n + 1, lits));
	free(lits);
}

static void found_add(struct z3s *z, struct found *f, Z3_ast g)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->s = btc_xrealloc(f->s, sizeof(*f->s) * (size_t)f->cap);
	}
	btc_sched_from_assignment(z->p, z->prep, z->a, &f->s[f->n++]);
	block_under(z, g);
}

/* The K-th smallest key among the found schedules with key <= bound, or
 * -1 when fewer than K have. */
static int64_t kth_key(const struct found *f, enum key k, int K, int64_t bound)
{
	int64_t *keys = btc_xmalloc(sizeof(int64_t) * (size_t)(f->n + 1));
	int m = 0;
	for (int j = 0; j < f->n; j++) {
		int64_t v = key_of_schedule(&f->s[j], k);
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

/* The T_max ranking with the presolve. With the dynamic program's counts
 * cnt(L, B) (schedules whose chunks all lie in [L, B]), the number of
 * admitted schedules with T_max exactly v is
 *   c(v) = cnt(lo(v), v) - cnt(lo(v), v - 1),
 * lo(v) = 0 for latency, ceil((a v - b G*) / b) under bt's filter
 * (a T_max - b T_min <= b G*). Walking v up the chunk sums gives B, the
 * T_max of the K-th candidate, and `below`, the number of candidates with
 * T_max < B. Within the tie level T_max = B the best `need` = K - below by
 * (gapness, vector) are those with the largest T_min: the largest L with
 * at least `need` schedules of T_max = B and T_min >= L is found by
 * bisection over the chunk sums. Z3 then finds exactly the `below`
 * schedules under T_max <= B - 1, and the `at` schedules under T_max <= B
 * and T_min >= L (the first ones blocked): only satisfiable checks, no
 * optimality proof, and the exact ranking after sorting. Returns 1 done,
 * 0 (more than `cap` schedules to enumerate: fall back), -1 (expired), or
 * 2 (the counting passes would exceed a work limit: use the window). */
static int64_t dp_gstar(struct z3s *z);

static int64_t filter_lo(const struct z3s *z, int64_t v)
{
	if (!z->filtered)
		return 0;
	int64_t a = z->prep->util_num, b = z->prep->util_den;
	int64_t num = a * v - b * z->gstar;
	if (num <= 0)
		return 0;
	return (num + b - 1) / b;
}

/* Schedules with T_max == v and every chunk >= L. */
static double count_at(const struct z3s *z, int64_t v, int64_t L)
{
	double r = btc_sched_dp_count(z->prep, z->max_chunks, L, v) -
		   btc_sched_dp_count(z->prep, z->max_chunks, L, v - 1);
	return r;
}

static int enumerate_phase(struct z3s *z, struct found *f, Z3_ast g, double n, int64_t tmax,
			   int64_t tmin)
{
	for (int k = 0; k < (int)n; k++) {
		assume_reset(z, 0);
		assume(z, g);
		assume(z, key_guard(z, K_TMAX, tmax, -1));
		if (tmin > 0)
			assume(z, guard(z, G_TMIN_GE, tmin));
		int r = check(z);
		if (r < 0)
			return -1;
		if (r == 0)
			btc_panic("presolve counts %.0f schedules with T_max "
				  "<= %lld, T_min >= %lld; Z3 finds %d",
				  n, (long long)tmax, (long long)tmin, k);
		found_add(z, f, g);
	}
	return 0;
}

static int enumerate_counted(struct z3s *z, struct btc_sched_result *res, int K, int cap)
{
	double pass = (double)z->n * z->n * z->np * (double)(1u << z->np);
	const double limit = 2e9;
	double work = 0, below = 0, at = 0;
	int64_t v1 = btc_sched_dp_min_tmax(z->prep, z->max_chunks, 0);
	if (v1 == INT64_MAX)
		return 1; /* no multi-chunk schedule */
	int i = first_sum_ge(z, v1), last = -1;
	for (; i < z->n_sums; i++) {
		if ((work += 2 * pass) > limit || out_of_time(z))
			return 2;
		int64_t v = z->sums[i];
		double c = count_at(z, v, filter_lo(z, v));
		if (c <= 0)
			continue;
		last = i;
		if (below + c >= K) {
			at = c;
			break;
		}
		below += c;
	}
	if (last < 0)
		return 1; /* nothing admitted (cannot happen under bt) */
	int64_t B = z->sums[last], L = filter_lo(z, B);
	if (i < z->n_sums) {
		/* the tie level: largest L' >= L keeping `need` schedules */
		double need = K - below;
		int lo = first_sum_ge(z, L), hi = first_sum_ge(z, B + 1) - 1;
		while (lo < hi) {
			int m = lo + (hi - lo + 1) / 2;
			if (count_at(z, B, z->sums[m] > L ? z->sums[m] : L) >= need)
				lo = m;
			else
				hi = m - 1;
		}
		if (lo < z->n_sums && z->sums[lo] > L)
			L = z->sums[lo];
		at = count_at(z, B, L);
	} else {
		at = 0; /* fewer than K in all: `below` holds them all */
		B = z->sums[last] + 1;
	}
	if (below + at > cap)
		return 0;
	struct found f = {0};
	Z3_ast g = fresh(z);
	int rc = enumerate_phase(z, &f, g, below, B - 1, 0);
	if (rc == 0 && at > 0)
		rc = enumerate_phase(z, &f, g, at, B, L);
	if (rc < 0)
		res->optimal = false;
	take_best(res, &f, K, K_TMAX);
	free(f.s);
	assume_reset(z, 0);
	return rc < 0 ? -1 : 1;
}

/* The K best by enumeration in a window: every schedule with primary key
 * <= B is enumerated (blocking clauses under a guard g), where B starts
 * just above the minimum, doubles its distance from it until K schedules
 * lie below, and shrinks to the K-th smallest key found. When the solver
 * says no schedule with key <= B is left, the found ones include all with
 * key <= B, so the K best of them by the total order are exact. Returns 1
 * (done), 0 (more than `cap` schedules in the window, usually a level of
 * massive ties: use enumerate_exact), -1 (time budget spent; the best
 * found so far are returned). */
static int enumerate_window(struct z3s *z, struct btc_sched_result *res, int K, enum key primary,
			    int cap)
{
	if (primary == K_TMAX && z->np <= BTC_SCHED_DP_MAX_PUS) {
		int counted = enumerate_counted(z, res, K, cap);
		if (counted != 2)
			return counted;
	}
	struct found f = {0};
	int rc = 1;
	assume_reset(z, 0);
	int r = check(z);
	if (r <= 0)
		return r; /* no multi-chunk schedule, or expired */
	int64_t v1, lo = 0;
	if (primary == K_TMAX && z->np <= BTC_SCHED_DP_MAX_PUS) {
		/* the filter only removes schedules: a lower bound */
		lo = btc_sched_dp_min_tmax(z->prep, z->max_chunks, 0);
	} else if (primary == K_GAP) {
		/* G* from the presolve: the minimum needs no proof */
		int64_t g = dp_gstar(z);
		lo = g > 0 ? g : 0;
	}
	Z3_ast g = fresh(z);
	if (minimise(z, 0, primary, lo, lo > 0, -1, &v1) < 0) {
		found_add(z, &f, g);
		rc = -1;
		goto out;
	}
	int64_t maxkey = z->maxcost;
	int64_t w = model_keys(z).tmax / 64;
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
		qsort(f.s, (size_t)f.n, sizeof(*f.s),
		      primary == K_TMAX ? btc_sched_qsort_tmax : cmp_gap_qsort);
		int m = f.n < K ? f.n : K;
		memcpy(res->candidates, f.s, sizeof(*f.s) * (size_t)m);
		res->n_candidates = m;
		if (rc < 0)
			res->optimal = false;
	}
	free(f.s);
	assume_reset(z, 0);
	return rc;
}

static void enumerate(struct z3s *z, struct btc_sched_result *res, int K, enum key primary,
		      enum key secondary)
{
	int cap = btc_sched_z3_window_cap > 0 ? btc_sched_z3_window_cap : 8 * K + 64;
	if (enumerate_window(z, res, K, primary, cap) == 0) {
		res->n_candidates = 0;
		for (int i = 0; i < z->n; i++)
			z->a[i] = -1;
		enumerate_exact(z, res, K, primary, secondary);
	}
}

/* G* by the presolve: G* = min over L of (minT(L) - L), where minT(L)
 * is the least T_max of the schedules whose chunks all take >= L (the
 * schedule attaining G* with T_min = L* gives minT(L*) - L* <= G*; the one
 * attaining minT(L) has gapness <= minT(L) - L). L runs over the chunk
 * sums: downwards from minT(0) until L <= minT(0) - best, then upwards,
 * skipping every L <= minT(previous L) - best, to the last feasible L.
 * Returns -1 when p is too large or the passes would exceed a fixed work
 * limit (then Z3 bisects with the gapness constraints). */
static int64_t dp_gstar(struct z3s *z)
{
	if (z->np > BTC_SCHED_DP_MAX_PUS || z->n_sums == 0)
		return -1;
	double pass = (double)z->n * z->n * z->np * (double)(1u << z->np);
	const double limit = 2e10; /* about 10 s */
	double work = 0;
	int64_t v1 = btc_sched_dp_min_tmax(z->prep, z->max_chunks, 0);
	if (v1 == INT64_MAX)
		return -1; /* no multi-chunk schedule: Z3 says so */
	/* largest index a with minT(sums[a]) finite */
	int a = 0, b = z->n_sums - 1;
	while (a < b) {
		int m = a + (b - a + 1) / 2;
		work += pass;
		if (btc_sched_dp_min_tmax(z->prep, z->max_chunks, z->sums[m]) != INT64_MAX)
			a = m;
		else
			b = m - 1;
	}
	/* Downwards from the largest sum <= v1 first (where T_min of
	 * balanced schedules lies), then upwards to the last feasible L. */
	int i0 = first_sum_ge(z, v1 + 1) - 1;
	if (i0 > a)
		i0 = a;
	int64_t best = INT64_MAX;
	for (int i = i0; i >= 0; i--) {
		int64_t L = z->sums[i];
		if (best != INT64_MAX && L <= v1 - best)
			break;
		if ((work += pass) > limit || out_of_time(z))
			return -1;
		int64_t m = btc_sched_dp_min_tmax(z->prep, z->max_chunks, L);
		if (m != INT64_MAX && m - L < best)
			best = m - L;
	}
	/* Upwards minT only grows: after minT(L) = m, a smaller gapness
	 * needs L' > m - best, so skip to the first such sum. */
	for (int i = i0 + 1; i <= a;) {
		int64_t L = z->sums[i];
		if ((work += pass) > limit || out_of_time(z))
			return -1;
		int64_t m = btc_sched_dp_min_tmax(z->prep, z->max_chunks, L);
		if (m == INT64_MAX)
			break;
		if (m - L < best)
			best = m - L;
		int next = first_sum_ge(z, m - best + 1);
		i = next > i + 1 ? next : i + 1;
	}
	return best;
}

/* Z3_mk_context allocates and zeroes two tables of 8 MB: with 4 KiB
 * pages that is 4096 page faults, and unmapping them again in
 * Z3_del_context, about 6 of the 20 ms that `btc schedule` may take on
 * the 9-stage, 4-PU table (docs/scheduler.md, "How the solver gets there
 * fast"). Once per process, before the first context: blocks up to 64 MiB
 * come from the heap instead of their own mappings, the heap keeps up to
 * 128 MiB when freed, and 24 MiB of fresh heap are advised for
 * transparent huge pages, so the tables fault in 2 MiB at a time (where
 * the kernel allows THP on madvise; else nothing changes). */
void btc_sched_z3_memory(void)
{
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
	static bool done;
	if (done)
		return;
	done = true;
	const size_t huge = (size_t)2 << 20, len = (size_t)24 << 20;
	if (!mallopt(M_MMAP_THRESHOLD, 64 << 20) || !mallopt(M_TRIM_THRESHOLD, 128 << 20))
		return;
	char *p = malloc(len);
	if (!p)
		return;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1);
	size_t usable = len - (size_t)(a - (uintptr_t)p);
	/* whole huge pages inside the block; failure only costs speed */
	(void)madvise((void *)a, usable & ~(huge - 1), MADV_HUGEPAGE);
	free(p);
#endif
}

void btc_sched_z3_start(Z3_context *ctx, Z3_solver *s)
{
	btc_sched_z3_memory();
	Z3_global_param_set("sat.random_seed", "0");
	Z3_global_param_set("smt.random_seed", "0");
	Z3_config cfg = Z3_mk_config();
	Z3_set_param_value(cfg, "model", "true");
	*ctx = Z3_mk_context(cfg);
	Z3_del_config(cfg);
	*s = Z3_mk_simple_solver(*ctx);
	Z3_solver_inc_ref(*ctx, *s);
	Z3_params no_ctrl_c = Z3_mk_params(*ctx);
	Z3_params_inc_ref(*ctx, no_ctrl_c);
	Z3_params_set_bool(*ctx, no_ctrl_c, Z3_mk_string_symbol(*ctx, "ctrl_c"), false);
	Z3_solver_set_params(*ctx, *s, no_ctrl_c);
	Z3_params_dec_ref(*ctx, no_ctrl_c);
}

void btc_sched_z3_stop(Z3_context ctx, Z3_solver s)
{
	Z3_solver_dec_ref(ctx, s);
	Z3_del_context(ctx);
}

Z3_lbool btc_sched_z3_check(Z3_context ctx, Z3_solver s, double deadline, unsigned n,
			    Z3_ast *assume, long *checks)
{
	if (deadline > 0) {
		double left = deadline - btc_sched_now_ms();
		if (left < 1)
			return Z3_L_UNDEF;
		Z3_params prm = Z3_mk_params(ctx);
		Z3_params_inc_ref(ctx, prm);
		Z3_params_set_uint(ctx, prm, Z3_mk_string_symbol(ctx, "timeout"), (unsigned)left);
		Z3_solver_set_params(ctx, s, prm);
		Z3_params_dec_ref(ctx, prm);
	}
	(*checks)++;
	return Z3_solver_check_assumptions(ctx, s, n, assume);
}

enum btc_status btc_sched_solve_z3(const struct btc_sched_problem *p,
				   const struct btc_sched_options *opt,
				   struct btc_sched_result *res, struct btc_diag *d)
{
	double t0 = btc_sched_now_ms();
	memset(res, 0, sizeof(*res));
	struct btc_sched_prep prep;
	enum btc_status status = btc_sched_prepare(p, opt, &prep, d);
	if (status != BTC_OK)
		return status;
	if (prep.space) {
		/* farms or core splits: the larger space (space.h) */
		status = btc_space_solve_z3(p, opt, &prep, res, d, t0);
		btc_sched_prep_free(&prep);
		return status;
	}
	btc_sched_result_begin(p, opt, &prep, res);
	int K = opt->top_k;
	res->candidates = btc_xcalloc((size_t)K, sizeof(*res->candidates));

	struct z3s z = {
		.p = p,
		.prep = &prep,
		.n = prep.n,
		.np = prep.p,
	};
	btc_sched_z3_start(&z.ctx, &z.s);
	z.bool_sort = Z3_mk_bool_sort(z.ctx);
	z.x = btc_xcalloc((size_t)z.n * (size_t)z.np, sizeof(Z3_ast));
	z.used = btc_xcalloc((size_t)z.np, sizeof(Z3_ast));
	z.pu_sum = btc_xcalloc((size_t)z.np, sizeof(int64_t));
	z.a = btc_xmalloc(sizeof(int) * (size_t)z.n);
	for (int i = 0; i < z.n; i++)
		z.a[i] = -1;
	if (opt->time_budget_ms > 0)
		z.deadline = t0 + opt->time_budget_ms;
	z.max_chunks = opt->max_chunks;

	z.y_sum = btc_xcalloc((size_t)z.np, sizeof(int64_t));
	encode(&z, opt);
	if (prep.xq)
		encode_chunks(&z);
	collect_sums(&z);

	if (opt->objective == BTC_SCHED_BT) {
		/* Level 1: G* = minimum gapness over multi-chunk schedules. */
		int64_t gstar = dp_gstar(&z);
		int r = 1;
		if (gstar < 0) {
			r = check(&z);
			if (r == 1 && minimise(&z, 0, K_GAP, 0, false, -1, &gstar) < 0)
				r = -1;
		}
		if (r == 1) {
			res->gstar_q = gstar;
			res->gstar_ms = (double)gstar * (double)prep.quantum_ns / 1e6;
			/* Level 2 filter: U T_max - T_min <= G*, i.e. for
			 * every pair of used PUs a T_c - b T_d <= b G*. */
			if (prep.util_num > 0) {
				assert_pairs(&z, NULL, prep.util_num, prep.util_den, gstar);
				z.filtered = true;
				z.gstar = gstar;
			}
			for (int i = 0; i < z.n; i++)
				z.a[i] = -1;
			enumerate(&z, res, K, K_TMAX, K_GAP);
		} else if (r < 0 || z.expired) {
			res->optimal = false;
		}
	} else if (opt->objective == BTC_SCHED_GAPNESS) {
		enumerate(&z, res, K, K_GAP, K_TMAX);
	} else {
		enumerate(&z, res, K, K_TMAX, K_GAP);
	}
	if (z.expired)
		res->optimal = false;
	qsort(res->candidates, (size_t)res->n_candidates, sizeof(*res->candidates),
	      btc_sched_qsort_tmax);
	res->n_checks = z.checks;

	btc_sched_z3_stop(z.ctx, z.s);
	free(z.x);
	free(z.used);
	free(z.pu_sum);
	free(z.y);
	free(z.y_sum);
	free(z.a);
	free(z.sums);
	free(z.guards);
	free(z.assume);
	btc_sched_prep_free(&prep);
	res->solve_ms = btc_sched_now_ms() - t0;
	return BTC_OK;
}
