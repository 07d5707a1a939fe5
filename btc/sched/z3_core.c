/* The one Z3 layer under both encodings (sched/sched_z3.h): the context,
 * the session, checks under the time budget, and the search steps that do
 * not depend on the encoding. */
#include "sched/sched_z3.h"

#include <stdlib.h>
#include <string.h>
#include <z3.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#endif

int64_t btc_sched_z3_kth_key(const struct found *f, enum key k, int K, int64_t bound)
{
	int64_t *keys = btc_xmalloc(sizeof(int64_t) * (size_t)(f->n + 1));
	int m = 0;
	for (int j = 0; j < f->n; j++) {
		int64_t v = btc_sched_key_of(&f->s[j], k);
		if (v <= bound)
			keys[m++] = v;
	}
	int64_t r = -1;
	if (m >= K) {
		qsort(keys, (size_t)m, sizeof(int64_t), btc_sched_z3_cmp_i64);
		r = keys[K - 1];
	}
	free(keys);
	return r;
}

static int cmp_gap_qsort(const void *x, const void *y)
{
	return btc_sched_cmp_gap(x, y);
}

void btc_sched_z3_take_best(struct btc_sched_result *res, struct found *f, int K, enum key primary)
{
	qsort(f->s, (size_t)f->n, sizeof(*f->s),
	      primary == K_TMAX ? btc_sched_qsort_tmax : cmp_gap_qsort);
	int m = f->n < K ? f->n : K;
	memcpy(res->candidates, f->s, sizeof(*f->s) * (size_t)m);
	res->n_candidates = m;
}

void btc_sched_z3_end(struct btc_z3 *b, struct btc_sched_result *res, struct found *f, int K,
		      enum key primary, int rc)
{
	if (rc < 0)
		res->optimal = false;
	btc_sched_z3_take_best(res, f, K, primary);
	free(f->s);
	btc_z3_assume_reset(b, 0);
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

int btc_sched_z3_check(Z3_context ctx, Z3_solver s, double deadline, unsigned n, Z3_ast *assume,
		       long *checks, bool *expired, Z3_model *model)
{
	if (*expired)
		return -1;
	if (deadline > 0) {
		double left = deadline - btc_sched_now_ms();
		if (left < 1) {
			*expired = true;
			return -1;
		}
		Z3_params prm = Z3_mk_params(ctx);
		Z3_params_inc_ref(ctx, prm);
		Z3_params_set_uint(ctx, prm, Z3_mk_string_symbol(ctx, "timeout"), (unsigned)left);
		Z3_solver_set_params(ctx, s, prm);
		Z3_params_dec_ref(ctx, prm);
	}
	(*checks)++;
	Z3_lbool r = Z3_solver_check_assumptions(ctx, s, n, assume);
	if (r == Z3_L_UNDEF) {
		*expired = true;
		return -1;
	}
	if (r == Z3_L_FALSE)
		return 0;
	*model = Z3_solver_get_model(ctx, s);
	Z3_model_inc_ref(ctx, *model);
	return 1;
}

void btc_z3_start(struct btc_z3 *b, const struct btc_z3_ops *ops, double deadline)
{
	btc_sched_z3_start(&b->ctx, &b->s);
	b->ops = ops;
	b->bool_sort = Z3_mk_bool_sort(b->ctx);
	b->deadline = deadline;
}

void btc_z3_stop(struct btc_z3 *b)
{
	btc_sched_z3_stop(b->ctx, b->s);
	free(b->guards);
	free(b->assume);
	b->guards = NULL;
	b->assume = NULL;
}

Z3_ast btc_z3_fresh(struct btc_z3 *b)
{
	return Z3_mk_const(b->ctx, Z3_mk_int_symbol(b->ctx, (int)b->next_sym++), b->bool_sort);
}

void btc_z3_clause2(struct btc_z3 *b, Z3_ast a, Z3_ast b2)
{
	Z3_ast c[2] = {a, b2};
	btc_z3_add(b, Z3_mk_or(b->ctx, 2, c));
}

void btc_z3_assume_reset(struct btc_z3 *b, int keep)
{
	b->n_assume = keep;
}

void btc_z3_assume(struct btc_z3 *b, Z3_ast lit)
{
	if (b->n_assume == b->cap_assume) {
		b->cap_assume = b->cap_assume ? 2 * b->cap_assume : 64;
		b->assume = btc_xrealloc(b->assume, sizeof(Z3_ast) * (size_t)b->cap_assume);
	}
	b->assume[b->n_assume++] = lit;
}

int btc_z3_check(struct btc_z3 *b)
{
	Z3_model m;
	int r = btc_sched_z3_check(b->ctx, b->s, b->deadline, (unsigned)b->n_assume, b->assume,
				   &b->checks, &b->expired, &m);
	if (r != 1)
		return r;
	b->ops->read(b, m);
	Z3_model_dec_ref(b->ctx, m);
	return 1;
}

bool btc_z3_out_of_time(const struct btc_z3 *b)
{
	return b->deadline > 0 && btc_sched_now_ms() > b->deadline;
}

Z3_ast btc_z3_guard(struct btc_z3 *b, enum guard_kind kind, int64_t value)
{
	for (int j = 0; j < b->n_guards; j++)
		if (b->guards[j].kind == kind && b->guards[j].value == value)
			return b->guards[j].lit;
	Z3_ast g = btc_z3_fresh(b);
	b->ops->encode_guard(b, g, kind, value);
	if (b->n_guards == b->cap_guards) {
		b->cap_guards = b->cap_guards ? 2 * b->cap_guards : 64;
		b->guards = btc_xrealloc(b->guards, sizeof(*b->guards) * (size_t)b->cap_guards);
	}
	b->guards[b->n_guards++] = (struct guard){kind, value, g};
	return g;
}

Z3_ast btc_z3_key_guard(struct btc_z3 *b, enum key k, int64_t v, int64_t fixed_tmax)
{
	if (k == K_TMAX)
		return btc_z3_guard(b, G_TMAX_LE, v);
	if (fixed_tmax >= 0)
		return btc_z3_guard(b, G_TMIN_GE, fixed_tmax - v);
	return btc_z3_guard(b, G_GAP_LE, v);
}

int btc_z3_first_ge(const int64_t *a, int n, int64_t v)
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

int64_t btc_z3_gstar(const int64_t *sums, int n_sums, int64_t v1, btc_z3_min_tmax_fn min_tmax,
		     void *ctx)
{
	/* largest index a with minT(sums[a]) finite */
	int a = 0, b = n_sums - 1;
	while (a < b) {
		int m = a + (b - a + 1) / 2;
		int64_t t = min_tmax(ctx, sums[m]);
		if (t < 0)
			return -1;
		if (t != INT64_MAX)
			a = m;
		else
			b = m - 1;
	}
	/* Downwards from the largest sum <= v1 first (where T_min of
	 * balanced schedules lies), then upwards to the last feasible L. */
	int i0 = btc_z3_first_ge(sums, n_sums, v1 + 1) - 1;
	i0 = i0 > a ? a : i0;
	int64_t best = INT64_MAX;
	for (int i = i0; i >= 0 && best > 0; i--) {
		int64_t L = sums[i];
		if (best != INT64_MAX && L <= v1 - best)
			break;
		int64_t m = min_tmax(ctx, L);
		if (m < 0)
			return -1;
		if (m != INT64_MAX && m - L < best)
			best = m - L;
	}
	/* Upwards minT only grows: after minT(L) = m, a smaller gapness
	 * needs L' > m - best, so skip to the first such sum. */
	for (int i = i0 + 1; i <= a && best > 0;) {
		int64_t L = sums[i];
		int64_t m = min_tmax(ctx, L);
		if (m < 0)
			return -1;
		if (m == INT64_MAX)
			break;
		if (m - L < best)
			best = m - L;
		int next = btc_z3_first_ge(sums, n_sums, m - best + 1);
		i = next > i + 1 ? next : i + 1;
	}
	return best;
}

int btc_z3_minimise(struct btc_z3 *b, int keep, enum key k, int64_t lo, bool probe_lo,
		    int64_t fixed_tmax, int64_t *val)
{
	void *best = btc_xmalloc(b->ops->model_size);
	b->ops->save(b, best);
	int64_t hi = b->ops->key(b, k);
	int rc = 0;
	while (lo < hi) {
		int64_t mid = probe_lo ? lo : lo + (hi - lo) / 2;
		probe_lo = false;
		if (k == K_TMAX && fixed_tmax < 0) {
			/* T_max is a chunk cost: bisect over those in
			 * [lo, hi) instead of over all integers. */
			int a = btc_z3_first_ge(b->tmax_vals, b->n_tmax_vals, lo),
			    c = btc_z3_first_ge(b->tmax_vals, b->n_tmax_vals, hi);
			if (a >= c) {
				lo = hi;
				break;
			}
			mid = b->tmax_vals[a + (c - a - 1) / 2];
		}
		btc_z3_assume_reset(b, keep);
		btc_z3_assume(b, btc_z3_key_guard(b, k, mid, fixed_tmax));
		int r = btc_z3_check(b);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 1) {
			hi = b->ops->key(b, k);
			b->ops->save(b, best);
		} else {
			lo = mid + 1;
		}
	}
	b->ops->restore(b, best);
	free(best);
	btc_z3_assume_reset(b, keep);
	*val = hi;
	return rc;
}

int btc_z3_lexmin(struct btc_z3 *b, int keep)
{
	return b->ops->lexmin(b, keep);
}

void btc_z3_block(struct btc_z3 *b, Z3_ast g)
{
	b->ops->block(b, g);
}

void btc_z3_found_add(struct btc_z3 *b, struct found *f, Z3_ast g)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->s = btc_xrealloc(f->s, sizeof(*f->s) * (size_t)f->cap);
	}
	b->ops->schedule(b, &f->s[f->n++]);
	btc_z3_block(b, g);
}

int btc_z3_enumerate_window(struct btc_z3 *b, struct btc_sched_result *res, int K, enum key primary,
			    int64_t lo, int64_t maxkey, int cap)
{
	struct found f = {0};
	int rc = 1, r;
	Z3_ast g = btc_z3_fresh(b);
	int64_t v1;
	if (btc_z3_minimise(b, 0, primary, lo, lo > 0, -1, &v1) < 0) {
		btc_z3_found_add(b, &f, g);
		rc = -1;
		goto out;
	}
	int64_t w = b->ops->key(b, K_TMAX) / 64;
	w = w > 0 ? w : 1;
	btc_z3_found_add(b, &f, g);
	int64_t B = v1 + w < maxkey ? v1 + w : maxkey;
	for (;;) {
		if (f.n > cap) {
			rc = 0;
			break;
		}
		btc_z3_assume_reset(b, 0);
		btc_z3_assume(b, g);
		btc_z3_assume(b, btc_z3_key_guard(b, primary, B, -1));
		r = btc_z3_check(b);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 1) {
			btc_z3_found_add(b, &f, g);
			int64_t kth = btc_sched_z3_kth_key(&f, primary, K, B);
			if (kth >= 0)
				B = kth;
			continue;
		}
		if (B >= maxkey || btc_sched_z3_kth_key(&f, primary, K, B) >= 0)
			break;
		w *= 2;
		B = v1 + w < maxkey ? v1 + w : maxkey;
	}
out:
	if (rc != 0) {
		btc_sched_z3_take_best(res, &f, K, primary);
		if (rc < 0)
			res->optimal = false;
	}
	free(f.s);
	btc_z3_assume_reset(b, 0);
	return rc;
}

void btc_z3_enumerate_exact(struct btc_z3 *b, struct btc_sched_result *res, int K, enum key primary,
			    enum key secondary)
{
	int64_t prev_p = -1, prev_s = -1;
	while (res->n_candidates < K) {
		btc_z3_assume_reset(b, 0);
		int64_t pv, sv;
		int r;
		if (prev_p >= 0) {
			/* Ties are likely: probe the previous value first. */
			btc_z3_assume(b, btc_z3_key_guard(b, primary, prev_p, -1));
			r = btc_z3_check(b);
			if (r == 0) {
				btc_z3_assume_reset(b, 0);
				r = btc_z3_check(b);
			}
		} else {
			r = btc_z3_check(b);
		}
		if (r <= 0)
			break; /* expired, or no schedule left */
		btc_z3_assume_reset(b, 0);
		int64_t lo = prev_p >= 0 ? prev_p : 0;
		if (btc_z3_minimise(b, 0, primary, lo, false, -1, &pv) < 0)
			break;
		btc_z3_assume(b, btc_z3_key_guard(b, primary, pv, -1));
		int64_t fixed = primary == K_TMAX ? pv : -1;
		bool same = pv == prev_p;
		if (btc_z3_minimise(b, 1, secondary, same ? prev_s : 0, same, fixed, &sv) < 0)
			break;
		btc_z3_assume(b, btc_z3_key_guard(b, secondary, sv, fixed));
		if (btc_z3_lexmin(b, 2) < 0)
			break;
		b->ops->schedule(b, &res->candidates[res->n_candidates++]);
		btc_z3_block(b, NULL);
		prev_p = pv;
		prev_s = sv;
	}
	if (b->expired)
		res->optimal = false;
}

void btc_z3_finish(struct btc_z3 *b, struct btc_sched_result *res)
{
	if (b->expired)
		res->optimal = false;
	qsort(res->candidates, (size_t)res->n_candidates, sizeof(*res->candidates),
	      btc_sched_qsort_tmax);
	res->n_checks = b->checks;
	btc_z3_stop(b);
}
