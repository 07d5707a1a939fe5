/* The occupancy search's state (multi_occupancy.c) and its filter of a
 * stream's assignments by the K-th cost (multi_occ_filter.c); private to
 * those two files. */
#ifndef BTC_MULTI_OCC_H
#define BTC_MULTI_OCC_H

#include "sched/multi_internal.h"

/* A group's least c_s sum_p ct sigma and least own limit under the
 * sigmas of one set of the other streams' PUs. */
struct sig_entry {
	uint32_t others;
	double min_total, least_self;
};

/* One stream's assignments of one PU mask. */
struct mask_group {
	uint32_t mask;
	int n;
	int *opt;     /* [n] indices into the stream's list, by total chunk
		       * time (then index): position j is opt[j] */
	double *min;  /* [np] least chunk time on each PU (0 outside mask) */
	double self;  /* least option self (T_io, split teams) */
	double total; /* least sum_p ct over the options (sigma 1) */
	double *tot;  /* [n] sum_p ct of position j (sigma 1), ascending */
	int *by_pu;   /* [np][n][np + 1] PU c's list: the positions j by
		       * chunk time on c (then position), each followed by
		       * its rank (below), for the PUs of the mask */
	int *rank;    /* [n][np] position j's place in PU c's list */
	double *vals; /* [np][n] PU c's list's chunk times on c */
	struct sig_entry *memo; /* set_state's per-others values */
	int n_memo;
};

struct stream_opts {
	struct btc_multi_options opts;
	int n_groups;
	struct mask_group *g;
};

struct occ {
	const struct btc_multi_problem *m;
	struct btc_multi_result *r;
	struct stream_opts *o;
	int S, np, N;
	int *prev;     /* [S] nearest earlier interchangeable stream, or -1 */
	double io_cost; /* max_s c_s x its least option self (T_io, split teams) */
	/* the state being searched */
	int *grp;      /* [S] group index per stream */
	double *sig;   /* [S * np] sigma of the state */
	double *least; /* [S * np] c_s (min ct sigma): the unplaced term */
	double *term;  /* [S * np] the placed term c_s (ct sigma) */
	double *min_total; /* [S] least c_s sum_p ct sigma over the mask's
			    * assignments */
	double *min_sig;   /* [S] least sigma over the mask */
	double *self;      /* [S] c_s self: the placed option's, else the
			    * least over the mask's assignments */
	double *rest;      /* [S + 1] sum of min_total over streams >= s */
	double width;      /* sum of kappa_p(n_p) over the union of the
			    * state's masks (their count without capacities) */
	double kap[BTC_SCHED_MAX_PUS]; /* kappa_p(n_p) of the state */
	int *pick;     /* [S] option index per placed stream */
	double *ct;    /* [S * np] placed chunk times (leaf costing) */
	double *own;   /* [S * np] their own times, or NULL (paper's space) */
	double *t;     /* [S * np] */
	double *rate;  /* [S] */
	uint32_t used[BTC_MULTI_MAX_STREAMS];
	int *a;        /* [N] */
	int **buf;     /* [S][the stream's largest group] descend's candidates */
};

/* The average load over the state's PUs from a total: the peak is at least
 * that (with a margin for the rounding of the sums). */
static inline double btc_multi_occ_average(const struct occ *x, double total)
{
	return total / x->width * (1 - 1e-12);
}

/* The positions j of stream s's group in the state (x->grp[s]) that
 * descend's cuts can pass while the K-th cost is kc, ascending, into buf
 * (room for the group's n); returns their count. before: the placed
 * streams' (< s) total load. A position is left out only when descend
 * would skip it: its total chunk time overflows the average (descend's
 * break: j >= n_tot), or on some PU c of the mask its term takes c's
 * bound term (bound(x, s + 1)'s fsum over kappa, the same arithmetic)
 * over kc. Both are monotone, in j and in the chunk time on c, so each
 * is a prefix (of the positions, of PU c's list by chunk time) found by
 * bisection; the shortest is scanned and each of its entries checked
 * against the others by its rank in every list. Builds the group's lists
 * on first use (by_pu, rank, vals; freed with the group). */
int btc_multi_occ_candidates(struct occ *x, int s, double kc, double before, int *buf);

#endif
