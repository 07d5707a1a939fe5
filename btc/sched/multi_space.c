/* The joint model's larger space (sched/multi.h, `farms` and
 * `core_splits`; docs/scheduler.md "Farms and core splits in the joint
 * space"): each stream's chunk options in code order, the decoding of its
 * joint-vector entries into chunks, its loads per PU, and the walk over
 * its schedules.
 *
 * A stream's options are those of the single-app larger space (space.h):
 * all cores of one allowed PU, k cores of a split CPU PU (k one of the
 * table's profiled counts), a farm over 2..farm_max_pus allowed PUs and
 * over every allowed PU; sorted by their code (PU, kind, detail). Entry i
 * of the stream's part of the joint vector is 2 o + cut: o the option of
 * stage i's chunk (its index in code order, so comparing entries compares
 * codes), cut 1 when a chunk starts at i although stage i - 1 runs the
 * same option (two chunks of one code side by side, possible with
 * splits): the stage-to-code vector, an unbroken run before a cut. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/model.h"
#include "sched/multi_internal.h"

bool btc_multi_larger(const struct btc_multi_problem *m)
{
	return m->farms || m->core_splits;
}

static void add(struct btc_multi_space *T, int *cap, int pu, int cores, uint32_t farm)
{
	if (T->n == *cap) {
		*cap = *cap ? 2 * *cap : 32;
		T->o = btc_xrealloc(T->o, (size_t)*cap * sizeof(*T->o));
	}
	uint64_t kind = farm ? 2 : cores ? 1 : 0;
	uint64_t detail = farm ? farm : (uint32_t)cores;
	T->o[T->n++] = (struct btc_space_opt){
		.pu = pu,
		.cores = cores,
		.slot = -1,
		.farm = farm,
		.pus = farm ? farm : 1u << pu,
		.code = ((uint64_t)pu << 34) | (kind << 32) | detail,
	};
}

static void add_farms(struct btc_multi_space *T, int *cap, uint32_t allowed, int fmax, int from,
		      uint32_t set, int size, int np)
{
	if (size >= 2 && set != allowed)
		add(T, cap, __builtin_ctz(set), 0, set);
	if (size == fmax)
		return;
	for (int c = from; c < np; c++)
		if (allowed & (1u << c))
			add_farms(T, cap, allowed, fmax, c + 1, set | (1u << c), size + 1, np);
}

static int cmp_code(const void *a, const void *b)
{
	uint64_t x = ((const struct btc_space_opt *)a)->code;
	uint64_t y = ((const struct btc_space_opt *)b)->code;
	return x < y ? -1 : x > y;
}

void btc_multi_space_build(const struct btc_multi_problem *m, int s, struct btc_multi_space *T)
{
	const struct btc_sched_problem *p = m->streams[s].p;
	int np = m->n_pus, n = p->n_stages, cap = 0;
	*T = (struct btc_multi_space){0};
	uint32_t allowed = 0;
	for (int c = 0; c < np; c++) {
		T->units[c] = 1;
		if (m->forbid_mask & (1u << c))
			continue;
		for (int i = 0; i < n; i++)
			if (!isnan(p->time_ms[i * np + c]))
				allowed |= 1u << c;
	}
	for (int c = 0; c < np; c++) {
		if (!(allowed & (1u << c)))
			continue;
		add(T, &cap, c, 0, 0);
		const struct btc_sched_cores *k = p->cores ? &p->cores[c] : NULL;
		if (!m->core_splits || !p->time_cores_ms || !k || k->size < 2 || !k->n_counts)
			continue;
		T->units[c] = k->size;
		for (int j = 0; j < k->n_counts; j++)
			add(T, &cap, c, k->counts[j], 0);
	}
	if (m->farms && __builtin_popcount(allowed) >= 2) {
		int fmax = m->farm_max_pus ? m->farm_max_pus : BTC_SCHED_FARM_MAX_PUS;
		add_farms(T, &cap, allowed, fmax, 0, 0, 0, np);
		add(T, &cap, __builtin_ctz(allowed), 0, allowed);
	}
	qsort(T->o, (size_t)T->n, sizeof(*T->o), cmp_code);
}

void btc_multi_space_free(struct btc_multi_space *T)
{
	free(T->o);
	*T = (struct btc_multi_space){0};
}

/* Units option o takes of PU c. */
static int units(const struct btc_multi_space *T, const struct btc_space_opt *o, int c)
{
	if (!(o->pus & (1u << c)))
		return 0;
	return o->cores ? o->cores : T->units[c];
}

/* Takes option o's units from left[0..np) when they fit on every PU
 * (true); leaves left as it was when they do not (false). */
static bool units_take(const struct btc_multi_space *T, const struct btc_space_opt *o, int *left,
		       int np)
{
	for (int c = 0; c < np; c++)
		if (units(T, o, c) > left[c])
			return false;
	for (int c = 0; c < np; c++)
		left[c] -= units(T, o, c);
	return true;
}

/* Gives option o's units back to left[0..np) (after units_take). */
static void units_give(const struct btc_multi_space *T, const struct btc_space_opt *o, int *left,
		       int np)
{
	for (int c = 0; c < np; c++)
		left[c] += units(T, o, c);
}

/* Chunk (option o, stages f..l)'s time (NAN: a stage has no time on it)
 * and, for a farm, its admitted members. */
static double chunk_time(const struct btc_multi_problem *m, int s, const struct btc_space_opt *o,
			 int f, int l, uint32_t *adm)
{
	const struct btc_sched_problem *p = m->streams[s].p;
	struct btc_sched_chunk ch = {o->pu, f, l, 0, o->farm, o->cores};
	double t = btc_model_chunk_time_ms(p, &ch);
	int extra;
	*adm = o->farm && !isnan(t) ? btc_model_farm_admitted(p, &ch, &extra) : 0;
	return t;
}

/* Adds a chunk of option o taking t ms (farm: admitted members adm) to ct
 * / own / used. */
static void put_chunk(const struct btc_multi_problem *m, int s, const struct btc_space_opt *o,
		      double t, uint32_t adm, double *ct, double *own, uint32_t *used)
{
	const struct btc_sched_problem *p = m->streams[s].p;
	*used |= o->pus;
	if (o->farm) {
		/* each admitted member takes (1/t_c) / sum 1/t of the tasks at
		 * t_c each: farm_ms of its time per task; the others none */
		for (int c = 0; c < m->n_pus; c++)
			if (adm & (1u << c))
				ct[c] += t;
	} else if (o->cores) {
		/* k of the PU's n cores for t_k per task */
		ct[o->pu] += (double)o->cores / p->cores[o->pu].size * t;
		if (own)
			own[o->pu] = fmax(own[o->pu], t);
	} else {
		ct[o->pu] += t;
	}
}

/* Adds chunk (option o, stages f..l) to ct / own / used; false when a
 * stage has no time on it. */
static bool add_chunk(const struct btc_multi_problem *m, int s, const struct btc_space_opt *o,
		      int f, int l, double *ct, double *own, uint32_t *used)
{
	uint32_t adm;
	double t = chunk_time(m, s, o, f, l, &adm);
	if (isnan(t))
		return false;
	put_chunk(m, s, o, t, adm, ct, own, used);
	return true;
}

int btc_multi_space_decode(const struct btc_multi_problem *m, int s,
			   const struct btc_multi_space *T, const int *a, struct btc_multi_chunk *ch)
{
	int n = m->streams[s].p->n_stages, np = m->n_pus, k = 0;
	int left[BTC_SCHED_MAX_PUS];
	for (int c = 0; c < np; c++)
		left[c] = T->units[c];
	for (int f = 0; f < n;) {
		int o = a[f] >> 1;
		if (a[f] < 0 || o >= T->n || ((a[f] & 1) && (f == 0 || (a[f - 1] >> 1) != o)))
			return -1;
		int l = f;
		while (l + 1 < n && a[l + 1] == 2 * o)
			l++;
		const struct btc_space_opt *op = &T->o[o];
		for (int c = 0; c < np; c++) {
			left[c] -= units(T, op, c);
			if (left[c] < 0)
				return -1;
		}
		ch[k++] = (struct btc_multi_chunk){o, f, l};
		f = l + 1;
	}
	return k;
}

bool btc_multi_space_chunks(const struct btc_multi_problem *m, int s,
			    const struct btc_multi_space *T, const int *a, double *ct, double *own,
			    uint32_t *used)
{
	struct btc_multi_chunk ch[BTC_SCHED_MAX_STAGES];
	*used = 0;
	for (int c = 0; c < m->n_pus; c++) {
		ct[c] = 0;
		if (own)
			own[c] = 0;
	}
	int k = btc_multi_space_decode(m, s, T, a, ch);
	if (k < 0)
		return false;
	for (int j = 0; j < k; j++)
		if (!add_chunk(m, s, &T->o[ch[j].o], ch[j].f, ch[j].l, ct, own, used))
			return false;
	return true;
}

struct walk {
	const struct btc_multi_problem *m;
	const struct btc_multi_space *T;
	int s, n, np;
	int left[BTC_SCHED_MAX_PUS];
	int *a;
	void (*fn)(const int *a, void *ctx);
	void *ctx;
};

/* Chunk by chunk from stage f; prev the previous chunk's option (-1). A
 * chunk whose stages lack a time on its option ends its run (the time
 * stays NAN as it grows). */
static long walk_rec(struct walk *w, int f, int prev)
{
	if (f == w->n) {
		w->fn(w->a, w->ctx);
		return 1;
	}
	const struct btc_sched_problem *p = w->m->streams[w->s].p;
	long count = 0;
	for (int o = 0; o < w->T->n; o++) {
		const struct btc_space_opt *op = &w->T->o[o];
		if (!units_take(w->T, op, w->left, w->np))
			continue;
		for (int l = f; l < w->n; l++) {
			struct btc_sched_chunk ch = {op->pu, f, l, 0, op->farm, op->cores};
			if (isnan(btc_model_chunk_time_ms(p, &ch)))
				break;
			w->a[l] = 2 * o;
			w->a[f] = 2 * o + (o == prev);
			count += walk_rec(w, l + 1, o);
		}
		units_give(w->T, op, w->left, w->np);
	}
	return count;
}

long btc_multi_space_assignments(const struct btc_multi_problem *m, int s,
				 void (*fn)(const int *a, void *ctx), void *ctx)
{
	struct btc_multi_space T;
	btc_multi_space_build(m, s, &T);
	int n = m->streams[s].p->n_stages;
	struct walk w = {m, &T, s, n, m->n_pus, {0}, btc_xcalloc((size_t)n, sizeof(int)), fn, ctx};
	for (int c = 0; c < w.np; c++)
		w.left[c] = T.units[c];
	long count = walk_rec(&w, 0, -1);
	free(w.a);
	btc_multi_space_free(&T);
	return count;
}

int btc_multi_stream_schedule(const struct btc_multi_problem *m, int s, const int *a,
			      struct btc_sched_chunk *ch)
{
	const struct btc_sched_problem *p = m->streams[s].p;
	int n = p->n_stages, k = 0;
	if (!btc_multi_larger(m)) {
		double ct[BTC_SCHED_MAX_PUS];
		uint32_t used;
		if (!btc_multi_stream_chunks(m, s, a, ct, NULL, &used))
			return -1;
		for (int f = 0; f < n; k++) {
			int l = f;
			while (l + 1 < n && a[l + 1] == a[f])
				l++;
			ch[k] = (struct btc_sched_chunk){a[f], f, l, 0, 0, 0};
			ch[k].time_ms = btc_model_chunk_time_ms(p, &ch[k]);
			f = l + 1;
		}
		return k;
	}
	struct btc_multi_space T;
	btc_multi_space_build(m, s, &T);
	struct btc_multi_chunk *c = btc_xcalloc((size_t)n, sizeof(*c));
	double ct[BTC_SCHED_MAX_PUS];
	uint32_t used;
	k = btc_multi_space_chunks(m, s, &T, a, ct, NULL, &used) ? btc_multi_space_decode(m, s, &T, a, c)
								 : -1;
	for (int j = 0; j < k; j++) {
		const struct btc_space_opt *o = &T.o[c[j].o];
		ch[j] = (struct btc_sched_chunk){o->pu, c[j].f, c[j].l, 0, o->farm, o->cores};
		ch[j].time_ms = btc_model_chunk_time_ms(p, &ch[j]);
	}
	free(c);
	btc_multi_space_free(&T);
	return k;
}

bool btc_multi_stream_encode(const struct btc_multi_problem *m, int s,
			     const struct btc_sched_chunk *ch, int n_chunks, int *a)
{
	int n = m->streams[s].p->n_stages;
	for (int i = 0; i < n; i++)
		a[i] = -1;
	struct btc_multi_space T = {0};
	bool larger = btc_multi_larger(m), ok = true;
	if (larger)
		btc_multi_space_build(m, s, &T);
	for (int k = 0, prev = -1; k < n_chunks && ok; k++) {
		const struct btc_sched_chunk *c = &ch[k];
		int o = c->pu;
		if (larger) {
			uint32_t pus = c->farm ? c->farm : 1u << c->pu;
			for (o = 0; o < T.n; o++)
				if (T.o[o].pus == pus && T.o[o].farm == c->farm &&
				    T.o[o].cores == (c->farm ? 0 : c->cores))
					break;
			ok = o < T.n;
		} else {
			ok = !c->farm && !c->cores;
		}
		ok = ok && c->first_stage >= 0 && c->first_stage <= c->last_stage && c->last_stage < n;
		for (int i = c->first_stage; ok && i <= c->last_stage; i++)
			a[i] = larger ? 2 * o : o;
		if (ok && larger && o == prev)
			a[c->first_stage] |= 1;
		prev = o;
	}
	btc_multi_space_free(&T);
	double ct[BTC_SCHED_MAX_PUS];
	uint32_t used;
	return ok && btc_multi_stream_chunks(m, s, a, ct, NULL, &used);
}

/* ---- the searches' option lists (btc_multi_space_options) ---- */

struct tab_walk {
	const struct btc_multi_problem *m;
	const struct btc_multi_space *T;
	int s, n, np;
	double *t;      /* [n_opts * n * n] chunk times, NAN: none */
	uint32_t *adm;  /* [n_opts * n * n] a farm's admitted members */
	int left[BTC_SCHED_MAX_PUS];
	int *a;
	struct btc_multi_chunk *ch; /* the chunks so far */
	struct btc_multi_options *L;
	int cap;
};

static size_t tab_at(const struct tab_walk *w, int o, int f, int l)
{
	return ((size_t)o * (size_t)w->n + (size_t)f) * (size_t)w->n + (size_t)l;
}

/* A whole schedule: its vector, loads, own times and mask into L, the
 * chunks in stage order as btc_multi_space_chunks adds them. */
static void tab_leaf(struct tab_walk *w, int k)
{
	struct btc_multi_options *L = w->L;
	int np = w->np;
	if (L->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 256;
		L->a = btc_xrealloc(L->a, (size_t)w->cap * (size_t)w->n * sizeof(int));
		L->ct = btc_xrealloc(L->ct, (size_t)w->cap * (size_t)np * sizeof(double));
		L->own = btc_xrealloc(L->own, (size_t)w->cap * (size_t)np * sizeof(double));
		L->used = btc_xrealloc(L->used, (size_t)w->cap * sizeof(uint32_t));
	}
	double *ct = L->ct + (size_t)L->n * (size_t)np, *own = L->own + (size_t)L->n * (size_t)np;
	uint32_t used = 0;
	for (int c = 0; c < np; c++)
		ct[c] = own[c] = 0;
	for (int j = 0; j < k; j++) {
		size_t at = tab_at(w, w->ch[j].o, w->ch[j].f, w->ch[j].l);
		put_chunk(w->m, w->s, &w->T->o[w->ch[j].o], w->t[at], w->adm[at], ct, own, &used);
	}
	L->used[L->n] = used;
	memcpy(L->a + (size_t)L->n * (size_t)w->n, w->a, (size_t)w->n * sizeof(int));
	L->n++;
}

static void tab_rec(struct tab_walk *w, int f, int prev, int k)
{
	if (f == w->n) {
		tab_leaf(w, k);
		return;
	}
	for (int o = 0; o < w->T->n; o++) {
		const struct btc_space_opt *op = &w->T->o[o];
		if (!units_take(w->T, op, w->left, w->np))
			continue;
		for (int l = f; l < w->n && !isnan(w->t[tab_at(w, o, f, l)]); l++) {
			w->a[l] = 2 * o;
			w->a[f] = 2 * o + (o == prev);
			w->ch[k] = (struct btc_multi_chunk){o, f, l};
			tab_rec(w, l + 1, o, k + 1);
		}
		units_give(w->T, op, w->left, w->np);
	}
}

void btc_multi_space_options(const struct btc_multi_problem *m, int s,
			     struct btc_multi_options *L)
{
	struct btc_multi_space T;
	btc_multi_space_build(m, s, &T);
	int n = m->streams[s].p->n_stages, np = m->n_pus;
	struct tab_walk w = {.m = m, .T = &T, .s = s, .n = n, .np = np};
	size_t cells = (size_t)(T.n ? T.n : 1) * (size_t)n * (size_t)n;
	w.t = btc_xcalloc(cells, sizeof(double));
	w.adm = btc_xcalloc(cells, sizeof(uint32_t));
	for (int o = 0; o < T.n; o++)
		for (int f = 0; f < n; f++)
			for (int l = f; l < n; l++) {
				size_t at = tab_at(&w, o, f, l);
				w.t[at] = chunk_time(m, s, &T.o[o], f, l, &w.adm[at]);
			}
	for (int c = 0; c < np; c++)
		w.left[c] = T.units[c];
	w.a = btc_xcalloc((size_t)n, sizeof(int));
	w.ch = btc_xcalloc((size_t)n, sizeof(*w.ch));
	w.L = L;
	tab_rec(&w, 0, -1, 0);
	free(w.t);
	free(w.adm);
	free(w.a);
	free(w.ch);
	btc_multi_space_free(&T);
}
