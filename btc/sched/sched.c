/* BT-Optimizer, the parts both solvers share: options and objective
 * names, quantisation of the table into the ranking key's integer unit
 * (btc_sched_prepare), schedules from stage-to-PU vectors, the total
 * orders, and baselines. The checks of a problem are sched_check.c, the
 * counting of schedules and the presolve's dynamic programming
 * sched_count.c. */
#include "sched/optimizer.h"
#include "sched/sched_check.h"
#include "sched/model.h"
#include "sched/space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void btc_sched_options_init(struct btc_sched_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->objective = BTC_SCHED_BT;
	opt->top_k = BTC_SCHED_DEFAULT_K;
	opt->util_pct = BTC_SCHED_DEFAULT_UTIL_PCT;
}

static const char *const objective_names[] = {
	[BTC_SCHED_BT] = "bt",
	[BTC_SCHED_GAPNESS] = "gapness",
	[BTC_SCHED_LATENCY] = "latency",
};

const char *btc_sched_objective_name(enum btc_sched_objective o)
{
	if ((unsigned)o > BTC_SCHED_LATENCY)
		return "?";
	return objective_names[o];
}

int btc_sched_objective_parse(const char *s, enum btc_sched_objective *o)
{
	for (int i = 0; i <= BTC_SCHED_LATENCY; i++) {
		if (strcmp(s, objective_names[i]) == 0) {
			*o = (enum btc_sched_objective)i;
			return 0;
		}
	}
	return -1;
}

double btc_sched_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

bool btc_sched_space_wanted(const struct btc_sched_problem *p, const struct btc_sched_options *opt)
{
	int allowed = 0;
	bool counts = false;
	for (int c = 0; c < p->n_pus; c++) {
		if (c < 32 && (opt->forbid_mask & (1u << c)))
			continue;
		allowed++;
		counts |= p->cores && p->time_cores_ms && p->cores[c].n_counts > 0;
	}
	return (opt->farms && allowed >= 2) || (opt->core_splits && counts);
}

static const struct btc_loc no_loc = {0};

static int gcd(int a, int b)
{
	while (b) {
		int t = a % b;
		a = b;
		b = t;
	}
	return a;
}

enum btc_status btc_sched_prepare(const struct btc_sched_problem *p,
				  const struct btc_sched_options *opt, struct btc_sched_prep *prep,
				  struct btc_diag *d)
{
	memset(prep, 0, sizeof(*prep));
	enum btc_status st = btc_sched_validate(p, opt, d);
	if (st != BTC_OK)
		return st;
	int n = p->n_stages, np = p->n_pus;
	prep->n = n;
	prep->p = np;
	prep->min_chunks2 = true;
	prep->space = btc_sched_space_wanted(p, opt);
	bool splits = prep->space && opt->core_splits && p->cores;
	int g = gcd(opt->util_pct, 100);
	prep->util_num = opt->util_pct / g;
	prep->util_den = 100 / g;

	/* Largest coefficient sum of any pseudo-Boolean constraint: the bt
	 * filter a*T_c + b*sum(t_d * !x_d) <= b*G + b*sum(t_d) reaches
	 * (a + 2b) * (largest whole-app sum of one PU). */
	/* With the model terms a PU's sum also holds F_c and, when there
	 * are transfers, every X_c(f, l) (the chunk variables' coefficients
	 * of the Z3 encoding). */
	double maxsum_ns = 0;
	for (int c = 0; c < np; c++) {
		double s = p->fixed_ms ? p->fixed_ms[c] * 1e6 : 0;
		for (int i = 0; i < n; i++) {
			double t = p->time_ms[i * np + c];
			if (!isnan(t))
				s += t * 1e6;
		}
		for (int f = 0; p->xfer_ms && f < n; f++)
			for (int l = f; l < n; l++)
				s += p->xfer_ms[btc_model_xfer_index(n, np, c, f, l)] * 1e6;
		/* the boundary term joins X in the chunk variables' coefficients */
		for (int f = 0; p->start_ms && f < n; f++)
			s += p->start_ms[f * np + c] * 1e6 * (double)(n - f);
		if (s > maxsum_ns)
			maxsum_ns = s;
		/* the larger space: the same sum at every profiled count */
		for (int j = 0; splits && j < p->cores[c].n_counts; j++) {
			double sk = s;
			for (int i = 0; i < n; i++) {
				double t = p->time_ms[i * np + c];
				double tk = p->time_cores_ms[btc_sched_cores_index(np, i, c, j)];
				sk += (isnan(tk) ? 0 : tk * 1e6) - (isnan(t) ? 0 : t * 1e6);
			}
			if (sk > maxsum_ns)
				maxsum_ns = sk;
		}
	}
	double factor = prep->util_num + 2.0 * prep->util_den;
	const double limit = (double)(1 << 30);
	int64_t q = 1;
	/* + n (+ n^2 with transfers): rounding of every stage and chunk term */
	double rounding = n + (p->xfer_ms || p->start_ms ? (double)n * n : 0);
	while ((maxsum_ns / (double)q + rounding) * factor > limit) {
		if (q > INT64_MAX / 100) {
			btc_error(d, no_loc, "profiling table: times too large");
			return BTC_ERR_TABLE;
		}
		q *= 10;
	}
	prep->quantum_ns = q;
	if (!btc_sched_check_quantum(p, splits, q, maxsum_ns, d))
		return BTC_ERR_TABLE;

	prep->tq = btc_xmalloc(sizeof(int64_t) * (size_t)n * (size_t)np);
	for (int i = 0; i < n; i++) {
		int allowed = 0;
		for (int c = 0; c < np; c++) {
			double t = p->time_ms[i * np + c];
			bool ok = !isnan(t) && !(opt->forbid_mask & (1u << c)) &&
				  !(opt->pin && opt->pin[i] >= 0 && opt->pin[i] != c);
			prep->tq[i * np + c] = ok ? llround(t * 1e6 / (double)q) : -1;
			allowed += ok;
		}
		if (!allowed) {
			char sl[160];
			btc_sched_stage_label(p, i, sl, sizeof(sl));
			btc_error(d, no_loc, "schedule: %s can run on no allowed PU", sl);
			btc_sched_prep_free(prep);
			return BTC_ERR_UNSAT;
		}
	}
	if (splits) {
		size_t m = (size_t)n * (size_t)np * BTC_SCHED_MAX_CORE_COUNTS;
		prep->tkq = btc_xmalloc(sizeof(int64_t) * m);
		for (size_t k = 0; k < m; k++)
			prep->tkq[k] = -1;
		for (int i = 0; i < n; i++)
			for (int c = 0; c < np; c++)
				for (int j = 0; j < p->cores[c].n_counts; j++) {
					size_t k = btc_sched_cores_index(np, i, c, j);
					double t = p->time_cores_ms[k];
					if (prep->tq[i * np + c] >= 0 && !isnan(t))
						prep->tkq[k] = llround(t * 1e6 / (double)q);
				}
	}
	prep->fq = btc_xcalloc((size_t)np, sizeof(int64_t));
	for (int c = 0; p->fixed_ms && c < np; c++)
		prep->fq[c] = llround(p->fixed_ms[c] * 1e6 / (double)q);
	prep->mono = true;
	bool any_x = false;
	for (size_t k = 0; p->xfer_ms && k < (size_t)n * np * n && !any_x; k++)
		any_x = p->xfer_ms[k] > 0;
	for (size_t k = 0; p->start_ms && k < (size_t)n * np && !any_x; k++)
		any_x = p->start_ms[k] > 0;
	if (any_x) {
		/* X_c(f, l) + S_{f,c}: both are terms of the chunk, not of a
		 * stage; a chunk's cost no longer grows with it (S) */
		size_t m = (size_t)n * (size_t)np * (size_t)n;
		prep->xq = btc_xcalloc(m, sizeof(int64_t));
		for (int c = 0; c < np; c++)
			for (int f = 0; f < n; f++)
				for (int l = f; l < n; l++) {
					size_t k = btc_model_xfer_index(n, np, c, f, l);
					double x = (p->xfer_ms ? p->xfer_ms[k] : 0) +
						   (p->start_ms ? p->start_ms[f * np + c] : 0);
					prep->xq[k] = llround(x * 1e6 / (double)q);
				}
		prep->mono = false;
	}
	return BTC_OK;
}

void btc_sched_prep_free(struct btc_sched_prep *prep)
{
	free(prep->tq);
	free(prep->fq);
	free(prep->xq);
	free(prep->tkq);
	prep->tq = prep->fq = prep->xq = prep->tkq = NULL;
}

enum btc_status btc_sched_solve_prepared(const struct btc_sched_problem *p,
					 const struct btc_sched_options *opt,
					 struct btc_sched_result *res, struct btc_diag *d,
					 btc_sched_prepared_fn solve)
{
	double t0 = btc_sched_now_ms();
	memset(res, 0, sizeof(*res));
	struct btc_sched_prep prep;
	enum btc_status status = btc_sched_prepare(p, opt, &prep, d);
	if (status != BTC_OK)
		return status;
	return solve(p, opt, &prep, res, d, t0);
}

void btc_sched_from_assignment(const struct btc_sched_problem *p, const struct btc_sched_prep *prep,
			       const int *a, struct btc_schedule *s)
{
	int np = p->n_pus;
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < p->n_stages; i++) {
		if (i == 0 || a[i] != a[i - 1]) {
			if (s->n_chunks == BTC_SCHED_MAX_PUS)
				btc_panic("schedule has more chunks than PUs");
			struct btc_sched_chunk *ch = &s->chunks[s->n_chunks++];
			ch->pu = a[i];
			ch->first_stage = i;
		}
		s->chunks[s->n_chunks - 1].last_stage = i;
	}
	int64_t q[BTC_SCHED_MAX_PUS];
	for (int k = 0; k < s->n_chunks; k++) {
		struct btc_sched_chunk *ch = &s->chunks[k];
		ch->time_ms = btc_model_chunk_ms(p, ch->pu, ch->first_stage, ch->last_stage);
		int64_t sum = 0;
		for (int i = ch->first_stage; i <= ch->last_stage; i++)
			sum += prep->tq[i * np + ch->pu];
		q[k] = btc_sched_chunk_q(prep, ch->pu, ch->first_stage, ch->last_stage, sum);
	}
	btc_sched_summarize(p, q, s);
}

void btc_sched_summarize(const struct btc_sched_problem *p, const int64_t *q,
			 struct btc_schedule *s)
{
	int64_t qmax = 0, qmin = INT64_MAX;
	s->tmax_ms = 0;
	s->tmin_ms = INFINITY;
	for (int k = 0; k < s->n_chunks; k++) {
		qmax = q[k] > qmax ? q[k] : qmax;
		qmin = q[k] < qmin ? q[k] : qmin;
		s->tmax_ms = fmax(s->tmax_ms, s->chunks[k].time_ms);
		s->tmin_ms = fmin(s->tmin_ms, s->chunks[k].time_ms);
	}
	s->gapness_ms = s->tmax_ms - s->tmin_ms;
	s->period_ms = btc_model_period_ms(p, s->tmax_ms);
	s->pool = btc_model_pool(p, s);
	s->tmax_q = qmax;
	s->tmin_q = qmin;
	s->gap_q = qmax - qmin;
}

/* Lexicographic order of the stage-to-PU vectors, walked chunk by chunk. */
static int cmp_vector(const struct btc_schedule *x, const struct btc_schedule *y)
{
	int kx = 0, ky = 0;
	while (kx < x->n_chunks && ky < y->n_chunks) {
		const struct btc_sched_chunk *cx = &x->chunks[kx];
		const struct btc_sched_chunk *cy = &y->chunks[ky];
		if (cx->pu != cy->pu)
			return cx->pu < cy->pu ? -1 : 1;
		/* Same PU from the same stage on; the shorter chunk ends
		 * first and its next PU meets the longer chunk's PU. */
		if (cx->last_stage == cy->last_stage) {
			kx++;
			ky++;
		} else if (cx->last_stage < cy->last_stage) {
			const struct btc_sched_chunk *nx = &x->chunks[kx + 1];
			return nx->pu < cy->pu ? -1 : 1;
		} else {
			const struct btc_sched_chunk *ny = &y->chunks[ky + 1];
			return cx->pu < ny->pu ? -1 : 1;
		}
	}
	return 0;
}

/* The larger space's order: the stage-to-code vector, a chunk's code
 * being (PU, kind, detail) with kind 0 all cores, 1 `cores` cores, 2 a
 * farm (detail: cores or the member set); ties (the same codes, cut
 * differently: two chunks of one code side by side) go to the boundary
 * vector, an unbroken run first. On paper schedules (codes (PU, 0, 0), no
 * PU twice) this is cmp_vector's order. */
static uint64_t chunk_code(const struct btc_sched_chunk *ch)
{
	uint64_t kind = ch->farm ? 2 : ch->cores ? 1 : 0;
	uint64_t detail = ch->farm ? ch->farm : (uint32_t)ch->cores;
	return ((uint64_t)ch->pu << 34) | (kind << 32) | detail;
}

static bool extended(const struct btc_schedule *s)
{
	for (int k = 0; k < s->n_chunks; k++)
		if (s->chunks[k].farm || s->chunks[k].cores)
			return true;
	return false;
}

static int cmp_codes(const struct btc_schedule *x, const struct btc_schedule *y)
{
	int n = x->chunks[x->n_chunks - 1].last_stage + 1;
	int kx = 0, ky = 0, cut = 0;
	for (int i = 0; i < n; i++) {
		while (x->chunks[kx].last_stage < i)
			kx++;
		while (y->chunks[ky].last_stage < i)
			ky++;
		uint64_t a = chunk_code(&x->chunks[kx]), b = chunk_code(&y->chunks[ky]);
		if (a != b)
			return a < b ? -1 : 1;
		bool bx = x->chunks[kx].first_stage == i, by = y->chunks[ky].first_stage == i;
		if (!cut && bx != by)
			cut = bx ? 1 : -1;
	}
	return cut;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

int btc_sched_cmp_tmax(const struct btc_schedule *x, const struct btc_schedule *y)
{
	int r = cmp_i64(x->tmax_q, y->tmax_q);
	if (!r)
		r = cmp_i64(x->gap_q, y->gap_q);
	if (r)
		return r;
	return extended(x) || extended(y) ? cmp_codes(x, y) : cmp_vector(x, y);
}

int btc_sched_cmp_gap(const struct btc_schedule *x, const struct btc_schedule *y)
{
	int r = cmp_i64(x->gap_q, y->gap_q);
	if (!r)
		r = cmp_i64(x->tmax_q, y->tmax_q);
	if (r)
		return r;
	return extended(x) || extended(y) ? cmp_codes(x, y) : cmp_vector(x, y);
}

int btc_sched_qsort_tmax(const void *x, const void *y)
{
	return btc_sched_cmp_tmax(x, y);
}

void btc_sched_result_begin(const struct btc_sched_problem *p, const struct btc_sched_options *opt,
			    const struct btc_sched_prep *prep, struct btc_sched_result *res)
{
	int n = p->n_stages, np = p->n_pus;
	res->objective = opt->objective;
	res->util_pct = opt->util_pct;
	res->quantum_ns = prep->quantum_ns;
	res->gstar_q = -1;
	res->gstar_ms = -1;
	res->optimal = true;
	res->space = prep->space;
	res->farms = prep->space && opt->farms;
	res->core_splits = prep->space && opt->core_splits;
	res->best_baseline = -1;
	res->baselines = btc_xcalloc((size_t)np, sizeof(*res->baselines));
	for (int c = 0; c < np; c++) {
		if (opt->forbid_mask & (1u << c))
			continue;
		int i;
		for (i = 0; i < n && !isnan(p->time_ms[i * np + c]); i++)
			;
		if (i < n)
			continue;
		double s = btc_model_chunk_ms(p, c, 0, n - 1);
		struct btc_sched_baseline *b = &res->baselines[res->n_baselines];
		b->pu = c;
		b->time_ms = s;
		b->period_ms = btc_model_period_ms(p, s);
		if (res->best_baseline < 0 || s < res->baselines[res->best_baseline].time_ms)
			res->best_baseline = res->n_baselines;
		res->n_baselines++;
	}
}

void btc_sched_result_free(struct btc_sched_result *res)
{
	free(res->candidates);
	free(res->baselines);
	res->candidates = NULL;
	res->baselines = NULL;
	res->n_candidates = res->n_baselines = 0;
}

double btc_sched_speedup(const struct btc_sched_result *res, const struct btc_schedule *s)
{
	if (res->best_baseline < 0 || s->period_ms <= 0)
		return 0;
	return res->baselines[res->best_baseline].period_ms / s->period_ms;
}
