/* The occupancy search's filter of a stream's assignments by the K-th
 * cost (sched/multi_occ.h, btc_multi_occ_candidates): each mask group's
 * assignments listed by their chunk time on each PU, the prefix of each
 * list whose per-PU bound term stays at most the K-th cost (found by
 * bisection on the doubles, then decided by the bound's own arithmetic),
 * and the shortest list's entries that fit every prefix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/multi_occ.h"

/* PU c's term of bound(x, s + 1) when stream s's chunk time on c is v:
 * the fsum of the other streams' terms on c (w[0..n), the placed ones' and
 * the later ones' least, zeros left out as bound leaves them out) and s's
 * own, over kappa_p(n_p); non-decreasing in v. */
static double pu_value(const struct occ *x, int s, int c, double *w, int n, double v)
{
	w[n] = v != 0 ? btc_multi_coeff(x->m, s) * (v * x->sig[s * x->np + c]) : 0;
	return btc_multi_fsum(w, n + (w[n] != 0)) / x->kap[c];
}

/* The first place r in PU c's list (chunk times vals[0..n), ascending)
 * whose pu_value exceeds kc: a bisection on the doubles for the
 * threshold of the plain arithmetic, then the exact predicate galloping
 * from there, so the answer is the exact one's. */
static int pu_limit(const struct occ *x, int s, int c, const double *vals, int n, double kc)
{
	int np = x->np;
	double w[BTC_MULTI_MAX_STREAMS + 1], rest = 0;
	int nw = 0;
	for (int k = 0; k < x->S; k++) {
		double t = k < s ? x->term[k * np + c] : x->least[k * np + c];
		if (k != s && t != 0) {
			w[nw++] = t;
			rest += t;
		}
	}
	double thr = (kc * x->kap[c] - rest) / (btc_multi_coeff(x->m, s) * x->sig[s * np + c]);
	int lo = 0, hi = n;
	while (lo < hi) { /* first vals > thr */
		int mid = lo + (hi - lo) / 2;
		if (vals[mid] > thr)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* the exact boundary lies in [lo, hi): gallop out from the guess */
	int a = lo, step = 1;
	if (a < n && pu_value(x, s, c, w, nw, vals[a]) <= kc) {
		lo = a + 1; /* the boundary is above a */
		hi = n;
		while (a + step < n && pu_value(x, s, c, w, nw, vals[a + step]) <= kc) {
			lo = a + step + 1;
			step *= 2;
		}
		if (a + step < n)
			hi = a + step;
	} else {
		hi = a; /* at or below a */
		lo = 0;
		while (a - step >= 0 && pu_value(x, s, c, w, nw, vals[a - step]) > kc) {
			hi = a - step;
			step *= 2;
		}
		if (a - step >= 0)
			lo = a - step + 1;
	}
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (pu_value(x, s, c, w, nw, vals[mid]) > kc)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Group G's per-PU orders (by_pu, rank), built on first use. */
static void index_group(const struct occ *x, int s, struct mask_group *G)
{
	int np = x->np, n = G->n;
	size_t w = (size_t)np + 1;
	const double *ct = x->o[s].opts.ct;
	G->by_pu = btc_xcalloc((size_t)np * (size_t)n * w, sizeof(int));
	G->rank = btc_xcalloc((size_t)n * (size_t)np, sizeof(int));
	G->vals = btc_xcalloc((size_t)n * (size_t)np, sizeof(double));
	double *key = btc_xcalloc((size_t)n, sizeof(double));
	int *by = btc_xcalloc((size_t)n, sizeof(int));
	for (int c = 0; c < np; c++) {
		if (!(G->mask & (1u << c)))
			continue;
		for (int j = 0; j < n; j++) {
			key[j] = ct[(size_t)G->opt[j] * (size_t)np + (size_t)c];
			by[j] = j;
		}
		btc_multi_order_by_key(key, by, n);
		for (int r = 0; r < n; r++)
			G->rank[(size_t)by[r] * (size_t)np + (size_t)c] = r;
	}
	for (int c = 0; c < np; c++) {
		if (!(G->mask & (1u << c)))
			continue;
		for (int j = 0; j < n; j++) {
			const int *rk = G->rank + (size_t)j * (size_t)np;
			int *e = G->by_pu + ((size_t)c * (size_t)n + (size_t)rk[c]) * w;
			e[0] = j;
			memcpy(e + 1, rk, (size_t)np * sizeof(int));
			G->vals[(size_t)c * (size_t)n + (size_t)rk[c]] =
				ct[(size_t)G->opt[j] * (size_t)np + (size_t)c];
		}
	}
	free(by);
	free(key);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* sched/multi_occ.h */
int btc_multi_occ_candidates(struct occ *x, int s, double kc, double before, int *buf)
{
	struct mask_group *G = &x->o[s].g[x->grp[s]];
	int np = x->np, n = G->n;
	double cs = btc_multi_coeff(x->m, s);
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		double total = before + cs * x->min_sig[s] * G->tot[mid] + x->rest[s + 1];
		double avg = btc_multi_occ_average(x, total);
		if (avg > kc)
			hi = mid;
		else
			lo = mid + 1;
	}
	int n_tot = lo, len = n_tot, best = -1, lim[BTC_SCHED_MAX_PUS];
	size_t w = (size_t)np + 1;
	if (!G->by_pu)
		index_group(x, s, G);
	for (int c = 0; c < np; c++) {
		if (!(G->mask & (1u << c)))
			continue;
		lo = pu_limit(x, s, c, G->vals + (size_t)c * (size_t)n, n, kc);
		lim[c] = lo;
		if (lo < len) {
			len = lo;
			best = c;
		}
	}
	for (int c = 0; c < np; c++)
		if (!(G->mask & (1u << c)))
			lim[c] = n; /* every rank 0 there: no limit */
	int k = 0;
	for (int i = 0; i < len; i++) {
		const int *e =
			best < 0 ? NULL : G->by_pu + ((size_t)best * (size_t)n + (size_t)i) * w;
		int j = e ? e[0] : i;
		const int *rk = e ? e + 1 : G->rank + (size_t)j * (size_t)np;
		bool ok = j < n_tot;
		for (int c = 0; c < np && ok; c++)
			ok = rk[c] < lim[c];
		if (ok)
			buf[k++] = j;
	}
	if (best >= 0)
		qsort(buf, (size_t)k, sizeof(int), cmp_int);
	return k;
}
