/* The number of occupancy states of a workload (sched/multi_internal.h,
 * btc_multi_occupancy_states): the product over the streams of the
 * distinct PU masks of their assignments, the search space of the
 * occupancy search (multi_occupancy.c). */
#include <stdlib.h>

#include "sched/multi_internal.h"

/* Distinct masks of the stage-to-PU vectors of one stream. */
struct mask_count {
	const struct btc_multi_problem *m;
	int s, n_stages, n, cap;
	uint32_t *mask;
	struct btc_multi_space *T; /* the larger space's options, or NULL */
	double *ct;
};

static void count_mask(const int *a, void *ctx)
{
	struct mask_count *mc = ctx;
	uint32_t u = 0;
	if (mc->T)
		btc_multi_space_chunks(mc->m, mc->s, mc->T, a, mc->ct, NULL, &u);
	else
		for (int i = 0; i < mc->n_stages; i++)
			u |= 1u << a[i];
	for (int k = 0; k < mc->n; k++)
		if (mc->mask[k] == u)
			return;
	if (mc->n == mc->cap) {
		mc->cap = mc->cap ? 2 * mc->cap : 16;
		mc->mask = btc_xrealloc(mc->mask, (size_t)mc->cap * sizeof(uint32_t));
	}
	mc->mask[mc->n++] = u;
}

/* The product of per-stream counts, capped at BTC_MULTI_OCC_STATES + 1. */
long btc_multi_states_product(const int *n, int S)
{
	long states = 1;
	for (int s = 0; s < S; s++) {
		if (n[s] == 0)
			return 0;
		if (states > BTC_MULTI_OCC_STATES / n[s])
			return BTC_MULTI_OCC_STATES + 1;
		states *= n[s];
	}
	return states;
}

long btc_multi_occupancy_states(const struct btc_multi_problem *m)
{
	int n[BTC_MULTI_MAX_STREAMS];
	for (int s = 0; s < m->n_streams; s++) {
		if (btc_multi_larger(m)) {
			/* the masks of the searches' own lists */
			struct btc_multi_options L = {.n_stages = m->streams[s].p->n_stages,
						      .np = m->n_pus};
			btc_multi_space_options(m, s, &L);
			uint32_t seen[(size_t)1 << 5] = {0}; /* bit sets of masks, 32 x 32 */
			n[s] = 0;
			for (int o = 0; o < L.n; o++) {
				uint32_t u = L.used[o];
				if (u < 1024u && !(seen[u >> 5] & (1u << (u & 31)))) {
					seen[u >> 5] |= 1u << (u & 31);
					n[s]++;
				}
			}
			bool big = false;
			for (int o = 0; o < L.n && !big; o++)
				big = L.used[o] >= 1024u;
			btc_multi_options_free(&L);
			if (!big)
				continue;
		}
		struct mask_count mc = {.m = m, .s = s, .n_stages = m->streams[s].p->n_stages};
		struct btc_multi_space T;
		if (btc_multi_larger(m)) {
			btc_multi_space_build(m, s, &T);
			mc.T = &T;
			mc.ct = btc_xcalloc((size_t)m->n_pus, sizeof(double));
		}
		btc_multi_stream_assignments(m, s, count_mask, &mc);
		n[s] = mc.n;
		free(mc.mask);
		if (mc.T) {
			btc_multi_space_free(&T);
			free(mc.ct);
		}
	}
	return btc_multi_states_product(n, m->n_streams);
}
