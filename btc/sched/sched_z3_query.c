/* BT-Optimizer with Z3 over the paper's space: the queries of the
 * encoding that sched_z3_encode.c builds (docs/scheduler.md). A check
 * under the current assumptions reads the model's stage-to-PU vector into
 * z->a; its keys (T_max, gapness) are computed from it; minimise bisects a
 * key over the chunk sums, lexmin walks to the smallest vector stage by
 * stage; a found schedule is blocked (C5), under a guard when the search
 * wants it back later. The search that uses them is sched_z3.c. */
#include "sched/z3_paper.h"
#include "sched/model.h"

#include <stdlib.h>
#include <string.h>

void btc_zp_assume_reset(struct z3s *z, int keep)
{
	z->n_assume = keep;
}

void btc_zp_assume(struct z3s *z, Z3_ast lit)
{
	if (z->n_assume == z->cap_assume) {
		z->cap_assume = z->cap_assume ? 2 * z->cap_assume : 64;
		z->assume = btc_xrealloc(z->assume, sizeof(Z3_ast) * (size_t)z->cap_assume);
	}
	z->assume[z->n_assume++] = lit;
}

/* Checks under the current assumptions; on sat reads the model into z->a.
 * Returns 1 sat, 0 unsat, -1 unknown (time budget spent). */
int btc_zp_check(struct z3s *z)
{
	Z3_model m;
	int r = btc_sched_z3_check(z->ctx, z->s, z->deadline, (unsigned)z->n_assume, z->assume,
				   &z->checks, &z->expired, &m);
	if (r != 1)
		return r;
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

bool btc_zp_out_of_time(const struct z3s *z)
{
	return z->deadline > 0 && btc_sched_now_ms() > z->deadline;
}

/* ---- keys of the model in z->a ---- */

struct keys btc_zp_model_keys(const struct z3s *z)
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

static int64_t key_of(const struct z3s *z, enum key k)
{
	struct keys v = btc_zp_model_keys(z);
	return k == K_TMAX ? v.tmax : v.tmax - v.tmin;
}

/* "key <= v" as a guard literal; `fixed_tmax` >= 0 says T_max is known to
 * equal it for every remaining schedule, so gap <= v is T_min >= tmax - v
 * (one PB per PU instead of one per pair). */
Z3_ast btc_zp_key_guard(struct z3s *z, enum key k, int64_t v, int64_t fixed_tmax)
{
	if (k == K_TMAX)
		return btc_zp_guard(z, G_TMAX_LE, v);
	if (fixed_tmax >= 0)
		return btc_zp_guard(z, G_TMIN_GE, fixed_tmax - v);
	return btc_zp_guard(z, G_GAP_LE, v);
}

/* Index of the first chunk sum >= v (n_sums if none). */
int btc_zp_first_sum_ge(const struct z3s *z, int64_t v)
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

/* Every contiguous range of allowed stages on one PU. */
void btc_zp_collect_sums(struct z3s *z)
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
	qsort(z->sums, (size_t)k, sizeof(int64_t), btc_sched_z3_cmp_i64);
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
int btc_zp_minimise(struct z3s *z, int keep, enum key k, int64_t lo, bool probe_lo,
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
			int a = btc_zp_first_sum_ge(z, lo), b = btc_zp_first_sum_ge(z, hi);
			if (a >= b) {
				lo = hi;
				break;
			}
			mid = z->sums[a + (b - a - 1) / 2];
		}
		btc_zp_assume_reset(z, keep);
		btc_zp_assume(z, btc_zp_key_guard(z, k, mid, fixed_tmax));
		int r = btc_zp_check(z);
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
	btc_zp_assume_reset(z, keep);
	*val = hi;
	return rc;
}

/* Lexicographically smallest stage-to-PU vector under the first `keep`
 * assumptions, starting from the model in z->a. Returns 0 or -1. */
int btc_zp_lexmin(struct z3s *z, int keep)
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
			btc_zp_assume_reset(z, keep);
			for (int j = 0; j < i; j++)
				btc_zp_assume(z, X(z, j, best[j]));
			for (int c = cur; c < np; c++)
				if (X(z, i, c))
					btc_zp_assume(z, btc_zp_not(z, X(z, i, c)));
			int r = btc_zp_check(z);
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
	btc_zp_assume_reset(z, keep);
	return rc;
}

void btc_zp_block(struct z3s *z)
{
	Z3_ast *lits = btc_xmalloc(sizeof(Z3_ast) * (size_t)z->n);
	for (int i = 0; i < z->n; i++)
		lits[i] = btc_zp_not(z, X(z, i, z->a[i]));
	btc_zp_add(z, Z3_mk_or(z->ctx, (unsigned)z->n, lits));
	free(lits);
}

/* ---- the found schedules ---- */

static void block_under(struct z3s *z, Z3_ast g)
{
	Z3_ast *lits = btc_xmalloc(sizeof(Z3_ast) * (size_t)(z->n + 1));
	for (int i = 0; i < z->n; i++)
		lits[i] = btc_zp_not(z, X(z, i, z->a[i]));
	lits[z->n] = btc_zp_not(z, g);
	btc_zp_add(z, Z3_mk_or(z->ctx, (unsigned)z->n + 1, lits));
	free(lits);
}

void btc_zp_found_add(struct z3s *z, struct found *f, Z3_ast g)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->s = btc_xrealloc(f->s, sizeof(*f->s) * (size_t)f->cap);
	}
	btc_sched_from_assignment(z->p, z->prep, z->a, &f->s[f->n++]);
	block_under(z, g);
}
