/* BT-Optimizer with Z3 over the larger space: the queries of the encoding
 * that sched_z3_space.c builds (docs/scheduler.md, "The larger space").
 * A check under the current assumptions reads the model's chunks into
 * z->cur; a found schedule is blocked (C5), under a guard when the search
 * wants it back later; minimise bisects a key over the distinct chunk
 * costs, lexmin walks to the smallest schedule in vector order
 * (btc_sched_cmp_*) stage by stage; the found schedules are kept, ranked
 * and counted for the search of sched_space_rank.c. */
#include "sched/z3_space.h"

#include <stdlib.h>
#include <string.h>

/* ---- checks ---- */

void btc_zx_assume_reset(struct zx *z, int keep)
{
	z->n_assume = keep;
}

void btc_zx_assume(struct zx *z, Z3_ast lit)
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

int btc_zx_check(struct zx *z)
{
	Z3_model m;
	int r = btc_sched_z3_check(z->ctx, z->s, z->deadline, (unsigned)z->n_assume, z->assume,
				   &z->checks, &z->expired, &m);
	if (r != 1)
		return r;
	read_model(z, m);
	Z3_model_dec_ref(z->ctx, m);
	return 1;
}

/* Blocks the model's schedule (under g when not NULL): C5. */
void btc_zx_block(struct zx *z, Z3_ast g)
{
	Z3_ast c[BTC_SCHED_MAX_PUS + 1];
	unsigned k = 0;
	for (int j = 0; j < z->cur_n; j++)
		c[k++] = btc_zx_not(z, z->y[z->cur_y[j]].lit);
	if (g)
		c[k++] = btc_zx_not(z, g);
	btc_zx_clause(z, k, c);
}

/* Minimises key k over the first `keep` assumptions from the model in
 * z->cur (as in sched_z3.c). Returns 0, or -1 on expiry. */
int btc_zx_minimise(struct zx *z, int keep, enum key k, int64_t lo, bool probe_lo,
		    int64_t fixed_tmax, int64_t *val)
{
	struct btc_schedule best = z->cur;
	int best_y[BTC_SCHED_MAX_PUS], best_n = z->cur_n;
	memcpy(best_y, z->cur_y, sizeof(best_y));
	int64_t hi = btc_sched_key_of(&z->cur, k);
	int rc = 0;
	while (lo < hi) {
		int64_t mid = probe_lo ? lo : lo + (hi - lo) / 2;
		probe_lo = false;
		if (k == K_TMAX && fixed_tmax < 0) {
			int a = btc_zx_first_ge(z->vals, z->n_vals, lo),
			    b = btc_zx_first_ge(z->vals, z->n_vals, hi);
			if (a >= b) {
				lo = hi;
				break;
			}
			mid = z->vals[a + (b - a - 1) / 2];
		}
		btc_zx_assume_reset(z, keep);
		btc_zx_assume(z, btc_zx_key_guard(z, k, mid, fixed_tmax));
		int r = btc_zx_check(z);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 1) {
			hi = btc_sched_key_of(&z->cur, k);
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
	btc_zx_assume_reset(z, keep);
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
	Z3_ast v = btc_zx_fresh(z);
	c[k++] = btc_zx_not(z, v);
	for (int j = 0; j < z->n_y; j++) {
		const struct ych *y = &z->y[j];
		uint64_t cj = z->sp->opts[y->o].code;
		if (y->f <= i && i <= y->l && (less ? cj < code : cj == code))
			c[k++] = y->lit;
	}
	if (k > 1)
		btc_zx_clause(z, k, c);
	free(c);
	return k > 1 ? v : NULL;
}

/* The smallest schedule in vector order (btc_sched_cmp_*: codes stage by
 * stage, then the boundaries, an unbroken run first) under the first
 * `keep` assumptions, from the model in z->cur. Returns 0 or -1. */
int btc_zx_lexmin(struct zx *z, int keep)
{
	int n = z->n, rc = 0;
	int fixed = keep;
	for (int i = 0; i < n && rc == 0; i++) {
		for (;;) {
			uint64_t code = z->sp->opts[z->y[chunk_at(z, i)].o].code;
			Z3_ast less = code_lit(z, i, code, true);
			if (!less)
				break;
			btc_zx_assume_reset(z, fixed);
			btc_zx_assume(z, less);
			struct btc_schedule keep_s = z->cur;
			int keep_y[BTC_SCHED_MAX_PUS], keep_n = z->cur_n;
			memcpy(keep_y, z->cur_y, sizeof(keep_y));
			int r = btc_zx_check(z);
			if (r == 1)
				continue;
			z->cur = keep_s;
			z->cur_n = keep_n;
			memcpy(z->cur_y, keep_y, sizeof(keep_y));
			if (r < 0)
				rc = -1;
			break;
		}
		btc_zx_assume_reset(z, fixed);
		btc_zx_assume(z, code_lit(z, i, z->sp->opts[z->y[chunk_at(z, i)].o].code, false));
		fixed = z->n_assume;
	}
	for (int i = 1; i < n && rc == 0; i++) {
		bool cut = z->y[chunk_at(z, i)].f == i;
		if (cut) {
			btc_zx_assume_reset(z, fixed);
			btc_zx_assume(z, btc_zx_not(z, z->st[i]));
			struct btc_schedule keep_s = z->cur;
			int keep_y[BTC_SCHED_MAX_PUS], keep_n = z->cur_n;
			memcpy(keep_y, z->cur_y, sizeof(keep_y));
			int r = btc_zx_check(z);
			if (r != 1) {
				z->cur = keep_s;
				z->cur_n = keep_n;
				memcpy(z->cur_y, keep_y, sizeof(keep_y));
			}
			if (r < 0)
				rc = -1;
			cut = r != 1;
		}
		btc_zx_assume_reset(z, fixed);
		btc_zx_assume(z, cut ? z->st[i] : btc_zx_not(z, z->st[i]));
		fixed = z->n_assume;
	}
	btc_zx_assume_reset(z, keep);
	return rc;
}

/* ---- the found schedules ---- */

void btc_zx_found_add(struct zx *z, struct found *f, Z3_ast g)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->s = btc_xrealloc(f->s, sizeof(*f->s) * (size_t)f->cap);
	}
	f->s[f->n++] = z->cur;
	btc_zx_block(z, g);
}

/* Finds `count` schedules under the assumptions g and bounds[0..nb), each
 * blocked under g; the presolve counted them, so every check is sat. 0, or
 * -1 expired. */
int btc_zx_enumerate_n(struct zx *z, struct found *f, Z3_ast g, double count, const Z3_ast *bounds,
		       int nb)
{
	for (int k = 0; k < (int)count; k++) {
		btc_zx_assume_reset(z, 0);
		btc_zx_assume(z, g);
		for (int j = 0; j < nb; j++)
			btc_zx_assume(z, bounds[j]);
		int r = btc_zx_check(z);
		if (r < 0)
			return -1;
		if (r == 0)
			btc_panic("presolve counts %.0f schedules; Z3 finds %d", count, k);
		btc_zx_found_add(z, f, g);
	}
	return 0;
}

/* The `need` best in vector order of the tied schedules under g and
 * bounds[0..nb) (the presolve counted `count` of them, too many to
 * enumerate), one at a time: check, lexmin, add and block under g. 0, or
 * -1 expired. */
int btc_zx_enumerate_ties(struct zx *z, struct found *f, Z3_ast g, double need, double count,
			  const Z3_ast *bounds, int nb)
{
	int rc = 0;
	for (int k = 0; k < (int)need && rc == 0; k++) {
		btc_zx_assume_reset(z, 0);
		btc_zx_assume(z, g);
		for (int j = 0; j < nb; j++)
			btc_zx_assume(z, bounds[j]);
		int r = btc_zx_check(z);
		if (r == 0)
			btc_panic("presolve counts %.0f tied schedules; Z3 finds %d", count, k);
		rc = r < 0 ? -1 : btc_zx_lexmin(z, nb + 1);
		if (rc == 0)
			btc_zx_found_add(z, f, g);
	}
	return rc;
}

/* enumerate_n under T_max <= tmax and T_min >= tmin (tmin 0: none). */
int btc_zx_enumerate_phase(struct zx *z, struct found *f, Z3_ast g, double count, int64_t tmax,
			   int64_t tmin)
{
	Z3_ast b[2] = {btc_zx_guard(z, G_TMAX_LE, tmax), NULL};
	if (tmin > 0)
		b[1] = btc_zx_guard(z, G_TMIN_GE, tmin);
	return btc_zx_enumerate_n(z, f, g, count, b, tmin > 0 ? 2 : 1);
}
