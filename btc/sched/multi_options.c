/* One stream's contiguous assignments with their chunk times, shared by
 * the joint branch and bound (multi_search.c) and the occupancy search
 * (multi_occupancy.c); the exhaustive oracle keeps its own walk. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/multi_internal.h"

struct collect {
	struct btc_multi_options *L;
	int cap;
};

static void collect(const int *a, void *ctx)
{
	struct collect *c = ctx;
	struct btc_multi_options *L = c->L;
	if (L->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		L->a = btc_xrealloc(L->a, (size_t)c->cap * (size_t)L->n_stages * sizeof(int));
	}
	memcpy(L->a + (size_t)L->n * (size_t)L->n_stages, a, (size_t)L->n_stages * sizeof(int));
	L->n++;
}

struct vec {
	const int *v;
	int n, i;
};

static int cmp_vec(const void *x, const void *y)
{
	const struct vec *a = x, *b = y;
	return btc_multi_cmp(0, a->v, 0, b->v, a->n);
}

/* Rows of width w (bytes) of *p in the order perm. */
static void permute(void **p, const int *perm, int n, size_t w)
{
	if (!*p)
		return;
	char *src = *p, *dst = btc_xmalloc((size_t)(n > 0 ? n : 1) * w);
	for (int o = 0; o < n; o++)
		memcpy(dst + (size_t)o * w, src + (size_t)perm[o] * w, w);
	free(src);
	*p = dst;
}

void btc_multi_options_build(const struct btc_multi_problem *m, int s,
			     struct btc_multi_options *L)
{
	int n_stages = m->streams[s].p->n_stages, np = m->n_pus;
	bool larger = btc_multi_larger(m);
	*L = (struct btc_multi_options){.n_stages = n_stages, .np = np};
	if (larger) {
		btc_multi_space_options(m, s, L);
	} else {
		struct collect c = {.L = L};
		btc_multi_stream_assignments(m, s, collect, &c);
	}
	if (!L->n)
		return;
	/* lexicographic order of the vectors (they are distinct) */
	struct vec *v = btc_xcalloc((size_t)L->n, sizeof(*v));
	for (int o = 0; o < L->n; o++)
		v[o] = (struct vec){L->a + (size_t)o * (size_t)n_stages, n_stages, o};
	qsort(v, (size_t)L->n, sizeof(*v), cmp_vec);
	int *perm = btc_xcalloc((size_t)L->n, sizeof(int));
	for (int o = 0; o < L->n; o++)
		perm[o] = v[o].i;
	free(v);
	permute((void **)&L->a, perm, L->n, (size_t)n_stages * sizeof(int));
	permute((void **)&L->ct, perm, L->n, (size_t)np * sizeof(double));
	permute((void **)&L->own, perm, L->n, (size_t)np * sizeof(double));
	permute((void **)&L->used, perm, L->n, sizeof(uint32_t));
	free(perm);
	L->self = btc_xcalloc((size_t)L->n, sizeof(double));
	double io = m->streams[s].p->io_ms;
	if (!larger) {
		L->ct = btc_xcalloc((size_t)L->n * (size_t)np, sizeof(double));
		L->used = btc_xcalloc((size_t)L->n, sizeof(uint32_t));
		for (int o = 0; o < L->n; o++) {
			btc_multi_stream_chunks(m, s, L->a + (size_t)o * (size_t)n_stages,
						L->ct + (size_t)o * (size_t)np, NULL, &L->used[o]);
			L->self[o] = io;
		}
		return;
	}
	for (int o = 0; o < L->n; o++) {
		L->self[o] = io;
		for (int u = 0; u < np; u++)
			L->self[o] = fmax(L->self[o], L->own[(size_t)o * (size_t)np + (size_t)u]);
	}
}

void btc_multi_options_free(struct btc_multi_options *L)
{
	free(L->a);
	free(L->ct);
	free(L->used);
	free(L->own);
	free(L->self);
	*L = (struct btc_multi_options){0};
}

struct keyed {
	double key;
	int i;
};

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

void btc_multi_order_by_key(const double *key, int *order, int n)
{
	struct keyed *k = btc_xcalloc((size_t)(n > 0 ? n : 1), sizeof(*k));
	for (int j = 0; j < n; j++)
		k[j] = (struct keyed){key[order[j]], order[j]};
	qsort(k, (size_t)n, sizeof(*k), cmp_keyed);
	for (int j = 0; j < n; j++)
		order[j] = k[j].i;
	free(k);
}

double btc_multi_options_least_self(const struct btc_multi_options *L)
{
	double least = INFINITY;
	for (int o = 0; o < L->n; o++)
		least = fmin(least, L->self[o]);
	return least;
}
