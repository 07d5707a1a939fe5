/* The larger space's presolve by gapness (space.h): the candidates whose
 * chunk costs all lie in a narrow window [L, H], counted and marked by a
 * search over the chunks of each stage sorted by cost, so that a window
 * costs what its own chunks cost, not a pass over every state and option.
 *
 * A candidate has gapness <= W iff its chunks lie in [T_min, T_min + W],
 * so with L running over the chunk costs,
 *   #(gap <= W) = sum_L win(L, L + W) - win(L', L + W)
 * (L' the next cost above L: exactly the candidates with T_min = L), and
 * the candidates with T_min = L and T_max = L + G exactly are the four-term
 * inclusion-exclusion of win over [L, L + G], [L', L + G], [L, H'],
 * [L', H'] (H' the cost below L + G). */
#include "sched/space_gap.h"

#include <stdlib.h>
#include <string.h>

/* A chunk by its first stage: (cost, option, last stage). */
struct btc_space_wchunk {
	int64_t cost;
	int o, l;
};

struct btc_space_win {
	struct btc_space_wchunk *c; /* by first stage, then cost */
	int *start;                 /* [n + 1]: stage f's chunks */
	int64_t *last;              /* costs of the chunks ending at n - 1, ascending */
	int n_last;
	uint32_t *stamp; /* [(n + 1) * n_states]: memo valid when == gen */
	double *val;
	uint32_t gen;
	int64_t lo, hi;
	unsigned char *useful; /* marking, or NULL */
	uint32_t *mark;        /* [(n + 1) * n_states]: marked when == gen */
};

static int cmp_wchunk(const void *a, const void *b)
{
	const struct btc_space_wchunk *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost < y->cost ? -1 : 1;
	if (x->o != y->o)
		return x->o - y->o;
	return x->l - y->l;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static struct btc_space_win *win_get(struct btc_space *sp)
{
	if (sp->win)
		return sp->win;
	struct btc_space_win *w = btc_xcalloc(1, sizeof(*w));
	int n = sp->n;
	size_t m = 0;
	for (int o = 0; o < sp->n_opts; o++)
		for (int f = 0; f < n; f++)
			for (int l = f; l < n && btc_space_cost(sp, o, f, l) >= 0; l++)
				m++;
	w->c = btc_xmalloc(sizeof(*w->c) * (m + 1));
	w->start = btc_xcalloc((size_t)n + 1, sizeof(int));
	w->last = btc_xmalloc(sizeof(int64_t) * (m + 1));
	size_t k = 0;
	for (int f = 0; f < n; f++) {
		w->start[f] = (int)k;
		for (int o = 0; o < sp->n_opts; o++)
			for (int l = f; l < n && btc_space_cost(sp, o, f, l) >= 0; l++) {
				w->c[k++] = (struct btc_space_wchunk){btc_space_cost(sp, o, f, l), o, l};
				if (l == n - 1)
					w->last[w->n_last++] = btc_space_cost(sp, o, f, l);
			}
		qsort(w->c + w->start[f], k - (size_t)w->start[f], sizeof(*w->c), cmp_wchunk);
	}
	w->start[n] = (int)k;
	qsort(w->last, (size_t)w->n_last, sizeof(int64_t), cmp_i64);
	size_t states = (size_t)(n + 1) * sp->n_states;
	w->stamp = btc_xcalloc(states, sizeof(uint32_t));
	w->mark = btc_xcalloc(states, sizeof(uint32_t));
	w->val = btc_xmalloc(sizeof(double) * states);
	sp->win = w;
	return w;
}

void btc_space_win_free(struct btc_space *sp)
{
	struct btc_space_win *w = sp->win;
	if (!w)
		return;
	free(w->c);
	free(w->start);
	free(w->last);
	free(w->stamp);
	free(w->mark);
	free(w->val);
	free(w);
	sp->win = NULL;
}

/* First index in [a, b) of c with cost >= v. */
static int first_cost(const struct btc_space_wchunk *c, int a, int b, int64_t v)
{
	while (a < b) {
		int m = a + (b - a) / 2;
		if (c[m].cost < v)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* The next chunk from state (i, st) inside the window [w->lo, w->hi], in
 * cost order: not a lone farm member (btc_space_single) and with a next
 * state, which goes to *nx. Start with *k = -1; NULL when none is left. */
static inline const struct btc_space_wchunk *next_win(struct btc_space *sp,
						      const struct btc_space_win *w, int i,
						      size_t st, int *k, size_t *nx)
{
	int end = w->start[i + 1];
	*k = *k < 0 ? first_cost(w->c, w->start[i], end, w->lo) : *k + 1;
	for (; *k < end && w->c[*k].cost <= w->hi; ++*k) {
		const struct btc_space_wchunk *c = &w->c[*k];
		if (btc_space_single(sp, i, c->l, c->o, false))
			continue;
		*nx = btc_space_step(sp, st, c->o);
		if (*nx != (size_t)-1)
			return c;
	}
	return NULL;
}

static double win_rec(struct btc_space *sp, struct btc_space_win *w, int i, size_t st)
{
	if (i == sp->n)
		return btc_space_accept(sp, (int)(st % (size_t)sp->n_d), false) ? 1 : 0;
	size_t idx = (size_t)i * sp->n_states + st;
	if (w->stamp[idx] == w->gen)
		return w->val[idx];
	double sum = 0;
	const struct btc_space_wchunk *c;
	size_t nx;
	for (int k = -1; (c = next_win(sp, w, i, st, &k, &nx));)
		sum += win_rec(sp, w, c->l + 1, nx);
	w->stamp[idx] = w->gen;
	w->val[idx] = sum;
	return sum;
}

static void win_mark(struct btc_space *sp, struct btc_space_win *w, int i, size_t st)
{
	size_t idx = (size_t)i * sp->n_states + st;
	if (i == sp->n || w->mark[idx] == w->gen)
		return;
	w->mark[idx] = w->gen;
	const struct btc_space_wchunk *c;
	size_t nx;
	for (int k = -1; (c = next_win(sp, w, i, st, &k, &nx));) {
		if (win_rec(sp, w, c->l + 1, nx) <= 0)
			continue;
		w->useful[((size_t)c->o * sp->n + i) * sp->n + c->l] = 1;
		win_mark(sp, w, c->l + 1, nx);
	}
}

/* The candidates with every chunk in [lo, hi]; with useful, marks their
 * chunks too. */
static double win(struct btc_space *sp, int64_t lo, int64_t hi, unsigned char *useful)
{
	struct btc_space_win *w = win_get(sp);
	if (lo > hi)
		return 0;
	/* a first chunk and a last one must fit the window */
	int e0 = w->start[1];
	int k0 = first_cost(w->c, 0, e0, lo);
	if (k0 == e0 || w->c[k0].cost > hi)
		return 0;
	int a = 0, b = w->n_last;
	while (a < b) {
		int m = a + (b - a) / 2;
		if (w->last[m] < lo)
			a = m + 1;
		else
			b = m;
	}
	if (a == w->n_last || w->last[a] > hi)
		return 0;
	if (++w->gen == 0) {
		size_t states = (size_t)(sp->n + 1) * sp->n_states;
		memset(w->stamp, 0, states * sizeof(uint32_t));
		memset(w->mark, 0, states * sizeof(uint32_t));
		w->gen = 1;
	}
	w->lo = lo;
	w->hi = hi;
	double r = win_rec(sp, w, 0, 0);
	if (useful && r > 0) {
		w->useful = useful;
		win_mark(sp, w, 0, 0);
	}
	return r;
}

/* Index of the first of the sorted distinct costs sums[0..m) >= v. */
static int first_ge(const int64_t *sums, int m, int64_t v)
{
	int a = 0, b = m;
	while (a < b) {
		int k = a + (b - a) / 2;
		if (sums[k] < v)
			a = k + 1;
		else
			b = k;
	}
	return a;
}

static bool out_of_time(struct btc_space *sp)
{
	if (sp->deadline > 0 && btc_sched_now_ms() > sp->deadline)
		sp->expired = true;
	return sp->expired;
}

double btc_space_gap_count(struct btc_space *sp, const int64_t *sums, int m, int64_t W,
			   unsigned char *useful)
{
	if (!sp->dp_ok || W < 0)
		return sp->dp_ok ? 0 : -1;
	double total = 0;
	for (int j = 0; j < m; j++) {
		if ((j & 255) == 0 && out_of_time(sp))
			return -1;
		int64_t L = sums[j], H = L + W;
		double c = win(sp, L, H, NULL);
		if (c <= 0)
			continue;
		if (j + 1 < m)
			c -= win(sp, sums[j + 1], H, NULL);
		if (c > 0 && useful)
			win(sp, L, H, useful);
		total += c;
	}
	return total;
}

double btc_space_gap_level(struct btc_space *sp, const int64_t *sums, int m, int64_t G,
			   int64_t L)
{
	if (!sp->dp_ok)
		return -1;
	int j = first_ge(sums, m, L);
	int64_t next = j + 1 < m ? sums[j + 1] : INT64_MAX;
	int h = first_ge(sums, m, L + G);
	int64_t below = h > 0 ? sums[h - 1] : INT64_MIN; /* the cost under L + G */
	double a = win(sp, L, L + G, NULL);
	if (a <= 0)
		return 0;
	double b = next == INT64_MAX ? 0 : win(sp, next, L + G, NULL);
	double c = below < L ? 0 : win(sp, L, below, NULL);
	double d = next == INT64_MAX || below < next ? 0 : win(sp, next, below, NULL);
	return a - b - c + d;
}
