/* BT-Optimizer's checks of a problem before it solves: the profiling
 * table's times (finite, >= 0, a kernel for every stage), the chunk
 * model's terms (F_c, X_c(f, l), T_io), the larger space's core counts,
 * the options (btc_sched_validate), and that the ranking quantum keeps
 * every time (btc_sched_check_quantum, from btc_sched_prepare). Every
 * message names the stage and the PU; docs/scheduler.md. */
#include "sched/sched_check.h"
#include "sched/model.h"

#include <math.h>
#include <stdio.h>

void btc_sched_stage_label(const struct btc_sched_problem *p, int i, char *buf, size_t n)
{
	if (p->stage_names && p->stage_names[i])
		snprintf(buf, n, "stage %d (%s)", i, p->stage_names[i]);
	else
		snprintf(buf, n, "stage %d", i);
}

void btc_sched_pu_label(const struct btc_sched_problem *p, int c, char *buf, size_t n)
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
		btc_error(d, no_loc,
			  "profiling table: core counts without their times, or times "
			  "without counts");
		return;
	}
	for (int c = 0; p->cores && c < p->n_pus; c++) {
		const struct btc_sched_cores *k = &p->cores[c];
		btc_sched_pu_label(p, c, pl, sizeof(pl));
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
				double t =
					p->time_cores_ms[btc_sched_cores_index(p->n_pus, i, c, j)];
				if (isnan(t) || (isfinite(t) && t >= 0))
					continue;
				btc_sched_stage_label(p, i, sl, sizeof(sl));
				btc_error(d, no_loc,
					  "profiling table: %s on %d cores of %s: time %g ms "
					  "(must be finite and >= 0)",
					  sl, k->counts[j], pl, t);
			}
	}
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
				btc_sched_stage_label(p, i, sl, sizeof(sl));
				btc_sched_pu_label(p, c, pl, sizeof(pl));
				btc_error(d, no_loc,
					  "profiling table: %s on %s: time %g ms "
					  "(must be finite and >= 0)",
					  sl, pl, t);
			}
		}
		if (kernels == 0) {
			btc_sched_stage_label(p, i, sl, sizeof(sl));
			btc_error(d, no_loc, "profiling table: %s has a time on no PU", sl);
		}
	}
	for (int c = 0; p->fixed_ms && c < p->n_pus; c++) {
		double f = p->fixed_ms[c];
		if (!isfinite(f) || f < 0) {
			btc_sched_pu_label(p, c, pl, sizeof(pl));
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
				btc_sched_pu_label(p, c, pl, sizeof(pl));
				btc_error(d, no_loc,
					  "profiling table: %s: "
					  "transfer time %g ms of stages %d..%d "
					  "(must be finite and >= 0)",
					  pl, x, f, l);
			}
	for (int i = 0; p->start_ms && i < p->n_stages; i++)
		for (int c = 0; c < p->n_pus; c++) {
			double x = p->start_ms[i * p->n_pus + c];
			if (isfinite(x) && x >= 0)
				continue;
			btc_sched_stage_label(p, i, sl, sizeof(sl));
			btc_sched_pu_label(p, c, pl, sizeof(pl));
			btc_error(d, no_loc,
				  "profiling table: %s on %s: chunk boundary term %g ms "
				  "(must be finite and >= 0)",
				  sl, pl, x);
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
	if (opt->farm_max_pus != 0 &&
	    (opt->farm_max_pus < 2 || opt->farm_max_pus > BTC_SCHED_MAX_PUS))
		btc_error(d, no_loc, "schedule: farms of at most %d PUs (must be 2..%d)",
			  opt->farm_max_pus, BTC_SCHED_MAX_PUS);
	if (p->n_pus < 32 && (opt->forbid_mask >> p->n_pus) != 0)
		btc_error(d, no_loc, "schedule: forbidden PU out of range");
	for (int i = 0; opt->pin && i < p->n_stages; i++) {
		int c = opt->pin[i];
		if (c < 0)
			continue;
		btc_sched_stage_label(p, i, sl, sizeof(sl));
		if (c >= p->n_pus) {
			btc_error(d, no_loc, "schedule: %s pinned to PU %d of %d", sl, c, p->n_pus);
			continue;
		}
		btc_sched_pu_label(p, c, pl, sizeof(pl));
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

/* What quantum q does to time t ms: NULL when it keeps t within
 * BTC_SCHED_MAX_QUANT_ERR (or t is absent or 0), else how it fails. */
static const char *quant_loss(double t, int64_t q)
{
	if (isnan(t) || t == 0)
		return NULL;
	double ns = t * 1e6;
	double back = (double)llround(ns / (double)q) * (double)q;
	if (fabs(back - ns) <= BTC_SCHED_MAX_QUANT_ERR * ns)
		return NULL;
	return back == 0 ? "rounds to 0" : "loses over 1%";
}

/* Errors when t, stage i's time on PU c (ms; on `cores` of its cores, or
 * its plain time when 0), loses in the ranking quantum q (ns), which the
 * largest PU sum maxsum_ns forces (quant_loss). */
static void check_time(const struct btc_sched_problem *p, int i, int c, int cores, double t,
		       int64_t q, double maxsum_ns, struct btc_diag *d)
{
	const char *loss = quant_loss(t, q);
	if (!loss)
		return;
	char sl[160], pl[160];
	btc_sched_stage_label(p, i, sl, sizeof(sl));
	btc_sched_pu_label(p, c, pl, sizeof(pl));
	if (cores == 0)
		btc_error(d, no_loc,
			  "profiling table: %s on %s: time %g ms %s in the "
			  "ranking quantum of %lld ns, which the largest PU "
			  "sum (%g ms) forces: times span too many orders of "
			  "magnitude to rank exactly",
			  sl, pl, t, loss, (long long)q, maxsum_ns / 1e6);
	else
		btc_error(d, no_loc,
			  "profiling table: %s on %d cores of %s: time %g ms %s in "
			  "the ranking quantum of %lld ns: times span too many "
			  "orders of magnitude to rank exactly",
			  sl, cores, pl, t, loss, (long long)q);
}

/* The quantum must not round a real time away: a nonzero time that
 * quantises to 0, or loses more than BTC_SCHED_MAX_QUANT_ERR of itself,
 * would make the ranking (and "proven optimal") a statement about other
 * numbers than the table's. Such a table spans too many orders of
 * magnitude for the 31-bit pseudo-Boolean coefficients. */
bool btc_sched_check_quantum(const struct btc_sched_problem *p, bool core_splits,
			     int64_t quantum_ns, double maxsum_ns, struct btc_diag *d)
{
	int n = p->n_stages, np = p->n_pus;
	int64_t q = quantum_ns;
	int before = d->errors;
	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++)
			check_time(p, i, c, 0, p->time_ms[i * np + c], q, maxsum_ns, d);
	for (int i = 0; core_splits && i < n; i++)
		for (int c = 0; c < np; c++)
			for (int j = 0; j < p->cores[c].n_counts; j++)
				check_time(p, i, c, p->cores[c].counts[j],
					   p->time_cores_ms[btc_sched_cores_index(np, i, c, j)], q,
					   maxsum_ns, d);
	return d->errors == before;
}
