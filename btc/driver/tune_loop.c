/* The tuner's decision logic: rounds with screening and racing, the head
 * to head (driver/tune_loop.h; docs/report.md, "Measuring"). */
#include "driver/tune_loop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/diag.h"

/* btc_tune_pick's choice, schedule `except` left out (-1: none). */
static int pick_except(const struct btc_tune_entry *entries, int n, bool baselines_only, int except)
{
	int w = -1;
	bool any_finalist = false;
	for (int i = 0; i < n; i++)
		any_finalist |= entries[i].finalist && entries[i].status == BTC_RUN_VERIFIED &&
				!entries[i].space_only;
	for (int i = 0; i < n; i++) {
		const struct btc_tune_entry *e = &entries[i];
		if (i == except || e->status != BTC_RUN_VERIFIED || isnan(e->median_ms) ||
		    e->space_only || (baselines_only && !e->baseline) ||
		    (!baselines_only && any_finalist && !e->finalist))
			continue;
		if (w < 0 || e->median_ms < entries[w].median_ms)
			w = i;
	}
	return w;
}

int btc_tune_pick(const struct btc_tune_entry *entries, int n, bool baselines_only)
{
	return pick_except(entries, n, baselines_only, -1);
}

int btc_tune_pick_runner_up(const struct btc_tune_entry *entries, int n)
{
	int w = pick_except(entries, n, false, -1);
	return w < 0 ? -1 : pick_except(entries, n, false, w);
}

/* One run of schedule i, timed; a failure takes it out of the race. */
static bool bench_run(const struct btc_tune_bench *b, const struct btc_tune_options *opt,
		      int i, const char *phase, struct btc_tune_entry *e, double *ms,
		      double *secs)
{
	int warmup = e->warmup > 0 ? e->warmup : opt->warmup;
	int tasks = e->tasks > 0 ? e->tasks : opt->tasks;
	char *error = NULL;
	struct btc_run_times times = {0};
	double t = b->now(b->arg);
	bool ok = b->run(b->arg, i, warmup, tasks, phase, ms, &times, &error);
	if (secs)
		*secs = b->now(b->arg) - t;
	if (ok) {
		e->status = BTC_RUN_VERIFIED;
		e->tasks = tasks;
		e->warmup = warmup;
		btc_tune_entry_add_times(e, *ms, &times);
		return true;
	}
	btc_run_times_free(&times);
	if (b->interrupted(b->arg)) {
		free(error);
		return false;
	}
	e->status = BTC_RUN_FAILED;
	e->finalist = false;
	free(e->error);
	e->error = error;
	return false;
}

/* The interval of e lies within rel of its median, with 95 % coverage. */
static bool converged(const struct btc_tune_entry *e, double rel)
{
	return e->ci_exact && e->ci_hi_ms <= e->median_ms * (1 + rel) &&
	       e->ci_lo_ms >= e->median_ms * (1 - rel);
}

/* Racing after round r: drops every finalist whose interval lies entirely
 * above the best finalist's (the one with the lowest median), both
 * intervals with their full 95 % coverage (6 runs or more: [min, max] of
 * 3 runs covers 75 %, and with 20 schedules raced against the luckiest
 * one that drops good schedules). */
static void race(struct btc_tune_entry *entries, int n, bool verbose)
{
	int best = btc_tune_pick(entries, n, false);
	if (best < 0)
		return;
	bool printed = false;
	for (int i = 0; i < n; i++) {
		struct btc_tune_entry *e = &entries[i];
		if (e->finalist && i != best && e->ci_exact && entries[best].ci_exact &&
		    e->ci_lo_ms > entries[best].ci_hi_ms) {
			e->finalist = false;
			if (verbose)
				fprintf(stderr, "%s %d",
					printed ? ""
						: "tune:   dropped (interval above the best's):",
					i);
			printed = true;
		}
	}
	if (printed && verbose)
		fprintf(stderr, "\n");
}

/* The finalists that may be screened: verified, never space_only. */
static bool screenable(const struct btc_tune_entry *e)
{
	return e->finalist && e->status == BTC_RUN_VERIFIED && !e->space_only;
}

/* The runs of successive halving from k finalists of `runs` runs each:
 * a round of the k, then of ceil(k / 2), ... down to 2, and rounds of the
 * last ones until they have BTC_TUNE_EXACT_RUNS runs. */
static int halving_runs(int k, int runs)
{
	int total = 0;
	for (; runs < BTC_TUNE_EXACT_RUNS; runs++) {
		total += k;
		k = k > 2 ? (k + 1) / 2 : k;
	}
	return total;
}

/* Successive halving (Karnin, Koren & Somekh, ICML 2013; Jamieson &
 * Talwalkar, AISTATS 2016), one rung per round, sized to the budget: when
 * the k finalists (of `runs` runs each at least) cannot all reach
 * BTC_TUNE_EXACT_RUNS runs in the budget left (remaining_s, at run_s
 * seconds a run), only the best k' by median stay: the largest k' <=
 * ceil(k / 2) whose halving to 2 and then to exact intervals
 * (halving_runs) fits in it, at least 2. The others keep their runs (and a
 * baseline among them its place in the head to head's pick) but run no
 * more. Returns how many it dropped. */
static int screen(struct btc_tune_entry *entries, int n, double remaining_s, double run_s,
		  bool verbose)
{
	int k = 0, min_runs = 1 << 30;
	for (int i = 0; i < n; i++)
		if (screenable(&entries[i])) {
			k++;
			if (entries[i].n_runs < min_runs)
				min_runs = entries[i].n_runs;
		}
	int need = BTC_TUNE_EXACT_RUNS - min_runs;
	if (k <= 2 || need <= 0 || !(run_s > 0) || k * need * run_s <= remaining_s)
		return 0;
	int keep = (k + 1) / 2;
	while (keep > 2 && halving_runs(keep, min_runs) * run_s > remaining_s)
		keep--;
	/* The keep best by their fastest run (ties: the lower index), by
	 * selection. */
	double *low = btc_xcalloc((size_t)n + 1, sizeof(double));
	for (int i = 0; i < n; i++) {
		low[i] = INFINITY;
		for (int r = 0; r < entries[i].n_runs; r++)
			low[i] = fmin(low[i], entries[i].runs_ms[r]);
	}
	bool *kept = btc_xcalloc((size_t)n + 1, sizeof(bool));
	for (int c = 0; c < keep; c++) {
		int best = -1;
		for (int i = 0; i < n; i++)
			if (screenable(&entries[i]) && !kept[i] && (best < 0 || low[i] < low[best]))
				best = i;
		kept[best] = true;
	}
	free(low);
	if (verbose)
		fprintf(stderr,
			"tune:   screening (successive halving): %d finalists need %d more runs "
			"each at %.2f s a run, %.1f s of budget left: keeping the best %d, dropped:",
			k, need, run_s, fmax(0, remaining_s), keep);
	for (int i = 0; i < n; i++)
		if (screenable(&entries[i]) && !kept[i]) {
			entries[i].finalist = false;
			if (verbose)
				fprintf(stderr, " %d", i);
		}
	if (verbose)
		fprintf(stderr, "\n");
	free(kept);
	return k - keep;
}

/* Run lengths: a schedule more than twice as slow as the median schedule
 * gets proportionally fewer tasks (at least 2, and 1 warm-up) so that each
 * of its runs takes at most about twice as long as a typical run: one very slow schedule
 * (a baseline on a software GPU) would otherwise spend the budget. Before
 * round 1 by the predicted T_max, after it by the measured median. */
static void scale_run_lengths(struct btc_tune_entry *entries, int n,
			      const struct btc_tune_options *opt, bool verbose, bool predicted)
{
	double *m = btc_xcalloc((size_t)n + 1, sizeof(double));
	for (int i = 0; i < n; i++)
		m[i] = predicted ? (entries[i].predicted_ms > 0 ? entries[i].predicted_ms : NAN)
		       : entries[i].status == BTC_RUN_VERIFIED ? entries[i].median_ms
							       : NAN;
	double ref = btc_stats_median(m, n);
	bool printed = false;
	for (int i = 0; i < n && !isnan(ref); i++) {
		struct btc_tune_entry *e = &entries[i];
		if (isnan(m[i]) || (predicted && !(m[i] > 2 * ref)))
			continue;
		/* At most twice a typical run; a short run that measured fast: full. */
		double f = m[i] > 2 * ref ? 2 * ref / m[i] : 1;
		int tasks = (int)fmax(2, round(opt->tasks * f));
		int warmup = (int)fmax(1, round(opt->warmup * f));
		if (tasks == e->tasks && warmup == e->warmup)
			continue;
		e->tasks = tasks;
		e->warmup = warmup;
		if (verbose)
			fprintf(stderr, "%s %d: %d+%d",
				printed     ? ","
				: predicted ? "tune: shorter runs for the slowest by prediction:"
					    : "tune: shorter runs for the slowest:",
				i, warmup, tasks);
		printed = true;
	}
	free(m);
	if (printed && verbose)
		fprintf(stderr, " tasks\n");
}

bool btc_tune_rounds(const struct btc_tune_bench *b, int n, const struct btc_tune_options *opt,
		     bool verbose, struct btc_rng *rng, struct btc_tune_entry *entries,
		     int *winner, struct btc_tune_summary *sum)
{
	sum->stop = "max rounds";
	sum->rounds = 0;
	sum->screened = 0;
	scale_run_lengths(entries, n, opt, verbose, true);
	int *order = btc_xcalloc((size_t)n + 1, sizeof(int));
	double *last_s = btc_xcalloc((size_t)n + 1, sizeof(double)); /* each one's last run */
	bool interrupted = false;
	double t0 = b->now(b->arg);
	for (int r = 1; r <= opt->max_rounds; r++) {
		double t_round = b->now(b->arg);
		int m = 0;
		for (int i = 0; i < n; i++)
			if (entries[i].finalist)
				order[m++] = i;
		if (m == 0) {
			sum->stop = "no schedule left";
			break;
		}
		btc_stats_shuffle(order, m, rng);
		if (verbose) {
			fprintf(stderr, "tune: round %d order:", r);
			for (int k = 0; k < m; k++)
				fprintf(stderr, " %d", order[k]);
			fprintf(stderr, "\n");
		}
		for (int k = 0; k < m && !interrupted; k++) {
			int i = order[k];
			double ms;
			entries[i].rounds = r;
			if (!bench_run(b, opt, i, "tuning", &entries[i], &ms, &last_s[i])) {
				interrupted = b->interrupted(b->arg);
				if (!interrupted && verbose)
					fprintf(stderr, "tune:   %2d %-9s FAILED\n", i,
						entries[i].baseline ? "baseline" : "candidate");
			}
		}
		sum->rounds = r;
		if (interrupted)
			break;
		if (r == 1)
			scale_run_lengths(entries, n, opt, verbose, false);
		double now = b->now(b->arg), round_s = now - t_round;
		if (opt->race && opt->screen)
			sum->screened += screen(entries, n, opt->budget_s - (now - t0),
						round_s / m, verbose);
		if (opt->race && r >= opt->min_rounds)
			race(entries, n, verbose);
		int left = 0, done = 0, short_of_exact = 0;
		double next_s = 0; /* the next round, at each finalist's last run */
		for (int i = 0; i < n; i++)
			if (entries[i].finalist) {
				left++;
				done += converged(&entries[i], opt->ci_rel);
				next_s += last_s[i];
				short_of_exact += entries[i].n_runs < BTC_TUNE_EXACT_RUNS;
			}
		if (r >= opt->min_rounds && left > 0 && done == left) {
			sum->stop = "converged";
			break;
		}
		if (r >= opt->min_rounds && left == 1) {
			sum->stop = "one finalist";
			break;
		}
		/* The budget. Screening: the next round's length is that of
		 * its finalists' last runs, and the last 2 finalists (screening
		 * keeps no fewer) go on to their exact intervals past it: at
		 * most 2 x (BTC_TUNE_EXACT_RUNS - 1) runs more. Without: the
		 * last round's length. */
		bool over = opt->race && opt->screen
				    ? now - t0 + next_s > opt->budget_s &&
					      !(short_of_exact && left <= 2)
				    : now - t0 + round_s > opt->budget_s;
		if (over) {
			sum->stop = "budget";
			break;
		}
	}
	sum->elapsed_s = b->now(b->arg) - t0;
	*winner = interrupted ? -1 : btc_tune_pick(entries, n, false);
	free(order);
	free(last_s);
	return !interrupted;
}

enum btc_tune_budget btc_tune_budget_rule(const struct btc_tune_options *opt, int need,
					  int rounds, double elapsed_s, double round_s)
{
	double next = elapsed_s + round_s;
	if (next <= opt->budget_s)
		return BTC_BUDGET_GO;
	if (rounds >= need)
		return BTC_BUDGET_STOP;
	return next <= fmax(1, opt->budget_cap) * opt->budget_s ? BTC_BUDGET_PAST : BTC_BUDGET_CAP;
}

int btc_tune_need_rounds(const struct btc_tune_options *opt)
{
	return opt->min_rounds > opt->h2h_min_rounds ? opt->min_rounds : opt->h2h_min_rounds;
}

void btc_tune_budget_say(FILE *f, const char *prefix, enum btc_tune_budget v,
			 const struct btc_tune_options *opt, int need, int rounds,
			 double elapsed_s, double round_s)
{
	if (v != BTC_BUDGET_PAST && v != BTC_BUDGET_CAP)
		return;
	double cap = fmax(1, opt->budget_cap), cap_s = cap * opt->budget_s;
	/* the 6 of an exact interval, or more asked for (--min-rounds) */
	bool asked = need > BTC_TUNE_EXACT_RUNS;
	if (v == BTC_BUDGET_PAST) {
		fprintf(f,
			"%s: past the budget (%g s): round %d would end at %.1f s; %d of the %d "
			"rounds %s, going on (at most %g s, %g budgets)\n",
			prefix, opt->budget_s, rounds + 1, elapsed_s + round_s, rounds, need,
			asked ? "asked for (--min-rounds)" : "an exact 95 % interval needs", cap_s,
			cap);
		return;
	}
	/* need rounds at the last round's length, within the cap */
	double need_s = elapsed_s + (need - rounds) * round_s;
	fprintf(f,
		"%s: stopped short of %s: %d of %d rounds; round %d would end at %.1f s, past "
		"the cap of %g s (%g x the budget of %g s)%s; %d rounds would take about %.0f s "
		"(a budget of %.0f s)\n",
		prefix,
		asked ? "the rounds asked for (--min-rounds)" : "an exact 95 % interval", rounds,
		need, rounds + 1, elapsed_s + round_s, cap_s, cap, opt->budget_s,
		rounds < BTC_TUNE_EXACT_RUNS ? "; the intervals are [min, max]" : "", need, need_s,
		ceil(need_s / cap));
}

static void h2h_update(struct btc_tune_h2h *h, const struct btc_tune_options *opt)
{
	h->ci_exact = btc_stats_median_ci(h->ratios, h->rounds, 0.95, &h->ratio_median,
					  &h->ratio_lo, &h->ratio_hi);
	h->gain = h->ci_exact && h->ratio_hi < 1;
	h->decided = h->ci_exact &&
		     (h->ratio_hi < 1 || h->ratio_lo > 1 ||
		      (h->ratio_lo >= 1 - opt->ci_rel && h->ratio_hi <= 1 + opt->ci_rel));
}

/* The ratio's interval within its median x (1 +- p) (p <= 0: always). */
static bool h2h_precise(const struct btc_tune_h2h *h, double p)
{
	return p <= 0 || (h->ratio_lo >= h->ratio_median * (1 - p) &&
			  h->ratio_hi <= h->ratio_median * (1 + p));
}

bool btc_tune_h2h_rounds(const struct btc_tune_bench *b, const struct btc_tune_options *opt,
			 bool verbose, struct btc_tune_entry *entries, int cand, int base,
			 struct btc_rng *rng, struct btc_tune_h2h *h, int *failed)
{
	*h = (struct btc_tune_h2h){.candidate = cand,
				   .baseline = base,
				   .ratio_median = NAN,
				   .ratio_lo = NAN,
				   .ratio_hi = NAN,
				   .stop = "max rounds"};
	*failed = -1;
	h->ratios = btc_xcalloc((size_t)opt->h2h_max_rounds + 1, sizeof(double));
	double t0 = b->now(b->arg);
	bool ok = true, past = false; /* past: said that it runs past the budget */
	int need = btc_tune_need_rounds(opt);
	for (int r = 1; r <= opt->h2h_max_rounds && ok; r++) {
		double t_round = b->now(b->arg);
		int order[2] = {cand, base};
		btc_stats_shuffle(order, 2, rng);
		double ms[2];
		for (int k = 0; k < 2 && ok; k++) {
			int i = order[k];
			ok = bench_run(b, opt, i, "head to head", &entries[i], &ms[i == cand ? 0 : 1],
				       NULL);
			if (!ok && !b->interrupted(b->arg))
				*failed = i;
		}
		if (!ok)
			break;
		if (verbose)
			fprintf(stderr, "h2h: round %d order: %d %d: ratio %.4f\n", r, order[0],
				order[1], ms[0] / ms[1]);
		h->ratios[h->rounds++] = ms[0] / ms[1];
		h2h_update(h, opt);
		if (r >= need && h->decided && h2h_precise(h, opt->speedup_precision)) {
			h->stop = "decided";
			break;
		}
		/* The budget stops the head to head only once it has the
		 * rounds of an exact 95 % interval (h2h_min_rounds) or the
		 * more asked for (min_rounds), or at the cap: fewer rounds
		 * decide nothing (a slow app's rounds of several seconds each,
		 * alexnet-sparse). */
		double now = b->now(b->arg);
		enum btc_tune_budget v =
			btc_tune_budget_rule(opt, need, r, now - t0, now - t_round);
		if (v == BTC_BUDGET_CAP || (v == BTC_BUDGET_PAST && (verbose || !past)))
			btc_tune_budget_say(stderr, "h2h", v, opt, need, r, now - t0,
					    now - t_round);
		past |= v == BTC_BUDGET_PAST;
		if (v == BTC_BUDGET_STOP || v == BTC_BUDGET_CAP) {
			h->stop = v == BTC_BUDGET_CAP ? "budget cap" : "budget";
			break;
		}
	}
	return ok;
}

struct btc_tune_options btc_tune_playoff_options(const struct btc_tune_options *opt)
{
	struct btc_tune_options o = *opt;
	int need = btc_tune_need_rounds(opt);
	o.h2h_max_rounds = need > BTC_TUNE_PLAYOFF_MAX_ROUNDS ? need : BTC_TUNE_PLAYOFF_MAX_ROUNDS;
	o.budget_s *= BTC_TUNE_PLAYOFF_BUDGET_SHARE;
	o.speedup_precision = 0; /* it chooses; it reports no speedup */
	return o;
}

bool btc_tune_playoff_rounds(const struct btc_tune_bench *b, const struct btc_tune_options *opt,
			     bool verbose, struct btc_tune_entry *entries, int n,
			     struct btc_rng *rng, struct btc_tune_playoff *p, int *failed)
{
	*p = (struct btc_tune_playoff){.winner = btc_tune_pick(entries, n, false),
				       .runner_up = btc_tune_pick_runner_up(entries, n),
				       .pick = -1,
				       .pooled_ratio = NAN};
	*failed = -1;
	if (p->winner < 0 || p->runner_up < 0)
		return true;
	return btc_tune_rematch_rounds(b, opt, verbose, entries, p->winner, p->runner_up, rng, p,
				       failed);
}

bool btc_tune_separated(const struct btc_tune_entry *a, const struct btc_tune_entry *z)
{
	return a->ci_exact && z->ci_exact && a->ci_hi_ms < z->ci_lo_ms;
}

bool btc_tune_rematch_rounds(const struct btc_tune_bench *b, const struct btc_tune_options *opt,
			     bool verbose, struct btc_tune_entry *entries, int w, int r,
			     struct btc_rng *rng, struct btc_tune_playoff *p, int *failed)
{
	*p = (struct btc_tune_playoff){.winner = w, .runner_up = r, .pick = w, .pooled_ratio = NAN};
	*failed = -1;
	if (btc_tune_separated(&entries[w], &entries[r]))
		return true;
	struct btc_tune_options o = btc_tune_playoff_options(opt);
	p->raced = true;
	if (!btc_tune_h2h_rounds(b, &o, verbose, entries, r, w, rng, &p->h, failed))
		return false;
	if (btc_tune_playoff_overturns(&entries[w], &entries[r], &p->h, opt, &p->pooled_ratio,
				       &p->pooled_tuning_rounds))
		p->pick = r;
	entries[p->pick == r ? w : r].finalist = false; /* out of the pick, as raced out */
	return true;
}

double btc_tune_pooled_ratio(const struct btc_tune_entry *w, const struct btc_tune_entry *r,
			     const struct btc_tune_h2h *h, int *tuning_rounds)
{
	/* tuning's round k ran both (finalists run every round from the
	 * first): their k-th runs pair up */
	int k = w->rounds < r->rounds ? w->rounds : r->rounds;
	k = k < w->n_runs ? k : w->n_runs;
	k = k < r->n_runs ? k : r->n_runs;
	*tuning_rounds = k;
	if (k + h->rounds == 0)
		return NAN;
	double *x = btc_xcalloc((size_t)(k + h->rounds), sizeof(double));
	for (int i = 0; i < k; i++)
		x[i] = r->runs_ms[i] / w->runs_ms[i];
	for (int i = 0; i < h->rounds; i++)
		x[k + i] = h->ratios[i];
	double m = btc_stats_median(x, k + h->rounds);
	free(x);
	return m;
}

bool btc_tune_playoff_overturns(const struct btc_tune_entry *w, const struct btc_tune_entry *r,
				const struct btc_tune_h2h *h, const struct btc_tune_options *opt,
				double *pooled, int *tuning_rounds)
{
	double m = NAN;
	int k = 0;
	if (!h->gain && opt->playoff_pooled && !h->decided && h->rounds > 0)
		m = btc_tune_pooled_ratio(w, r, h, &k);
	if (pooled)
		*pooled = m;
	if (tuning_rounds)
		*tuning_rounds = k;
	return h->gain || m < 1;
}

bool btc_tune_h2h_keeps_candidate(const struct btc_tune_h2h *h,
				  const struct btc_tune_options *opt)
{
	if (h->gain)
		return true;
	return opt->h2h_point && !h->decided && h->rounds > 0 && h->ratio_median < 1;
}

bool btc_tune_h2h_reverses(bool separated_before, const struct btc_tune_h2h *h)
{
	return separated_before && h->decided && h->rounds > 0 && h->ratio_lo > 1;
}

bool btc_tune_io_round_keeps(const struct btc_tune_h2h *h, const struct btc_tune_options *opt,
			     bool more)
{
	return more ? btc_tune_h2h_keeps_candidate(h, opt) : h->gain;
}
