/* The larger schedule space (space.h; docs/scheduler.md, "The larger
 * space"): its chunk options, their quantised costs, schedules from chunk
 * lists, and the presolve over (next stage, units used, chunk count). */
#include "sched/space.h"
#include "sched/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t btc_space_farm_q(const int64_t *member_q, int n)
{
	double m[32], period;
	uint32_t extra;
	for (int j = 0; j < n && j < 32; j++)
		m[j] = (double)member_q[j];
	btrt_model_farm(m, (uint32_t)(n < 32 ? n : 32), BTRT_FARM_EXTRA_MAX, &period, &extra);
	return llround(period);
}

int btc_space_units(const struct btc_space *sp, int o, int c)
{
	const struct btc_space_opt *op = &sp->opts[o];
	if (!(op->pus & (1u << c)))
		return 0;
	return op->cores ? op->cores : sp->cap[c];
}

static int cmp_opt(const void *a, const void *b)
{
	uint64_t x = ((const struct btc_space_opt *)a)->code;
	uint64_t y = ((const struct btc_space_opt *)b)->code;
	return x < y ? -1 : x > y;
}

static void add_opt(struct btc_space *sp, int *cap, int pu, int cores, int slot, uint32_t farm)
{
	if (sp->n_opts == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		sp->opts = btc_xrealloc(sp->opts, sizeof(*sp->opts) * (size_t)*cap);
	}
	uint64_t kind = farm ? 2 : cores ? 1 : 0;
	uint64_t detail = farm ? farm : (uint32_t)cores;
	sp->opts[sp->n_opts++] = (struct btc_space_opt){
		.pu = pu,
		.cores = cores,
		.slot = slot,
		.farm = farm,
		.pus = farm ? farm : 1u << pu,
		.code = ((uint64_t)pu << 34) | (kind << 32) | detail,
	};
}

/* Every set of 2..fmax PUs of `allowed`, from PU `from` on, into sp. */
static void add_farms(struct btc_space *sp, int *cap, uint32_t allowed, int fmax, int from,
		      uint32_t set, int size)
{
	if (size >= 2 && set != allowed)
		add_opt(sp, cap, __builtin_ctz(set), 0, -1, set);
	if (size == fmax)
		return;
	for (int c = from; c < sp->p; c++)
		if (allowed & (1u << c))
			add_farms(sp, cap, allowed, fmax, c + 1, set | (1u << c), size + 1);
}

/* Costs of one ordinary option over every range (tq: the stage times of
 * its core count, stride between stages `step`). */
static void ordinary_costs(struct btc_space *sp, const struct btc_sched_prep *prep, int o,
			   const int64_t *tq, size_t step)
{
	int n = sp->n, c = sp->opts[o].pu;
	for (int f = 0; f < n; f++) {
		int64_t sum = 0;
		bool ok = true;
		for (int l = f; l < n; l++) {
			int64_t t = tq[(size_t)l * step];
			ok = ok && t >= 0;
			sum += ok ? t : 0;
			sp->cost[((size_t)o * n + f) * n + l] =
				ok ? btc_sched_chunk_q(prep, c, f, l, sum) : -1;
		}
	}
}

static void farm_costs(struct btc_space *sp, int o, const int *whole, const int *pin)
{
	int n = sp->n;
	uint32_t set = sp->opts[o].farm;
	int64_t q[BTC_SCHED_MAX_PUS];
	for (int f = 0; f < n; f++) {
		bool ok = true;
		for (int l = f; l < n; l++) {
			/* a pinned stage runs on its PU alone */
			ok = ok && !(pin && pin[l] >= 0);
			int m = 0;
			for (int c = 0; ok && c < sp->p; c++)
				if (set & (1u << c)) {
					q[m] = btc_space_cost(sp, whole[c], f, l);
					ok = q[m++] >= 0;
				}
			sp->cost[((size_t)o * n + f) * n + l] = ok ? btc_space_farm_q(q, m) : -1;
		}
	}
}

/* An option by its least cost from one stage. */
struct by_cost {
	int64_t m;
	int o;
};

static int cmp_by_cost(const void *a, const void *b)
{
	const struct by_cost *x = a, *y = b;
	if (x->m != y->m)
		return x->m < y->m ? -1 : 1;
	return x->o - y->o;
}

static void dp_setup(struct btc_space *sp)
{
	int np = sp->p;
	size_t usage = 1;
	int most = 0; /* chunks a schedule can have at most */
	for (int c = 0; c < np; c++) {
		sp->radix[c] = sp->cap[c] + 1;
		sp->stride[c] = usage;
		int smallest = sp->cap[c];
		bool any = false;
		for (int o = 0; o < sp->n_opts; o++)
			if (!sp->opts[o].farm && sp->opts[o].pu == c) {
				any = true;
				int u = btc_space_units(sp, o, c);
				smallest = u < smallest ? u : smallest;
			}
		if (!any) {
			sp->radix[c] = 1; /* runs no ordinary chunk: in no farm either */
			for (int o = 0; o < sp->n_opts; o++)
				if (sp->opts[o].pus & (1u << c))
					sp->radix[c] = 2;
		} else {
			most += sp->cap[c] / smallest;
		}
		if (usage > ((size_t)1 << 24) / (size_t)sp->radix[c]) {
			sp->dp_ok = false;
			return;
		}
		usage *= (size_t)sp->radix[c];
	}
	most = most < sp->n ? most : sp->n;
	sp->limit_binds = sp->kmax < most;
	sp->n_d = sp->limit_binds ? (sp->kmax + 1) * 2 : 1;
	sp->n_usage = usage;
	sp->n_states = usage * (size_t)sp->n_d;
	sp->dp_ok = (double)(sp->n + 1) * (double)sp->n_states <= (double)(1 << 23);
	if (!sp->dp_ok)
		return;
	sp->fullfree = btc_xmalloc(sizeof(uint32_t) * usage);
	sp->freeu = btc_xmalloc(usage * (size_t)np);
	for (size_t u = 0; u < usage; u++) {
		uint32_t full = 0;
		for (int c = 0; c < np; c++) {
			int used = (int)(u / sp->stride[c] % (size_t)sp->radix[c]);
			int cap = sp->radix[c] == 1 ? 0 : sp->cap[c];
			if (!used)
				full |= 1u << c;
			sp->freeu[u * (size_t)np + (size_t)c] = (unsigned char)(cap - used);
		}
		sp->fullfree[u] = full;
	}
	sp->minc = btc_xmalloc(sizeof(int64_t) * (size_t)sp->n_opts * (size_t)sp->n);
	sp->ord = btc_xmalloc(sizeof(int) * (size_t)sp->n_opts * (size_t)sp->n);
	struct by_cost *bc = btc_xmalloc(sizeof(*bc) * (size_t)sp->n_opts);
	for (int f = 0; f < sp->n; f++) {
		for (int o = 0; o < sp->n_opts; o++) {
			int64_t m = INT64_MAX;
			for (int l = f; l < sp->n; l++) {
				int64_t w = btc_space_cost(sp, o, f, l);
				if (w < 0)
					break;
				m = w < m ? w : m;
			}
			sp->minc[(size_t)o * sp->n + f] = m;
			bc[o] = (struct by_cost){m, o};
		}
		qsort(bc, (size_t)sp->n_opts, sizeof(*bc), cmp_by_cost);
		for (int o = 0; o < sp->n_opts; o++)
			sp->ord[(size_t)f * sp->n_opts + o] = bc[o].o;
	}
	free(bc);
	sp->delta = btc_xmalloc(sizeof(size_t) * (size_t)sp->n_opts);
	for (int o = 0; o < sp->n_opts; o++) {
		size_t dl = 0;
		for (int c = 0; c < np; c++) {
			int u = btc_space_units(sp, o, c);
			/* a PU of radix 2 takes one unit per use */
			if (u)
				dl += (size_t)(sp->radix[c] == 2 ? 1 : u) * sp->stride[c];
		}
		sp->delta[o] = dl;
	}
}

enum btc_status btc_space_build(const struct btc_sched_problem *p,
				const struct btc_sched_options *opt,
				const struct btc_sched_prep *prep, struct btc_space *sp,
				struct btc_diag *d)
{
	memset(sp, 0, sizeof(*sp));
	int n = prep->n, np = prep->p;
	sp->n = n;
	sp->p = np;
	sp->mono = prep->mono;
	uint32_t allowed = 0;
	for (int c = 0; c < np; c++) {
		if (opt->forbid_mask & (1u << c))
			continue;
		for (int i = 0; i < n; i++)
			if (prep->tq[i * np + c] >= 0)
				allowed |= 1u << c;
	}
	int cap = 0;
	int whole[BTC_SCHED_MAX_PUS];
	for (int c = 0; c < np; c++) {
		sp->cap[c] = 1;
		if (!(allowed & (1u << c)))
			continue;
		add_opt(sp, &cap, c, 0, -1, 0);
		const struct btc_sched_cores *k = p->cores ? &p->cores[c] : NULL;
		if (!prep->tkq || !k || k->size < 2 || !k->n_counts)
			continue;
		sp->split |= 1u << c;
		sp->cap[c] = k->size;
		for (int j = 0; j < k->n_counts; j++)
			add_opt(sp, &cap, c, k->counts[j], j, 0);
	}
	if (opt->farms && __builtin_popcount(allowed) >= 2) {
		int fmax = opt->farm_max_pus ? opt->farm_max_pus : BTC_SCHED_FARM_MAX_PUS;
		add_farms(sp, &cap, allowed, fmax, 0, 0, 0);
		add_opt(sp, &cap, __builtin_ctz(allowed), 0, -1, allowed);
	}
	qsort(sp->opts, (size_t)sp->n_opts, sizeof(*sp->opts), cmp_opt);
	if ((double)sp->n_opts * n * n > BTC_SPACE_MAX_COSTS) {
		btc_error(d, (struct btc_loc){0},
			  "schedule: farms and core splits over %d stages x %d chunk options "
			  "exceed the %d chunks the solvers tabulate: use fewer PUs per farm",
			  n, sp->n_opts, BTC_SPACE_MAX_COSTS);
		btc_space_free(sp);
		return BTC_ERR_USAGE;
	}
	sp->cost = btc_xmalloc(sizeof(int64_t) * (size_t)sp->n_opts * (size_t)n * (size_t)n);
	for (size_t k = 0; k < (size_t)sp->n_opts * (size_t)n * (size_t)n; k++)
		sp->cost[k] = -1;
	for (int o = 0; o < sp->n_opts; o++) {
		const struct btc_space_opt *op = &sp->opts[o];
		if (op->farm)
			continue;
		if (!op->cores) {
			whole[op->pu] = o;
			ordinary_costs(sp, prep, o, prep->tq + op->pu, (size_t)np);
		} else {
			ordinary_costs(sp, prep, o,
				       prep->tkq + btc_sched_cores_index(np, 0, op->pu, op->slot),
				       (size_t)np * BTC_SCHED_MAX_CORE_COUNTS);
		}
	}
	for (int o = 0; o < sp->n_opts; o++)
		if (sp->opts[o].farm)
			farm_costs(sp, o, whole, opt->pin);
	sp->kmax = opt->max_chunks > 0 && opt->max_chunks < BTC_SCHED_MAX_PUS ? opt->max_chunks
									       : BTC_SCHED_MAX_PUS;
	sp->dp_ok = true;
	dp_setup(sp);
	return BTC_OK;
}

static void pass_free(struct btc_space_pass *q);

void btc_space_free(struct btc_space *sp)
{
	free(sp->opts);
	free(sp->cost);
	free(sp->fullfree);
	free(sp->freeu);
	free(sp->delta);
	free(sp->minc);
	free(sp->ord);
	pass_free(sp->lb);
	memset(sp, 0, sizeof(*sp));
}

void btc_space_schedule(const struct btc_sched_problem *p, const struct btc_space *sp,
			const int *o, const int *f, const int *l, int n_chunks,
			struct btc_schedule *s)
{
	memset(s, 0, sizeof(*s));
	if (n_chunks > BTC_SCHED_MAX_PUS)
		btc_panic("schedule has more than %d chunks", BTC_SCHED_MAX_PUS);
	int64_t q[BTC_SCHED_MAX_PUS];
	for (int k = 0; k < n_chunks; k++) {
		const struct btc_space_opt *op = &sp->opts[o[k]];
		struct btc_sched_chunk *ch = &s->chunks[k];
		*ch = (struct btc_sched_chunk){op->pu, f[k], l[k], 0, op->farm, op->cores};
		ch->time_ms = btc_model_chunk_time_ms(p, ch);
		q[k] = btc_space_cost(sp, o[k], f[k], l[k]);
	}
	s->n_chunks = n_chunks;
	btc_sched_summarize(p, q, s);
}

/* ---- presolve ---- */

struct btc_space_pass {
	struct btc_space *sp;
	int64_t lo, hi;
	bool all;
	bool prune; /* skip states whose sp->lb bound exceeds hi */
	unsigned char *seen; /* [(n + 1) * n_states] */
	double *count;
	int64_t *best;
	long ticks;
};

static inline bool tick(struct btc_space_pass *q)
{
	if (__builtin_expect((++q->ticks & 65535) == 0, 0) && q->sp->deadline > 0 &&
	    btc_sched_now_ms() > q->sp->deadline)
		q->sp->expired = true;
	return !q->sp->expired;
}

static int64_t min_rec(struct btc_space_pass *q, int i, size_t st);

/* Whether the state (i, st) can finish with every chunk <= q->hi, by the
 * cached lower bound (true when there is none). */
static inline bool live(struct btc_space_pass *q, int i, size_t st)
{
	return !q->prune || min_rec(q->sp->lb, i, st) <= q->hi;
}

/* One chunk that can start at layer i: option o over layers i..l, of cost w,
 * leading to state nx. k is the option's rank in sp->ord. */
struct space_edge {
	int k, o, l;
	size_t nx;
	int64_t w;
};

/* Before the first next_edge call from layer i. */
static inline struct space_edge edge_start(const struct btc_space *sp)
{
	return (struct space_edge){.k = -1, .l = sp->n};
}

/* Advances e to the next chunk from state (i, st) of cost <= cap, options in
 * sp->ord order (cheapest first, so a too-dear option ends the walk) and each
 * option's chunks by growing l (a dear one ends them when sp->mono). cap may
 * fall between calls. False when none is left or the deadline passed. */
static inline bool next_edge(struct btc_space_pass *q, int i, size_t st, int64_t cap,
			     struct space_edge *e)
{
	struct btc_space *sp = q->sp;
	for (;;) {
		while (++e->l < sp->n) {
			int64_t w = btc_space_cost(sp, e->o, i, e->l);
			if (w < 0)
				break;
			if (w > cap) {
				if (sp->mono)
					break;
				continue;
			}
			e->w = w;
			return true;
		}
		for (;;) {
			if (++e->k >= sp->n_opts || !tick(q))
				return false;
			int o = sp->ord[(size_t)i * sp->n_opts + e->k];
			if (sp->minc[(size_t)o * sp->n + i] > cap) {
				e->k = sp->n_opts;
				return false;
			}
			e->nx = btc_space_step(sp, st, o);
			if (e->nx == (size_t)-1)
				continue;
			e->o = o;
			e->l = i - 1;
			break;
		}
	}
}

static double count_rec(struct btc_space_pass *q, int i, size_t st)
{
	struct btc_space *sp = q->sp;
	if (i == sp->n)
		return btc_space_accept(sp, (int)(st % (size_t)sp->n_d), q->all) ? 1 : 0;
	size_t idx = (size_t)i * sp->n_states + st;
	if (q->seen[idx])
		return q->count[idx];
	double sum = 0;
	for (struct space_edge e = edge_start(sp); next_edge(q, i, st, q->hi, &e);)
		if (e.w >= q->lo && !btc_space_single(sp, i, e.l, e.o, q->all) &&
		    live(q, e.l + 1, e.nx))
			sum += count_rec(q, e.l + 1, e.nx);
	q->seen[idx] = 1;
	q->count[idx] = sum;
	return sum;
}

static int64_t min_rec(struct btc_space_pass *q, int i, size_t st)
{
	struct btc_space *sp = q->sp;
	if (i == sp->n)
		return btc_space_accept(sp, (int)(st % (size_t)sp->n_d), false) ? 0 : INT64_MAX;
	size_t idx = (size_t)i * sp->n_states + st;
	if (q->seen[idx])
		return q->best[idx];
	int64_t b = INT64_MAX;
	/* a chunk of cost >= b cannot improve on b: the cap is min(hi, b - 1) */
	struct space_edge e = edge_start(sp);
	while (next_edge(q, i, st, b - 1 < q->hi ? b - 1 : q->hi, &e)) {
		if (e.w < q->lo || btc_space_single(sp, i, e.l, e.o, false))
			continue;
		int64_t rest = min_rec(q, e.l + 1, e.nx);
		int64_t m = rest > e.w ? rest : e.w;
		b = m < b ? m : b;
	}
	q->seen[idx] = 1;
	q->best[idx] = b;
	return b;
}

static void pass_free(struct btc_space_pass *q)
{
	if (!q)
		return;
	free(q->seen);
	free(q->best);
	free(q);
}

static bool pass_begin(struct btc_space_pass *q, struct btc_space *sp, int64_t lo, int64_t hi, bool all)
{
	memset(q, 0, sizeof(*q));
	if (!sp->dp_ok || sp->expired)
		return false;
	q->sp = sp;
	q->lo = lo;
	q->hi = hi;
	q->all = all;
	q->prune = sp->lb && hi <= sp->lb_hi && !all;
	q->seen = btc_xcalloc((size_t)(sp->n + 1) * sp->n_states, 1);
	return true;
}

double btc_space_dp_count(struct btc_space *sp, int64_t lo, int64_t hi, bool all)
{
	struct btc_space_pass q;
	if (!pass_begin(&q, sp, lo, hi, all))
		return -1;
	q.count = btc_xmalloc(sizeof(double) * (size_t)(sp->n + 1) * sp->n_states);
	double r = count_rec(&q, 0, 0);
	free(q.seen);
	free(q.count);
	return sp->expired ? -1 : r;
}

int64_t btc_space_whole_farm(const struct btc_space *sp)
{
	int64_t best = INT64_MAX;
	for (int o = 0; o < sp->n_opts; o++) {
		int64_t w = btc_space_cost(sp, o, 0, sp->n - 1);
		if (sp->opts[o].farm && w >= 0 && w < best)
			best = w;
	}
	return best;
}

int64_t btc_space_dp_min_tmax(struct btc_space *sp, int64_t lo, int64_t hi)
{
	struct btc_space_pass q;
	if (!pass_begin(&q, sp, lo, hi, false))
		return -1;
	q.best = btc_xmalloc(sizeof(int64_t) * (size_t)(sp->n + 1) * sp->n_states);
	q.prune = false;
	int64_t r = min_rec(&q, 0, 0);
	if (lo == 0 && !sp->lb && !sp->expired) {
		/* keep the memo: the lower bound of later count passes */
		sp->lb = btc_xmalloc(sizeof(q));
		*sp->lb = q;
		sp->lb_hi = hi;
	} else {
		free(q.seen);
		free(q.best);
	}
	return sp->expired ? -1 : r;
}

/* ok: 1 no completion, 2 a completion (count_rec's memo reused as flags). */
static bool can_complete(struct btc_space_pass *q, int i, size_t st)
{
	return count_rec(q, i, st) > 0;
}

static void mark_rec(struct btc_space_pass *q, int i, size_t st, unsigned char *visited,
		     unsigned char *useful)
{
	struct btc_space *sp = q->sp;
	size_t idx = (size_t)i * sp->n_states + st;
	if (i == sp->n || visited[idx])
		return;
	visited[idx] = 1;
	for (struct space_edge e = edge_start(sp); next_edge(q, i, st, q->hi, &e);) {
		if (e.w < q->lo || btc_space_single(sp, i, e.l, e.o, false) ||
		    !can_complete(q, e.l + 1, e.nx))
			continue;
		useful[((size_t)e.o * sp->n + i) * sp->n + e.l] = 1;
		mark_rec(q, e.l + 1, e.nx, visited, useful);
	}
}

int btc_space_dp_useful(struct btc_space *sp, int64_t lo, int64_t hi, unsigned char *useful)
{
	struct btc_space_pass q;
	if (!pass_begin(&q, sp, lo, hi, false))
		return -1;
	size_t m = (size_t)(sp->n + 1) * sp->n_states;
	q.count = btc_xmalloc(sizeof(double) * m);
	unsigned char *visited = btc_xcalloc(m, 1);
	memset(useful, 0, (size_t)sp->n_opts * (size_t)sp->n * (size_t)sp->n);
	if (can_complete(&q, 0, 0))
		mark_rec(&q, 0, 0, visited, useful);
	free(q.seen);
	free(q.count);
	free(visited);
	return sp->expired ? -1 : 0;
}
