/* BT-Optimizer with Z3 over the larger space: the model of the encoding
 * that sched_z3_space.c builds (docs/scheduler.md, "The larger space"),
 * as the ops of the one Z3 layer (sched_z3.h, btc_zx_ops), and the
 * enumerations the search of sched_space_rank.c runs over it.
 * A check under the current assumptions reads the model's chunks into
 * z->cur; a found schedule is blocked (C5), under a guard when the search
 * wants it back later; lexmin walks to the smallest schedule in vector
 * order (btc_sched_cmp_*) stage by stage (the layer bisects keys over the
 * encoded chunk costs); the enumerations find counted schedules. */
#include "sched/z3_space.h"

#include <stdlib.h>
#include <string.h>

/* The model as saved by save / restore. */
struct zx_model {
	struct btc_schedule cur;
	int cur_y[BTC_SCHED_MAX_PUS];
	int cur_n;
};

static void save(const struct btc_z3 *b, void *to)
{
	const struct zx *z = (const struct zx *)b;
	struct zx_model *m = to;
	m->cur = z->cur;
	m->cur_n = z->cur_n;
	memcpy(m->cur_y, z->cur_y, sizeof(m->cur_y));
}

static void restore(struct btc_z3 *b, const void *from)
{
	struct zx *z = btc_zx(b);
	const struct zx_model *m = from;
	z->cur = m->cur;
	z->cur_n = m->cur_n;
	memcpy(z->cur_y, m->cur_y, sizeof(m->cur_y));
}

static bool is_true(struct zx *z, Z3_model m, Z3_ast a)
{
	Z3_ast v;
	return Z3_model_eval(z->b.ctx, m, a, true, &v) && Z3_get_bool_value(z->b.ctx, v) == Z3_L_TRUE;
}

/* The model's chunks, walked from stage 0 along the ranges. */
static void read_model(struct btc_z3 *b, Z3_model m)
{
	struct zx *z = btc_zx(b);
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

/* Blocks the model's schedule (under g when not NULL): C5. */
static void block(struct btc_z3 *b, Z3_ast g)
{
	struct zx *z = btc_zx(b);
	Z3_ast c[BTC_SCHED_MAX_PUS + 1];
	unsigned k = 0;
	for (int j = 0; j < z->cur_n; j++)
		c[k++] = btc_z3_not(b, z->y[z->cur_y[j]].lit);
	if (g)
		c[k++] = btc_z3_not(b, g);
	btc_zx_clause(z, k, c);
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
	Z3_ast v = btc_z3_fresh(&z->b);
	c[k++] = btc_z3_not(&z->b, v);
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
static int lexmin(struct btc_z3 *b, int keep)
{
	struct zx *z = btc_zx(b);
	struct zx_model saved;
	int n = z->n, rc = 0;
	int fixed = keep;
	for (int i = 0; i < n && rc == 0; i++) {
		for (;;) {
			uint64_t code = z->sp->opts[z->y[chunk_at(z, i)].o].code;
			Z3_ast less = code_lit(z, i, code, true);
			if (!less)
				break;
			btc_z3_assume_reset(&z->b, fixed);
			btc_z3_assume(&z->b, less);
			save(b, &saved);
			int r = btc_z3_check(b);
			if (r == 1)
				continue;
			restore(b, &saved);
			if (r < 0)
				rc = -1;
			break;
		}
		btc_z3_assume_reset(&z->b, fixed);
		btc_z3_assume(&z->b, code_lit(z, i, z->sp->opts[z->y[chunk_at(z, i)].o].code, false));
		fixed = z->b.n_assume;
	}
	for (int i = 1; i < n && rc == 0; i++) {
		bool cut = z->y[chunk_at(z, i)].f == i;
		if (cut) {
			btc_z3_assume_reset(&z->b, fixed);
			btc_z3_assume(&z->b, btc_z3_not(&z->b, z->st[i]));
			save(b, &saved);
			int r = btc_z3_check(b);
			if (r != 1)
				restore(b, &saved);
			if (r < 0)
				rc = -1;
			cut = r != 1;
		}
		btc_z3_assume_reset(&z->b, fixed);
		btc_z3_assume(&z->b, cut ? z->st[i] : btc_z3_not(&z->b, z->st[i]));
		fixed = z->b.n_assume;
	}
	btc_z3_assume_reset(&z->b, keep);
	return rc;
}

/* ---- the found schedules ---- */

static int64_t key(const struct btc_z3 *b, enum key k)
{
	return btc_sched_key_of(&((const struct zx *)b)->cur, k);
}

static void schedule(const struct btc_z3 *b, struct btc_schedule *out)
{
	*out = ((const struct zx *)b)->cur;
}

const struct btc_z3_ops btc_zx_ops = {
	.read = read_model,
	.key = key,
	.encode_guard = btc_zx_encode_guard,
	.schedule = schedule,
	.block = block,
	.lexmin = lexmin,
	.model_size = sizeof(struct zx_model),
	.save = save,
	.restore = restore,
};

/* Finds `count` schedules under the assumptions g and bounds[0..nb), each
 * blocked under g; the presolve counted them, so every check is sat. 0, or
 * -1 expired. */
int btc_zx_enumerate_n(struct zx *z, struct found *f, Z3_ast g, double count, const Z3_ast *bounds,
		       int nb)
{
	for (int k = 0; k < (int)count; k++) {
		btc_z3_assume_reset(&z->b, 0);
		btc_z3_assume(&z->b, g);
		for (int j = 0; j < nb; j++)
			btc_z3_assume(&z->b, bounds[j]);
		int r = btc_z3_check(&z->b);
		if (r < 0)
			return -1;
		if (r == 0)
			btc_panic("presolve counts %.0f schedules; Z3 finds %d", count, k);
		btc_z3_found_add(&z->b, f, g);
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
		btc_z3_assume_reset(&z->b, 0);
		btc_z3_assume(&z->b, g);
		for (int j = 0; j < nb; j++)
			btc_z3_assume(&z->b, bounds[j]);
		int r = btc_z3_check(&z->b);
		if (r == 0)
			btc_panic("presolve counts %.0f tied schedules; Z3 finds %d", count, k);
		rc = r < 0 ? -1 : btc_z3_lexmin(&z->b, nb + 1);
		if (rc == 0)
			btc_z3_found_add(&z->b, f, g);
	}
	return rc;
}

/* enumerate_n under T_max <= tmax and T_min >= tmin (tmin 0: none). */
int btc_zx_enumerate_phase(struct zx *z, struct found *f, Z3_ast g, double count, int64_t tmax,
			   int64_t tmin)
{
	Z3_ast b[2] = {btc_z3_guard(&z->b, G_TMAX_LE, tmax), NULL};
	if (tmin > 0)
		b[1] = btc_z3_guard(&z->b, G_TMIN_GE, tmin);
	return btc_zx_enumerate_n(z, f, g, count, b, tmin > 0 ? 2 : 1);
}
