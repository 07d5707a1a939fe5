/* BT-Optimizer with the Z3 C API (paper Sec. III-D): the encoding of the
 * paper's space; the search is sched_z3.c.
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
 * A found schedule is excluded by a blocking clause (C5). */
#include "sched/z3_paper.h"

#include <stdlib.h>
#include <string.h>

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

/* The literals of "not the chunk (PU c, stages f..l)" into cl (at most 4):
 * !x[f][c] | x[f-1][c] | !x[l][c] | x[l+1][c]. With C2, x[f] and x[l]
 * put f..l on c, and the two others say the chunk neither starts earlier
 * nor ends later. Returns the count. */
static unsigned not_chunk(struct z3s *z, int c, int f, int l, Z3_ast *cl)
{
	unsigned k = 0;
	cl[k++] = btc_z3_not(&z->b, X(z, f, c));
	if (f > 0 && X(z, f - 1, c))
		cl[k++] = X(z, f - 1, c);
	if (l != f)
		cl[k++] = btc_z3_not(&z->b, X(z, l, c));
	if (l + 1 < z->n && X(z, l + 1, c))
		cl[k++] = X(z, l + 1, c);
	return k;
}

/* The chunk variables of the transfer term: y <-> chunk (c, f..l), for
 * every chunk with X_c(f, l) > 0 on an allowed run of stages. */
void btc_zp_encode_chunks(struct z3s *z)
{
	int n = z->n, np = z->np;
	z->y = btc_xcalloc((size_t)n * (size_t)np * (size_t)n, sizeof(Z3_ast));
	for (int c = 0; c < np; c++)
		for (int f = 0; f < n; f++)
			for (int l = f; l < n && X(z, l, c); l++) {
				if (XQ(z, c, f, l) <= 0)
					continue;
				Z3_ast y = btc_z3_fresh(&z->b), cl[5];
				*Y(z, c, f, l) = y;
				z->y_sum[c] += XQ(z, c, f, l);
				unsigned k = not_chunk(z, c, f, l, cl);
				/* y -> each condition; all conditions -> y */
				for (unsigned j = 0; j < k; j++)
					btc_z3_clause2(&z->b, btc_z3_not(&z->b, y), btc_z3_not(&z->b, cl[j]));
				cl[k++] = y;
				btc_z3_add(&z->b, Z3_mk_or(z->b.ctx, k, cl));
			}
}

/* ---- the formulation: C1, C2, multi-chunk, options ---- */

void btc_zp_encode(struct z3s *z, const struct btc_sched_options *opt)
{
	Z3_context ctx = z->b.ctx;
	int n = z->n, np = z->np;
	Z3_ast *lits = btc_xcalloc((size_t)(n > np ? n : np) + 1, sizeof(Z3_ast));

	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++)
			if (TQ(z, i, c) >= 0)
				z->x[i * np + c] = btc_z3_fresh(&z->b);

	/* C1: exactly one PU per stage. */
	for (int i = 0; i < n; i++) {
		int k = 0;
		for (int c = 0; c < np; c++)
			if (X(z, i, c))
				lits[k++] = X(z, i, c);
		btc_z3_add(&z->b, k == 1 ? lits[0] : Z3_mk_or(ctx, (unsigned)k, lits));
		for (int a = 0; a < k; a++)
			for (int b = a + 1; b < k; b++)
				btc_z3_clause2(&z->b, btc_z3_not(&z->b, lits[a]), btc_z3_not(&z->b, lits[b]));
	}

	/* used[c] <-> OR_i x[i][c]; C2 contiguity via ended[i][c]. */
	for (int c = 0; c < np; c++) {
		int k = 0;
		for (int i = 0; i < n; i++)
			if (X(z, i, c))
				lits[k++] = X(z, i, c);
		if (k == 0)
			continue;
		z->used[c] = btc_z3_fresh(&z->b);
		for (int j = 0; j < k; j++)
			btc_z3_clause2(&z->b, btc_z3_not(&z->b, lits[j]), z->used[c]);
		lits[k] = btc_z3_not(&z->b, z->used[c]);
		btc_z3_add(&z->b, Z3_mk_or(ctx, (unsigned)k + 1, lits));
		for (int i = 0; i < n; i++)
			if (X(z, i, c))
				z->pu_sum[c] += TQ(z, i, c);

		Z3_ast prev_ended = NULL;
		for (int i = 1; i < n; i++) {
			Z3_ast e = btc_z3_fresh(&z->b);
			Z3_ast xp = X(z, i - 1, c), xi = X(z, i, c);
			if (xp) {
				/* x[i-1] & !x[i] -> e */
				Z3_ast cl[3] = {btc_z3_not(&z->b, xp), e, xi};
				btc_z3_add(&z->b, Z3_mk_or(ctx, xi ? 3 : 2, cl));
			}
			if (prev_ended)
				btc_z3_clause2(&z->b, btc_z3_not(&z->b, prev_ended), e);
			if (xi)
				btc_z3_clause2(&z->b, btc_z3_not(&z->b, e), btc_z3_not(&z->b, xi));
			prev_ended = e;
		}
	}

	/* Multi-chunk: stage 0 and stage n-1 on different PUs (with C2, one
	 * PU on both ends means one chunk). */
	for (int c = 0; c < np; c++)
		if (X(z, 0, c) && X(z, n - 1, c))
			btc_z3_clause2(&z->b, btc_z3_not(&z->b, X(z, 0, c)), btc_z3_not(&z->b, X(z, n - 1, c)));
	if (n == 1)
		btc_z3_add(&z->b, Z3_mk_false(ctx));

	/* Option: at most max_chunks chunks (one per used PU). */
	int k = 0;
	for (int c = 0; c < np; c++)
		if (z->used[c])
			lits[k++] = z->used[c];
	if (opt->max_chunks > 0 && opt->max_chunks < k)
		btc_z3_add(&z->b, Z3_mk_atmost(ctx, (unsigned)k, lits, (unsigned)opt->max_chunks));
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
				args[k] = btc_z3_not(&z->b, *Y(z, d, f, l));
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
			args[k] = btc_z3_not(&z->b, X(z, i, d));
			coefs[k++] = (int)(coef_d * TQ(z, i, d));
		}
	}
	if (d >= 0)
		rhs += coef_d * z->pu_sum[d];
	Z3_ast r;
	if (rhs < 0)
		r = Z3_mk_false(z->b.ctx);
	else if (rhs > INT32_MAX)
		btc_panic("pseudo-Boolean bound overflows (quantum too fine)");
	else
		r = Z3_mk_pble(z->b.ctx, k, args, coefs, (int)rhs);
	free(args);
	free(coefs);
	return r;
}

/* used[d] -> num * T_c - den * T_d <= den * bound, for all c != d. */
void btc_zp_assert_pairs(struct z3s *z, Z3_ast g, int num, int den, int64_t bound)
{
	for (int d = 0; d < z->np; d++) {
		if (!z->used[d])
			continue;
		for (int c = 0; c < z->np; c++) {
			if (c == d || !z->used[c])
				continue;
			Z3_ast pre[2] = {z->used[d], g};
			Z3_ast ante = g ? Z3_mk_and(z->b.ctx, 2, pre) : z->used[d];
			btc_z3_add(&z->b, Z3_mk_implies(z->b.ctx, ante,
						    pb_pair(z, c, num, d, den, den * bound)));
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
			head[k++] = btc_z3_not(&z->b, g);
			head[k++] = btc_z3_not(&z->b, X(z, f, c));
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
				cl[m++] = btc_z3_not(&z->b, X(z, l, c));
				if (l + 1 < n && X(z, l + 1, c))
					cl[m++] = X(z, l + 1, c);
				btc_z3_add(&z->b, Z3_mk_or(z->b.ctx, m, cl));
			}
			if (!any)
				btc_z3_add(&z->b, Z3_mk_or(z->b.ctx, k, head));
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
				cl[0] = btc_z3_not(&z->b, g);
				unsigned k = 1 + not_chunk(z, c, f, l, cl + 1);
				btc_z3_add(&z->b, Z3_mk_or(z->b.ctx, k, cl));
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
				btc_z3_clause2(&z->b, btc_z3_not(&z->b, g), btc_z3_not(&z->b, X(z, f, c)));
			} else if (l < z->n && X(z, l, c)) {
				Z3_ast cl[3] = {btc_z3_not(&z->b, g), btc_z3_not(&z->b, X(z, f, c)),
						btc_z3_not(&z->b, X(z, l, c))};
				btc_z3_add(&z->b, Z3_mk_or(z->b.ctx, 3, cl));
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
			cl[k++] = btc_z3_not(&z->b, g);
			cl[k++] = btc_z3_not(&z->b, X(z, f, c));
			if (f > 0 && X(z, f - 1, c))
				cl[k++] = X(z, f - 1, c);
			if (r < z->n && X(z, r, c))
				cl[k++] = X(z, r, c);
			btc_z3_add(&z->b, Z3_mk_or(z->b.ctx, k, cl));
		}
	}
}

void btc_zp_encode_guard(struct btc_z3 *b, Z3_ast g, enum guard_kind kind, int64_t value)
{
	struct z3s *z = btc_zp(b);
	switch (kind) {
	case G_TMAX_LE:
		tmax_clauses(z, g, value);
		break;
	case G_TMIN_GE:
		tmin_clauses(z, g, value);
		break;
	case G_GAP_LE:
		btc_zp_assert_pairs(z, g, 1, 1, value);
		break;
	}
}
