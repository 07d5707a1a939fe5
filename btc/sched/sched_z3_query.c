/* BT-Optimizer with Z3 over the paper's space: the model of the encoding
 * that sched_z3_encode.c builds (docs/scheduler.md), as the ops of the
 * one Z3 layer (sched_z3.h, btc_zp_ops). A check reads the model's
 * stage-to-PU vector into z->a; its keys (T_max, gapness) are computed
 * from it; lexmin walks to the smallest vector stage by stage; a found
 * schedule is blocked (C5), under a guard when the search wants it back
 * later. The layer bisects keys over the chunk sums; the search that uses
 * them is sched_z3.c. */
#include "sched/z3_paper.h"
#include "sched/model.h"

#include <stdlib.h>
#include <string.h>

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

static int64_t key_of(const struct btc_z3 *b, enum key k)
{
	const struct z3s *z = (const struct z3s *)b;
	struct keys v = btc_zp_model_keys(z);
	return k == K_TMAX ? v.tmax : v.tmax - v.tmin;
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
	z->b.tmax_vals = z->sums;
	z->b.n_tmax_vals = m;
}

/* The model's vector from a Z3 model. */
static void read_model(struct btc_z3 *b, Z3_model m)
{
	struct z3s *z = btc_zp(b);
	for (int i = 0; i < z->n; i++) {
		z->a[i] = -1;
		for (int c = 0; c < z->np && z->a[i] < 0; c++) {
			Z3_ast v;
			if (X(z, i, c) && Z3_model_eval(z->b.ctx, m, X(z, i, c), true, &v) &&
			    Z3_get_bool_value(z->b.ctx, v) == Z3_L_TRUE)
				z->a[i] = c;
		}
		if (z->a[i] < 0)
			btc_panic("Z3 model leaves stage %d unassigned", i);
	}
}

/* Lexicographically smallest stage-to-PU vector under the first `keep`
 * assumptions, starting from the model in z->a. Returns 0 or -1. */
static int lexmin(struct btc_z3 *b, int keep)
{
	struct z3s *z = btc_zp(b);
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
			btc_z3_assume_reset(&z->b, keep);
			for (int j = 0; j < i; j++)
				btc_z3_assume(&z->b, X(z, j, best[j]));
			for (int c = cur; c < np; c++)
				if (X(z, i, c))
					btc_z3_assume(&z->b, btc_z3_not(&z->b, X(z, i, c)));
			int r = btc_z3_check(&z->b);
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
	btc_z3_assume_reset(&z->b, keep);
	return rc;
}

/* Blocks the model's vector (C5), under g when not NULL. */
static void block(struct btc_z3 *b, Z3_ast g)
{
	struct z3s *z = btc_zp(b);
	Z3_ast *lits = btc_xmalloc(sizeof(Z3_ast) * (size_t)(z->n + 1));
	for (int i = 0; i < z->n; i++)
		lits[i] = btc_z3_not(b, X(z, i, z->a[i]));
	if (g)
		lits[z->n] = btc_z3_not(b, g);
	btc_z3_add(b, Z3_mk_or(b->ctx, (unsigned)z->n + (g ? 1 : 0), lits));
	free(lits);
}

static void schedule(const struct btc_z3 *b, struct btc_schedule *out)
{
	const struct z3s *z = (const struct z3s *)b;
	btc_sched_from_assignment(z->p, z->prep, z->a, out);
}

static void save(const struct btc_z3 *b, void *to)
{
	const struct z3s *z = (const struct z3s *)b;
	memcpy(to, z->a, sizeof(int) * (size_t)z->n);
}

static void restore(struct btc_z3 *b, const void *from)
{
	struct z3s *z = btc_zp(b);
	memcpy(z->a, from, sizeof(int) * (size_t)z->n);
}

/* model_size: set per problem by sched_z3.c (n ints), so a const ops
 * table cannot hold it; BTC_SCHED_MAX_STAGES ints always suffice. */
const struct btc_z3_ops btc_zp_ops = {
	.read = read_model,
	.key = key_of,
	.encode_guard = btc_zp_encode_guard,
	.schedule = schedule,
	.block = block,
	.lexmin = lexmin,
	.model_size = sizeof(int) * BTC_SCHED_MAX_STAGES,
	.save = save,
	.restore = restore,
};
