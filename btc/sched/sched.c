/* BT-Optimizer, the parts both solvers share: validation, quantisation of
 * the table into the ranking key's integer unit, schedules from stage-to-PU
 * vectors, the total orders, and baselines. */
#include "sched/optimizer.h"
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

/* Stage and PU labels for diagnostics. */
static void stage_label(const struct btc_sched_problem *p, int i, char *buf, size_t n)
{
	if (p->stage_names && p->stage_names[i])
		snprintf(buf, n, "stage %d (%s)", i, p->stage_names[i]);
	else
		snprintf(buf, n, "stage %d", i);
}

static void pu_label(const struct btc_sched_problem *p, int c, char *buf, size_t n)
{
	if (p->pu_names && p->pu_names[c])
		snprintf(buf, n, "PU %d (%s)", c, p->pu_names[c]);
	else
		snprintf(buf, n, "PU %d", c);
}

static const struct btc_loc no_loc = {0};

/* The core counts of the larger space (problem.cores, time_cores_ms). */
static void validate_cores(const struct btc_sched_problem *p, struct btc_diag *d)
{
	char sl[160], pl[160];
	if (!p->cores != !p->time_cores_ms) {
		btc_error(d, no_loc, "profiling table: core counts without their times, or times "
				     "without counts");
		return;
	}
	for (int c = 0; p->cores && c < p->n_pus; c++) {
		const struct btc_sched_cores *k = &p->cores[c];
		pu_label(p, c, pl, sizeof(pl));
		bool ok = k->size >= 0 && k->n_counts >= 0 &&
			  k->n_counts <= BTC_SCHED_MAX_CORE_COUNTS && (k->size > 0 || !k->n_counts);
		for (int j = 0; ok && j < k->n_counts; j++)
			ok = k->counts[j] >= 1 && k->counts[j] < k->size &&
			     (j == 0 || k->counts[j] > k->counts[j - 1]);
		if (!ok) {
			btc_error(d, no_loc,
				  "profiling table: %s: core counts must ascend within 1..%d "
				  "(the PU's size - 1), at most %d of them",
				  pl, k->size - 1, BTC_SCHED_MAX_CORE_COUNTS);
			continue;
		}
		for (int i = 0; i < p->n_stages; i++)
			for (int j = 0; j < k->n_counts; j++) {
				double t = p->time_cores_ms[btc_sched_cores_index(p->n_pus, i, c, j)];
				if (isnan(t) || (isfinite(t) && t >= 0))
					continue;
				stage_label(p, i, sl, sizeof(sl));
				btc_error(d, no_loc,
					  "profiling table: %s on %d cores of %s: time %g ms "
					  "(must be finite and >= 0)",
					  sl, k->counts[j], pl, t);
			}
	}
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

enum btc_status btc_sched_validate(const struct btc_sched_problem *p,
				   const struct btc_sched_options *opt, struct btc_diag *d)
{
	char sl[160], pl[160];
	int errors = d->errors;

	if (p->n_stages < 1 || p->n_stages > BTC_SCHED_MAX_STAGES) {
		btc_error(d, no_loc, "schedule: %d stages (1 to %d supported)", p->n_stages,
			  BTC_SCHED_MAX_STAGES);
		return BTC_ERR_TABLE;
	}
	if (p->n_pus < 1 || p->n_pus > BTC_SCHED_MAX_PUS) {
		btc_error(d, no_loc, "schedule: %d PUs (1 to %d supported)", p->n_pus,
			  BTC_SCHED_MAX_PUS);
		return BTC_ERR_TABLE;
	}
	for (int i = 0; i < p->n_stages; i++) {
		int kernels = 0;
		for (int c = 0; c < p->n_pus; c++) {
			double t = p->time_ms[i * p->n_pus + c];
			if (isnan(t))
				continue;
			kernels++;
			if (!isfinite(t) || t < 0) {
				stage_label(p, i, sl, sizeof(sl));
				pu_label(p, c, pl, sizeof(pl));
				btc_error(d, no_loc,
					  "profiling table: %s on %s: time %g ms "
					  "(must be finite and >= 0)",
					  sl, pl, t);
			}
		}
		if (kernels == 0) {
			stage_label(p, i, sl, sizeof(sl));
			btc_error(d, no_loc, "profiling table: %s has a time on no PU", sl);
		}
	}
	for (int c = 0; p->fixed_ms && c < p->n_pus; c++) {
		double f = p->fixed_ms[c];
		if (!isfinite(f) || f < 0) {
			pu_label(p, c, pl, sizeof(pl));
			btc_error(d, no_loc,
				  "profiling table: %s: fixed cost %g ms "
				  "per chunk (must be finite and >= 0)",
				  pl, f);
		}
	}
	for (int c = 0; p->xfer_ms && c < p->n_pus; c++)
		for (int f = 0; f < p->n_stages; f++)
			for (int l = f; l < p->n_stages; l++) {
				double x = p->xfer_ms[btc_model_xfer_index(p->n_stages, p->n_pus, c,
									   f, l)];
				if (isfinite(x) && x >= 0)
					continue;
				pu_label(p, c, pl, sizeof(pl));
				btc_error(d, no_loc,
					  "profiling table: %s: "
					  "transfer time %g ms of stages %d..%d "
					  "(must be finite and >= 0)",
					  pl, x, f, l);
			}
	if (!isfinite(p->io_ms) || p->io_ms < 0)
		btc_error(d, no_loc,
			  "profiling table: io time %g ms (must be "
			  "finite and >= 0)",
			  p->io_ms);
	validate_cores(p, d);
	if (d->errors > errors)
		return BTC_ERR_TABLE;

	if (opt->top_k < 1)
		btc_error(d, no_loc, "schedule: --top must be >= 1 (got %d)", opt->top_k);
	if (opt->util_pct < 0 || opt->util_pct > 100)
		btc_error(d, no_loc, "schedule: utilisation threshold %d%% outside 0..100",
			  opt->util_pct);
	if (opt->max_chunks < 0)
		btc_error(d, no_loc, "schedule: --max-chunks must be >= 0");
	if (opt->time_budget_ms < 0)
		btc_error(d, no_loc, "schedule: --time-budget must be >= 0");
	if ((unsigned)opt->objective > BTC_SCHED_LATENCY)
		btc_error(d, no_loc, "schedule: unknown objective");
	if (opt->farm_max_pus != 0 && (opt->farm_max_pus < 2 || opt->farm_max_pus > BTC_SCHED_MAX_PUS))
		btc_error(d, no_loc, "schedule: farms of at most %d PUs (must be 2..%d)",
			  opt->farm_max_pus, BTC_SCHED_MAX_PUS);
	if (p->n_pus < 32 && (opt->forbid_mask >> p->n_pus) != 0)
		btc_error(d, no_loc, "schedule: forbidden PU out of range");
	for (int i = 0; opt->pin && i < p->n_stages; i++) {
		int c = opt->pin[i];
		if (c < 0)
			continue;
		stage_label(p, i, sl, sizeof(sl));
		if (c >= p->n_pus) {
			btc_error(d, no_loc, "schedule: %s pinned to PU %d of %d", sl, c, p->n_pus);
			continue;
		}
		pu_label(p, c, pl, sizeof(pl));
		if (isnan(p->time_ms[i * p->n_pus + c]))
			btc_error(d, no_loc,
				  "schedule: %s pinned to %s, which has no "
				  "kernel for it",
				  sl, pl);
		else if (opt->forbid_mask & (1u << c))
			btc_error(d, no_loc, "schedule: %s pinned to forbidden %s", sl, pl);
	}
	return d->errors > errors ? BTC_ERR_USAGE : BTC_OK;
}

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
	double rounding = n + (p->xfer_ms ? (double)n * n : 0);
	while ((maxsum_ns / (double)q + rounding) * factor > limit) {
		if (q > INT64_MAX / 100) {
			btc_error(d, no_loc, "profiling table: times too large");
			return BTC_ERR_TABLE;
		}
		q *= 10;
	}
	prep->quantum_ns = q;

	/* The quantum must not round a real time away: a nonzero time that
	 * quantises to 0, or loses more than BTC_SCHED_MAX_QUANT_ERR of
	 * itself, would make the ranking (and "proven optimal") a statement
	 * about other numbers than the table's. Such a table spans too many
	 * orders of magnitude for the 31-bit pseudo-Boolean coefficients. */
	char sl[160], pl[160];
	int before = d->errors;
	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++) {
			double t = p->time_ms[i * np + c];
			if (isnan(t) || t == 0)
				continue;
			double ns = t * 1e6;
			double back = (double)llround(ns / (double)q) * (double)q;
			if (fabs(back - ns) <= BTC_SCHED_MAX_QUANT_ERR * ns)
				continue;
			stage_label(p, i, sl, sizeof(sl));
			pu_label(p, c, pl, sizeof(pl));
			btc_error(d, no_loc,
				  "profiling table: %s on %s: time %g ms %s in the "
				  "ranking quantum of %lld ns, which the largest PU "
				  "sum (%g ms) forces: times span too many orders of "
				  "magnitude to rank exactly",
				  sl, pl, t, back == 0 ? "rounds to 0" : "loses over 1%",
				  (long long)q, maxsum_ns / 1e6);
		}
	for (int i = 0; splits && i < n; i++)
		for (int c = 0; c < np; c++)
			for (int j = 0; j < p->cores[c].n_counts; j++) {
				double t = p->time_cores_ms[btc_sched_cores_index(np, i, c, j)];
				if (isnan(t) || t == 0)
					continue;
				double ns = t * 1e6;
				double back = (double)llround(ns / (double)q) * (double)q;
				if (fabs(back - ns) <= BTC_SCHED_MAX_QUANT_ERR * ns)
					continue;
				stage_label(p, i, sl, sizeof(sl));
				pu_label(p, c, pl, sizeof(pl));
				btc_error(d, no_loc,
					  "profiling table: %s on %d cores of %s: time %g ms %s in "
					  "the ranking quantum of %lld ns: times span too many "
					  "orders of magnitude to rank exactly",
					  sl, p->cores[c].counts[j], pl, t,
					  back == 0 ? "rounds to 0" : "loses over 1%", (long long)q);
			}
	if (d->errors != before)
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
			stage_label(p, i, sl, sizeof(sl));
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
	if (any_x) {
		size_t m = (size_t)n * (size_t)np * (size_t)n;
		prep->xq = btc_xcalloc(m, sizeof(int64_t));
		for (int c = 0; c < np; c++)
			for (int f = 0; f < n; f++)
				for (int l = f; l < n; l++) {
					size_t k = btc_model_xfer_index(n, np, c, f, l);
					prep->xq[k] = llround(p->xfer_ms[k] * 1e6 / (double)q);
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
	int64_t qmax = 0, qmin = INT64_MAX;
	s->tmax_ms = 0;
	s->tmin_ms = INFINITY;
	for (int k = 0; k < s->n_chunks; k++) {
		struct btc_sched_chunk *ch = &s->chunks[k];
		ch->time_ms = btc_model_chunk_ms(p, ch->pu, ch->first_stage, ch->last_stage);
		int64_t q = 0;
		for (int i = ch->first_stage; i <= ch->last_stage; i++)
			q += prep->tq[i * np + ch->pu];
		q = btc_sched_chunk_q(prep, ch->pu, ch->first_stage, ch->last_stage, q);
		qmax = q > qmax ? q : qmax;
		qmin = q < qmin ? q : qmin;
		s->tmax_ms = fmax(s->tmax_ms, ch->time_ms);
		s->tmin_ms = fmin(s->tmin_ms, ch->time_ms);
	}
	s->gapness_ms = s->tmax_ms - s->tmin_ms;
	s->period_ms = btc_model_period_ms(p, s->tmax_ms);
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

/* Schedules with k chunks over a stage range, counted by dynamic
 * programming over (next stage, chunks so far) times the PU orderings:
 * sum over k of (ways to cut into k chunks whose PUs are allowed) is
 * bounded by C(n-1, k-1) * P(p, k); we count the bound, which is exact
 * without missing kernels, pins or forbidden PUs. */
/* The larger space: the presolve's count of every schedule, or, when its
 * states are too many, the bound sum over k of C(n-1, k-1) * options^k. */
static double space_count(const struct btc_sched_problem *p, const struct btc_sched_options *opt)
{
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	struct btc_sched_prep prep;
	if (btc_sched_prepare(p, opt, &prep, &quiet) != BTC_OK)
		return 0;
	struct btc_space sp;
	double r = INFINITY;
	if (btc_space_build(p, opt, &prep, &sp, &quiet) == BTC_OK) {
		r = btc_space_dp_count(&sp, INT64_MIN, INT64_MAX, true);
		if (r < 0) {
			int n = p->n_stages, kmax = sp.kmax < n ? sp.kmax : n;
			r = 0;
			for (int k = 1; k <= kmax; k++) {
				double cuts = 1;
				for (int j = 1; j <= k - 1; j++)
					cuts = cuts * (double)(n - j) / (double)j;
				r += cuts * pow(sp.n_opts, k);
			}
		}
		btc_space_free(&sp);
	}
	btc_sched_prep_free(&prep);
	return r;
}

double btc_sched_count(const struct btc_sched_problem *p, const struct btc_sched_options *opt)
{
	if (btc_sched_space_wanted(p, opt))
		return space_count(p, opt);
	int n = p->n_stages, np = 0;
	for (int c = 0; c < p->n_pus; c++)
		np += !(opt->forbid_mask & (1u << c));
	int kmax = np < n ? np : n;
	if (opt->max_chunks > 0 && opt->max_chunks < kmax)
		kmax = opt->max_chunks;
	double total = 0;
	for (int k = 1; k <= kmax; k++) {
		double cuts = 1, perm = 1; /* C(n-1, k-1), P(np, k) */
		for (int j = 1; j <= k - 1; j++)
			cuts = cuts * (double)(n - j) / (double)j;
		for (int j = 0; j < k; j++)
			perm *= (double)(np - j);
		total += cuts * perm;
	}
	return total;
}

/* ---- presolve: dynamic programming over (stage, used PU set) ---- */

static int dp_kmax(const struct btc_sched_prep *prep, int max_chunks)
{
	return max_chunks > 0 && max_chunks < prep->p ? max_chunks : prep->p;
}

double btc_sched_dp_count(const struct btc_sched_prep *prep, int max_chunks, int64_t lo, int64_t hi)
{
	int n = prep->n, np = prep->p, kmax = dp_kmax(prep, max_chunks);
	if (np > BTC_SCHED_DP_MAX_PUS)
		return -1;
	size_t sets = (size_t)1 << np;
	/* ways[i][S]: completions from stage i with PUs S already used */
	double *ways = btc_xcalloc((size_t)(n + 1) * sets, sizeof(double));
	for (size_t S = 0; S < sets; S++)
		ways[(size_t)n * sets + S] = __builtin_popcount((unsigned)S) >= 2 ? 1 : 0;
	for (int i = n - 1; i >= 0; i--)
		for (size_t S = 0; S < sets; S++) {
			if (__builtin_popcount((unsigned)S) >= kmax)
				continue;
			double sum = 0;
			for (int c = 0; c < np; c++) {
				if (S & ((size_t)1 << c))
					continue;
				size_t T = S | ((size_t)1 << c);
				int64_t st = 0;
				for (int j = i; j < n; j++) {
					int64_t t = prep->tq[j * np + c];
					if (t < 0)
						break;
					st += t;
					int64_t w = btc_sched_chunk_q(prep, c, i, j, st);
					if (w > hi) {
						if (prep->mono)
							break;
						continue;
					}
					if (w >= lo)
						sum += ways[(size_t)(j + 1) * sets + T];
				}
			}
			ways[(size_t)i * sets + S] = sum;
		}
	double r = ways[0];
	free(ways);
	return r;
}

int64_t btc_sched_dp_min_tmax(const struct btc_sched_prep *prep, int max_chunks, int64_t lo)
{
	int n = prep->n, np = prep->p, kmax = dp_kmax(prep, max_chunks);
	if (np > BTC_SCHED_DP_MAX_PUS)
		return -1;
	size_t sets = (size_t)1 << np;
	int64_t *best = btc_xmalloc((size_t)(n + 1) * sets * sizeof(int64_t));
	for (size_t S = 0; S < sets; S++)
		best[(size_t)n * sets + S] = __builtin_popcount((unsigned)S) >= 2 ? 0 : INT64_MAX;
	for (int i = n - 1; i >= 0; i--)
		for (size_t S = 0; S < sets; S++) {
			int64_t b = INT64_MAX;
			if (__builtin_popcount((unsigned)S) < kmax) {
				for (int c = 0; c < np; c++) {
					if (S & ((size_t)1 << c))
						continue;
					size_t T = S | ((size_t)1 << c);
					int64_t st = 0;
					for (int j = i; j < n; j++) {
						int64_t t = prep->tq[j * np + c];
						if (t < 0)
							break;
						st += t;
						int64_t w = btc_sched_chunk_q(prep, c, i, j, st);
						if (w >= b) {
							if (prep->mono)
								break;
							continue;
						}
						if (w < lo)
							continue;
						int64_t rest = best[(size_t)(j + 1) * sets + T];
						int64_t m = rest > w ? rest : w;
						if (m < b)
							b = m;
					}
				}
			}
			best[(size_t)i * sets + S] = b;
		}
	int64_t r = best[0];
	free(best);
	return r;
}

int btc_sched_dp_useful(const struct btc_sched_prep *prep, int max_chunks, int64_t hi,
			unsigned char *useful)
{
	int n = prep->n, np = prep->p, kmax = dp_kmax(prep, max_chunks);
	if (np > BTC_SCHED_DP_MAX_PUS)
		return -1;
	size_t sets = (size_t)1 << np;
	unsigned char *fwd = btc_xcalloc((size_t)(n + 1) * sets, 1);
	unsigned char *bwd = btc_xcalloc((size_t)(n + 1) * sets, 1);
	memset(useful, 0, (size_t)n * (size_t)np * (size_t)n);
	fwd[0] = 1;
	for (int i = 0; i < n; i++)
		for (size_t S = 0; S < sets; S++) {
			if (!fwd[(size_t)i * sets + S] || __builtin_popcount((unsigned)S) >= kmax)
				continue;
			for (int c = 0; c < np; c++) {
				if (S & ((size_t)1 << c))
					continue;
				int64_t st = 0;
				for (int j = i; j < n; j++) {
					int64_t t = prep->tq[j * np + c];
					if (t < 0)
						break;
					st += t;
					if (btc_sched_chunk_q(prep, c, i, j, st) > hi) {
						if (prep->mono)
							break;
						continue;
					}
					fwd[(size_t)(j + 1) * sets + (S | ((size_t)1 << c))] = 1;
				}
			}
		}
	for (size_t S = 0; S < sets; S++)
		bwd[(size_t)n * sets + S] = __builtin_popcount((unsigned)S) >= 2;
	for (int i = n - 1; i >= 0; i--)
		for (size_t S = 0; S < sets; S++) {
			if (__builtin_popcount((unsigned)S) >= kmax)
				continue;
			bool live = fwd[(size_t)i * sets + S];
			for (int c = 0; c < np; c++) {
				if (S & ((size_t)1 << c))
					continue;
				size_t T = S | ((size_t)1 << c);
				int64_t st = 0;
				for (int j = i; j < n; j++) {
					int64_t t = prep->tq[j * np + c];
					if (t < 0)
						break;
					st += t;
					if (btc_sched_chunk_q(prep, c, i, j, st) > hi) {
						if (prep->mono)
							break;
						continue;
					}
					if (!bwd[(size_t)(j + 1) * sets + T])
						continue;
					bwd[(size_t)i * sets + S] = 1;
					if (live)
						useful[((size_t)i * (size_t)np + (size_t)c) *
							       (size_t)n +
						       (size_t)j] = 1;
				}
			}
		}
	free(fwd);
	free(bwd);
	return 0;
}
