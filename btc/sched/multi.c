/* The joint model of several streams on one chip (sched/multi.h,
 * docs/scheduler.md "Several apps"): validation, the evaluation of one
 * joint assignment, the ranking order and each stream's assignments. */
#include "sched/multi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/model.h"
#include "sched/multi_internal.h"

static const struct btc_loc no_loc = {0};

static const char *const objective_names[] = {"maxmin", "rates", "sum"};

const char *btc_multi_objective_name(enum btc_multi_objective o)
{
	return objective_names[o];
}

int btc_multi_objective_parse(const char *s, enum btc_multi_objective *o)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, objective_names[i])) {
			*o = (enum btc_multi_objective)i;
			return 0;
		}
	return -1;
}

int btc_multi_offset(const struct btc_multi_problem *m, int s)
{
	int off = 0;
	for (int k = 0; k < s; k++)
		off += m->streams[k].p->n_stages;
	return off;
}

enum btc_status btc_multi_validate(const struct btc_multi_problem *m, struct btc_diag *d)
{
	if (m->n_streams < 1 || m->n_streams > BTC_MULTI_MAX_STREAMS) {
		btc_error(d, no_loc, "a workload has 1 to %d streams, not %d", BTC_MULTI_MAX_STREAMS,
			  m->n_streams);
		return BTC_ERR_USAGE;
	}
	if (m->top_k < 1) {
		btc_error(d, no_loc, "K must be at least 1, not %d", m->top_k);
		return BTC_ERR_USAGE;
	}
	struct btc_sched_options opt;
	btc_sched_options_init(&opt);
	opt.forbid_mask = m->forbid_mask;
	for (int s = 0; s < m->n_streams; s++) {
		const struct btc_multi_stream *st = &m->streams[s];
		if (st->p->n_pus != m->n_pus) {
			btc_error(d, no_loc, "stream %d has %d PUs, the workload %d", s,
				  st->p->n_pus, m->n_pus);
			return BTC_ERR_USAGE;
		}
		if (!(st->weight > 0) || !isfinite(st->weight)) {
			btc_error(d, no_loc, "stream %d: weight must be positive, not %g", s,
				  st->weight);
			return BTC_ERR_USAGE;
		}
		if (m->objective == BTC_MULTI_RATES && (!(st->rate > 0) || !isfinite(st->rate))) {
			btc_error(d, no_loc,
				  "stream %d: objective rates needs a positive target rate", s);
			return BTC_ERR_USAGE;
		}
		enum btc_status rc = btc_sched_validate(st->p, &opt, d);
		if (rc != BTC_OK)
			return rc;
		for (int k = 0; st->slowdown && k < m->n_pus * m->n_pus; k++)
			if (!isfinite(st->slowdown[k]) || st->slowdown[k] < 0) {
				btc_error(d, no_loc, "stream %d: co-run slowdown %d/%d is %g (finite >= 0)",
					  s, k / m->n_pus, k % m->n_pus, st->slowdown[k]);
				return BTC_ERR_TABLE;
			}
	}
	for (int c = 0; m->capacity && c < m->n_pus; c++)
		for (int n = 2; n <= m->n_streams; n++) {
			double k = m->capacity[c * (m->n_streams + 1) + n];
			if (!isfinite(k) || !(k > 0)) {
				btc_error(d, no_loc, "PU %d: same-PU capacity at %d streams is %g "
					  "(finite > 0)", c, n, k);
				return BTC_ERR_TABLE;
			}
		}
	return BTC_OK;
}

double btc_multi_kappa(const struct btc_multi_problem *m, int p, int n)
{
	if (!m->capacity || n < 2 || n > m->n_streams)
		return 1.0;
	return m->capacity[p * (m->n_streams + 1) + n];
}

double btc_multi_kappa_hi(const struct btc_multi_problem *m, int p)
{
	double hi = 1.0;
	for (int n = 2; n <= m->n_streams; n++)
		hi = fmax(hi, btc_multi_kappa(m, p, n));
	return hi;
}

void btc_multi_capacities(const struct btc_multi_problem *m, const uint32_t *used, double *cap)
{
	for (int c = 0; c < m->n_pus; c++) {
		int n = 0;
		for (int s = 0; s < m->n_streams; s++)
			n += (used[s] >> c) & 1u;
		cap[c] = btc_multi_kappa(m, c, n);
	}
}

double btc_multi_sigma(const struct btc_multi_problem *m, int s, int p, uint32_t others)
{
	const double *slow = m->streams[s].slowdown;
	double sg = 1.0;
	if (!slow)
		return sg;
	for (int q = 0; q < m->n_pus; q++)
		if (q != p && (others & (1u << q)) && slow[p * m->n_pus + q] > sg)
			sg = slow[p * m->n_pus + q];
	return sg;
}

bool btc_multi_stream_chunks(const struct btc_multi_problem *m, int s, const int *a, double *ct,
			     double *own, uint32_t *used)
{
	if (btc_multi_larger(m)) {
		struct btc_multi_space T;
		btc_multi_space_build(m, s, &T);
		bool ok = btc_multi_space_chunks(m, s, &T, a, ct, own, used);
		btc_multi_space_free(&T);
		return ok;
	}
	const struct btc_sched_problem *p = m->streams[s].p;
	int n = p->n_stages, np = p->n_pus;
	*used = 0;
	for (int c = 0; c < np; c++) {
		ct[c] = 0;
		if (own)
			own[c] = 0;
	}
	for (int f = 0; f < n;) {
		int c = a[f];
		if (c < 0 || c >= np || (m->forbid_mask & (1u << c)) || (*used & (1u << c)))
			return false;
		int l = f;
		while (l + 1 < n && a[l + 1] == c)
			l++;
		for (int i = f; i <= l; i++)
			if (isnan(p->time_ms[i * np + c]))
				return false;
		*used |= 1u << c;
		ct[c] = btc_model_chunk_ms(p, c, f, l);
		f = l + 1;
	}
	return true;
}

/* Fills t (with sigma) and sg from the streams' chunk times ct and masks. */
static void apply_sigma(const struct btc_multi_problem *m, const double *ct, const uint32_t *used,
			double *t, double *sg)
{
	int S = m->n_streams, np = m->n_pus;
	for (int s = 0; s < S; s++) {
		uint32_t others = 0;
		for (int k = 0; k < S; k++)
			if (k != s)
				others |= used[k];
		for (int c = 0; c < np; c++) {
			double g = (used[s] & (1u << c)) ? btc_multi_sigma(m, s, c, others) : 1.0;
			if (sg)
				sg[s * np + c] = g;
			t[s * np + c] = ct[s * np + c] * g;
		}
	}
}

/* Python's math.fsum (Shewchuk's partials, then a half-way correction):
 * the sum of x[0..n) rounded once, to nearest, ties to even. */
double btc_multi_fsum(const double *x, int n)
{
	double part[BTC_MULTI_MAX_STREAMS + 2];
	int np = 0;
	for (int k = 0; k < n; k++) {
		double v = x[k];
		int i = 0;
		for (int j = 0; j < np; j++) {
			double y = part[j];
			if (fabs(v) < fabs(y)) {
				double tmp = v;
				v = y;
				y = tmp;
			}
			double hi = v + y, lo = y - (hi - v);
			if (lo != 0.0)
				part[i++] = lo;
			v = hi;
		}
		part[i] = v;
		np = i + 1;
	}
	if (np == 0)
		return 0.0;
	int j = np - 1;
	double hi = part[j], lo = 0;
	while (j > 0) {
		double v = hi, y = part[--j];
		hi = v + y;
		lo = y - (hi - v);
		if (lo != 0.0)
			break;
	}
	if (j > 0 && ((lo < 0 && part[j - 1] < 0) || (lo > 0 && part[j - 1] > 0))) {
		double y = lo * 2, v = hi + y;
		if (y == v - hi)
			hi = v;
	}
	return hi;
}

double btc_multi_load(const struct btc_multi_problem *m, const double *t, int c, int upto)
{
	double term[BTC_MULTI_MAX_STREAMS];
	int n = 0, np = m->n_pus;
	for (int s = 0; s < upto; s++)
		if (t[s * np + c] != 0)
			term[n++] = btc_multi_coeff(m, s) * t[s * np + c];
	return btc_multi_fsum(term, n);
}

double btc_multi_peak_cost(const struct btc_multi_problem *m, const double *t,
			   const uint32_t *used, int *bottleneck)
{
	int S = m->n_streams, np = m->n_pus;
	double cap[BTC_SCHED_MAX_PUS];
	btc_multi_capacities(m, used, cap);
	double best = 0;
	int at = 0;
	for (int c = 0; c < np; c++) {
		double load = btc_multi_load(m, t, c, S) / cap[c];
		if (load > best) {
			best = load;
			at = c;
		}
	}
	for (int s = 0; s < S; s++) {
		double io = btc_multi_coeff(m, s) * m->streams[s].p->io_ms;
		if (io > best) {
			best = io;
			at = -1 - s;
		}
	}
	if (bottleneck)
		*bottleneck = at;
	return best;
}

double btc_multi_self_ms(const struct btc_multi_problem *m, int s, const double *own,
			 const uint32_t *used)
{
	int np = m->n_pus;
	double self = m->streams[s].p->io_ms;
	if (!own)
		return self;
	uint32_t others = 0;
	for (int k = 0; k < m->n_streams; k++)
		if (k != s)
			others |= used[k];
	for (int c = 0; c < np; c++)
		if (own[s * np + c] > 0)
			self = fmax(self, own[s * np + c] * btc_multi_sigma(m, s, c, others));
	return self;
}

/* The peak with the streams' own limits (btc_multi_self_ms) in place of
 * their io terms; where it is, -1 - S - s for stream s's own chunk. */
static double peak_own(const struct btc_multi_problem *m, const double *t, const double *own,
		       const uint32_t *used, int *bottleneck)
{
	double best = btc_multi_peak_cost(m, t, used, bottleneck);
	for (int s = 0; own && s < m->n_streams; s++) {
		double v = btc_multi_coeff(m, s) * btc_multi_self_ms(m, s, own, used);
		if (v > best) {
			best = v;
			if (bottleneck)
				*bottleneck = -1 - m->n_streams - s;
		}
	}
	return best;
}

double btc_multi_cost(const struct btc_multi_problem *m, const double *ct, const double *own,
		      const uint32_t *used, double *t, double *rate)
{
	apply_sigma(m, ct, used, t, NULL);
	if (m->objective != BTC_MULTI_SUM)
		return peak_own(m, t, own, used, NULL);
	double v, cap[BTC_SCHED_MAX_PUS], self[BTC_MULTI_MAX_STREAMS];
	btc_multi_capacities(m, used, cap);
	for (int s = 0; own && s < m->n_streams; s++)
		self[s] = btc_multi_self_ms(m, s, own, used);
	if (!btc_multi_sum_lp(m, t, cap, own ? self : NULL, rate, &v))
		return INFINITY;
	return -v;
}

void btc_multi_eval_free(struct btc_multi_eval *e)
{
	free(e->rate);
	free(e->t);
	free(e->sigma);
	free(e->util);
	free(e->kappa);
	memset(e, 0, sizeof(*e));
}

bool btc_multi_evaluate(const struct btc_multi_problem *m, const int *a, struct btc_multi_eval *e)
{
	int S = m->n_streams, np = m->n_pus;
	memset(e, 0, sizeof(*e));
	e->rate = btc_xcalloc((size_t)S, sizeof(double));
	e->t = btc_xcalloc((size_t)S * (size_t)np, sizeof(double));
	e->sigma = btc_xcalloc((size_t)S * (size_t)np, sizeof(double));
	e->util = btc_xcalloc((size_t)np, sizeof(double));
	e->kappa = btc_xcalloc((size_t)np, sizeof(double));
	e->cost = INFINITY;
	double *ct = btc_xcalloc((size_t)S * (size_t)np, sizeof(double));
	double *own = btc_multi_larger(m) ? btc_xcalloc((size_t)S * (size_t)np, sizeof(double))
					  : NULL;
	uint32_t used[BTC_MULTI_MAX_STREAMS];
	bool ok = true;
	for (int s = 0; s < S && ok; s++)
		ok = btc_multi_stream_chunks(m, s, a + btc_multi_offset(m, s), ct + s * np,
					     own ? own + s * np : NULL, &used[s]);
	if (ok) {
		e->cost = btc_multi_cost(m, ct, own, used, e->t, e->rate);
		apply_sigma(m, ct, used, e->t, e->sigma);
		btc_multi_capacities(m, used, e->kappa);
		ok = isfinite(e->cost);
	}
	if (ok)
		peak_own(m, e->t, own, used, &e->bottleneck);
	free(ct);
	free(own);
	if (!ok)
		return false;
	if (m->objective == BTC_MULTI_MAXMIN) {
		e->lambda = 1.0 / e->cost;
		for (int s = 0; s < S; s++)
			e->rate[s] = e->lambda * m->streams[s].weight;
	} else if (m->objective == BTC_MULTI_RATES) {
		e->lambda = 1.0 / e->cost;
		double scale = e->cost > 1.0 ? 1.0 / e->cost : 1.0;
		for (int s = 0; s < S; s++)
			e->rate[s] = m->streams[s].rate * scale;
	} else {
		e->lambda = -e->cost;
	}
	for (int c = 0; c < np; c++) {
		for (int s = 0; s < S; s++)
			e->util[c] += e->rate[s] * e->t[s * np + c];
		e->util[c] /= e->kappa[c];
		if (e->util[c] > e->peak)
			e->peak = e->util[c];
	}
	return true;
}

int btc_multi_cmp(double cost_x, const int *x, double cost_y, const int *y, int n)
{
	if (cost_x != cost_y)
		return cost_x < cost_y ? -1 : 1;
	for (int i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

bool btc_multi_interchangeable(const struct btc_multi_problem *m, int s, int k)
{
	const struct btc_multi_stream *a = &m->streams[s], *b = &m->streams[k];
	return a->p == b->p && a->weight == b->weight && a->rate == b->rate &&
	       a->slowdown == b->slowdown;
}

int btc_multi_prev_interchangeable(const struct btc_multi_problem *m, int s)
{
	for (int k = s - 1; k >= 0; k--)
		if (btc_multi_interchangeable(m, s, k))
			return k;
	return -1;
}

bool btc_multi_canonical(const struct btc_multi_problem *m, const int *a)
{
	for (int s = 1; s < m->n_streams; s++) {
		int k = btc_multi_prev_interchangeable(m, s);
		if (k >= 0 &&
		    btc_multi_cmp(0, a + btc_multi_offset(m, k), 0, a + btc_multi_offset(m, s),
				  m->streams[s].p->n_stages) > 0)
			return false;
	}
	return true;
}

double btc_multi_io_cost(const struct btc_multi_problem *m)
{
	double io = 0;
	for (int s = 0; s < m->n_streams; s++)
		io = fmax(io, btc_multi_coeff(m, s) * m->streams[s].p->io_ms);
	return io;
}

enum btc_status btc_multi_begin(const struct btc_multi_problem *m, struct btc_multi_result *r,
				struct btc_diag *d)
{
	memset(r, 0, sizeof(*r));
	return btc_multi_validate(m, d);
}

void btc_multi_result_free(struct btc_multi_result *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->c[i].a);
	free(r->c);
	memset(r, 0, sizeof(*r));
}

/* Chunk by chunk: stages f.. of stream s, PUs in `used` taken. */
static long stream_rec(const struct btc_multi_problem *m, const struct btc_sched_problem *p, int f,
		       uint32_t used, int *a, void (*fn)(const int *a, void *ctx), void *ctx)
{
	int n = p->n_stages, np = p->n_pus;
	if (f == n) {
		fn(a, ctx);
		return 1;
	}
	long count = 0;
	for (int c = 0; c < np; c++) {
		if ((used & (1u << c)) || (m->forbid_mask & (1u << c)))
			continue;
		for (int l = f; l < n && !isnan(p->time_ms[l * np + c]); l++) {
			a[l] = c;
			count += stream_rec(m, p, l + 1, used | (1u << c), a, fn, ctx);
		}
	}
	return count;
}

long btc_multi_stream_assignments(const struct btc_multi_problem *m, int s,
				  void (*fn)(const int *a, void *ctx), void *ctx)
{
	if (btc_multi_larger(m))
		return btc_multi_space_assignments(m, s, fn, ctx);
	const struct btc_sched_problem *p = m->streams[s].p;
	int *a = btc_xcalloc((size_t)p->n_stages, sizeof(int));
	long n = stream_rec(m, p, 0, 0, a, fn, ctx);
	free(a);
	return n;
}

/* Inserts (cost, a) into the ranked list of at most k, keeping order;
 * copies a. */
void btc_multi_topk_insert(struct btc_multi_result *r, int k, int n, double cost, const int *a)
{
	if (r->n == k && btc_multi_cmp(cost, a, r->c[k - 1].cost, r->c[k - 1].a, n) >= 0)
		return;
	int at = r->n < k ? r->n : k - 1;
	if (r->n == k)
		free(r->c[k - 1].a);
	else
		r->n++;
	while (at > 0 && btc_multi_cmp(cost, a, r->c[at - 1].cost, r->c[at - 1].a, n) < 0) {
		r->c[at] = r->c[at - 1];
		at--;
	}
	r->c[at].cost = cost;
	r->c[at].a = btc_xmalloc((size_t)n * sizeof(int));
	memcpy(r->c[at].a, a, (size_t)n * sizeof(int));
}

bool btc_multi_every_stream_placed(const struct btc_multi_problem *m, const long *counts,
				   struct btc_diag *d)
{
	for (int s = 0; s < m->n_streams; s++)
		if (counts[s] == 0) {
			const char *nm = m->streams[s].name;
			btc_error(d, no_loc,
				  "stream %d%s%s%s has no schedule: some stage has a time only on "
				  "forbidden PUs",
				  s, nm ? " (" : "", nm ? nm : "", nm ? ")" : "");
			return false;
		}
	return true;
}
