/* The main job as phases over one job struct: profile, schedule, build,
 * tune, head to head, final run, report. Every run of every schedule is
 * checked; a failed check is binding (the job fails, naming schedule,
 * stage and task) unless --keep-going, which marks the schedule failed
 * and leaves it out of every choice. */
#include "driver/job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "report/agreement.h"
#include "driver/build.h"
#include "driver/cache.h"
#include "driver/claim.h"
#include "driver/profile.h"
#include "driver/tune_loop.h"
#include "report/diagnose.h"
#include "driver/project.h"
#include "driver/files.h"
#include "report/fit.h"
#include "report/limits.h"
#include "report/report.h"
#include "report/result.h"
#include "gen/gen.h"
#include "util/fsafe.h"
#include "util/infile.h"
#include "util/proc.h"

#include <btrt_model.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum { PH_PROFILE, PH_SCHEDULE, PH_BUILD, PH_TUNE, PH_RUN, N_PHASES };

struct job {
	const struct btc_app *app;
	const struct btc_device *dev;
	const struct btc_request *opt;
	struct btc_diag *d;
	struct btc_tune_ctx tune; /* where the tuner runs (its options: opt->tune) */
	char *dir, *prog, *trace, *run_report;
	struct btc_table *table;
	char *table_path;
	struct btc_plan *plan;
	const struct btc_plan_schedule *scheds; /* [n], plan's */
	int n;
	struct btc_tune_entry *entries; /* [n], once tuning began */
	bool tuned;                     /* tuning ran to its end */
	struct btc_tune_summary tsum;
	int chosen, best_base;   /* schedule indices, -1: none */
	struct btc_tune_playoff po; /* the playoff's (phase_playoff), for the report */
	/* the bound round's (phase_bound_round): what it did, for the report */
	struct bound_round {
		const char *status;   /* NULL: none ran; static */
		int schedule, winner; /* -1: none */
		enum btc_mode mode;
		double bound_ms;
		struct btc_tune_h2h h2h; /* rounds 0: not raced */
		bool kept;
		double pooled_ratio; /* the rematch's undecided race's, NAN: none */
		int pooled_tuning_rounds;
	} br;
	/* the io round's (phase_io_round), for the report */
	struct io_round {
		const char *status; /* NULL: no probe; "not raced", "raced"; static */
		int schedule;       /* the tuning winner probed, -1: none */
		double period_ms, load_ms, check_ms;
		uint32_t load_from, check_from, load_to, check_to;
		const char *idle_pu; /* the PU's name where io_idle_pu, else NULL */
		const char *chunk_core_pu; /* the PU's name where io_busy_pu, else NULL */
		bool steady; /* load_ms and check_ms are steady-state means (io_probe) */
		struct btc_tune_h2h h2h;
		bool kept;
	} io;
	struct btc_tune_h2h h2h; /* valid when h2h_ran */
	bool h2h_ran;
	struct btc_report_race h2h_first; /* the first race where it was raced again */
	/* the regret round's (phase_regret_round): best -1 when none ran */
	struct regret_round {
		int best;                /* the measured best raced, -1: none */
		struct btc_tune_h2h h2h; /* chosen / best (rounds 0: not raced) */
	} rr;
	double final_ms;                    /* the final traced run (trace only), NAN: none */
	int final_warmup;                   /* its warm-up, the program's (>= its pool) */
	bool final_verified;                /* the chosen one's final run verified */
	int final_switches, final_schedule; /* --adapt: from the program's report; -1: none */
	struct btc_report_breakdown final_bd; /* what set the final run's period; chunk -1: none */
	double phases[N_PHASES], t0;
};

static const char *pu_of(const struct job *j, int i)
{
	return j->dev->pus[j->scheds[i].s.chunks[0].pu].name;
}

/* Schedule i failed (error: owned, says where): marked, and reported as an
 * error, or as a warning under --keep-going. */
static void schedule_failed(struct job *j, int i, char *error)
{
	struct btc_tune_entry *e = &j->entries[i];
	e->status = BTC_RUN_FAILED;
	if (error) {
		free(e->error);
		e->error = error;
	}
	if (j->opt->keep_going)
		btc_warning(j->d, (struct btc_loc){0}, "%s (--keep-going: marked failed)",
			    e->error);
	else
		btc_error(j->d, (struct btc_loc){0}, "%s", e->error);
}

/* One checked run of schedule i; a failure is marked and reported. */
static bool run_checked(struct job *j, int i, const char *phase, const char *trace, bool quiet,
			double *ms)
{
	struct btc_tune_run run = {
		.program = j->prog,
		.index = i,
		.sched = &j->scheds[i],
		.warmup = j->opt->tune.warmup,
		.tasks = j->opt->final_tasks,
		.input = j->opt->input,
		.report = j->run_report,
		.trace = trace,
		.quiet = quiet,
		.phase = phase,
		.adapt = j->opt->adapt && trace, /* the final (traced) run */
		.warmup_run = &j->final_warmup,
	};
	char *error = NULL;
	if (btc_tune_run_once(&run, &j->opt->tune, ms, &error))
		return true;
	if (!btc_interrupted())
		schedule_failed(j, i, error);
	return false;
}

/* ---- phases ---- */

/* 1. Profile (BT-Profiler), or reuse the cached table, or --table. */
static bool phase_profile(struct job *j)
{
	double t = now_s();
	if (j->opt->table) {
		j->table = btc_table_load(j->opt->table, NULL, j->app, j->dev, j->opt->plan.mode,
					  j->d);
		j->table_path = btc_xstrdup(j->opt->table);
	} else if (!btc_job_profile(j->app, j->dev, j->opt, &j->table, &j->table_path, j->d)) {
		return false;
	}
	j->phases[PH_PROFILE] = now_s() - t;
	return j->table && !btc_interrupted();
}

/* 2. Schedule (BT-Optimizer): the top K and the baselines. */
static bool phase_schedule(struct job *j)
{
	double t = now_s();
	/* The merged candidates ranked by the mode that fitted the last
	 * job's measurements on this cached table, where there was one. */
	struct btc_plan_options po = j->opt->plan;
	enum btc_mode fitted;
	bool cached = po.candidate_modes && !j->opt->table &&
		      btc_cache_fit_mode_read(j->table_path, &fitted);
	if (cached)
		po.mode = fitted;
	po.io_threads_extra = btc_gen_io_threads_extra(j->dev);
	j->plan = btc_plan(j->app, j->dev, j->table, j->table_path, &po, j->d);
	bool ok = j->plan != NULL;
	if (ok) {
		j->scheds = j->plan->schedules;
		j->n = j->plan->n_schedules;
	}
	/* Whatever a solver did to the signal handlers, btc's are back. */
	btc_install_signal_handlers();
	j->phases[PH_SCHEDULE] = now_s() - t;
	if (!ok || btc_interrupted())
		return false;
	int n_cand, n_base, n_bound, n_space;
	btc_plan_count(j->plan, &n_cand, &n_base, &n_bound, &n_space);
	char modes[64] = "";
	for (int m = 0; m < BTC_N_MODES; m++)
		if (m != (int)po.mode && (po.candidate_modes & (1u << m)))
			snprintf(modes + strlen(modes), sizeof(modes) - strlen(modes), " + %s",
				 btc_mode_name((enum btc_mode)m));
	char slice[80] = "";
	if (po.period_slice > 0)
		snprintf(slice, sizeof(slice),
			 "; with each table's %d least-period schedules and their twin mirrors",
			 po.period_slice);
	const char *ranked = !*modes  ? ""
			     : cached ? ", ranked by the first: the cached fit mode"
				      : ", ranked by the first";
	printf("schedule: %d candidates (objective %s, %s table%s%s%s)%s + %d baselines in %.0f ms\n",
	       n_cand, btc_sched_objective_name(j->opt->plan.sched.objective),
	       btc_mode_name(po.mode), modes, ranked, slice,
	       n_bound ? " + the assignment bound's assignment (outside the candidates' space)"
		       : "",
	       n_base, j->phases[PH_SCHEDULE] * 1000);
	if (j->opt->plan.space)
		printf("schedule: --exhaustive: the paper's space has %d schedules; the %d others "
		       "are measured too, never chosen\n",
		       j->plan->n_space, n_space);
	return true;
}

/* 3. Generate and build the multi-schedule program. */
static bool phase_build(struct job *j)
{
	double t = now_s();
	bool built;
	if (!btc_project_make(j->plan, j->dir, true, j->opt->force, &built, NULL, j->d) ||
	    !built || btc_interrupted())
		return false;
	j->phases[PH_BUILD] += now_s() - t;
	printf("build: %s (%.1f s)\n", j->dir, now_s() - t);
	fflush(stdout);
	free(j->prog);
	j->prog = btc_xasprintf("%s/build/%s-pipeline", j->dir, j->app->name);
	return true;
}

/* 4. Tune on the device (racing); every failure is named. */
static bool phase_tune(struct job *j)
{
	double t = now_s();
	j->entries = btc_xcalloc((size_t)j->n, sizeof(*j->entries));
	int winner;
	j->tune.seed = btc_tune_seed(&j->opt->tune);
	bool any = btc_tune(j->prog, j->scheds, j->n, &j->opt->tune, &j->tune, j->entries, &winner, &j->tsum,
			    j->d);
	j->phases[PH_TUNE] = now_s() - t;
	if (btc_interrupted())
		return false;
	j->tuned = true;
	bool failed = false;
	for (int i = 0; i < j->n; i++)
		if (j->entries[i].status == BTC_RUN_FAILED) {
			schedule_failed(j, i, NULL);
			failed = true;
		}
	return any && (!failed || j->opt->keep_going);
}

/* The tuning winner: the bound round's schedule when it replaced the
 * tuning's, else the playoff's pick, else btc_tune_pick's (each while it
 * has not failed since). */
static int tuning_winner(const struct job *j)
{
	int k = j->br.schedule;
	if (j->br.kept && k >= 0 && j->entries[k].status == BTC_RUN_VERIFIED)
		return k;
	k = j->po.pick;
	if (k >= 0 && j->entries[k].status == BTC_RUN_VERIFIED)
		return k;
	return btc_tune_pick(j->entries, j->n, false);
}

/* An undecided playoff's or rematch's pooled ratio for its line ("" when
 * NAN): "; undecided: with tuning's 1 paired round, 8 ratios, median
 * 0.983". */
static void pooled_say(char *buf, size_t size, double ratio, int tuning_rounds, int rounds)
{
	buf[0] = 0;
	if (!isnan(ratio))
		snprintf(buf, size,
			 "; undecided: with tuning's %d paired round%s, %d ratios, median %.3f",
			 tuning_rounds, tuning_rounds == 1 ? "" : "s", tuning_rounds + rounds,
			 ratio);
}

/* 4a. The playoff (btc_tune_playoff; docs/report.md, "The playoff").
 * Tuning ranks its finalists by their medians, of as few as 3 runs each
 * when the budget ends it: --exhaustive measures every schedule in every
 * round (racing and screening off), which on the H100 left 3 rounds in
 * 60 s, and two schedules within the noise swapped places from one lease
 * to the next (octree-cuda-g1 chose three schedules on four leases,
 * docs/results/h100.md). The best two race head to head in paired rounds,
 * so that the machine's drift cancels in each round's ratio; the
 * runner-up replaces the winner on a significant gain or, undecided, on
 * a pooled ratio below 1 (btc_tune_playoff_overturns); the loser is
 * out of the pick (tuning_winner takes the playoff's pick). False
 * when the job stops (interrupted; a failed run without --keep-going). */
static bool phase_playoff(struct job *j)
{
	j->po = (struct btc_tune_playoff){.winner = -1, .runner_up = -1, .pick = -1};
	if (!j->opt->playoff || j->opt->plan.n_specs)
		return true;
	double t = now_s();
	struct btc_rng rng;
	btc_rng_seed(&rng, (uint64_t)j->tune.seed ^ UINT64_C(0x706c61796f666600));
	int failed;
	bool ok = btc_tune_playoff(j->prog, j->scheds, &j->opt->tune, &j->tune, j->entries, j->n,
				   &rng, &j->po, &failed);
	j->phases[PH_TUNE] += now_s() - t;
	if (!ok && (btc_interrupted() || failed < 0))
		return false;
	if (!ok) {
		j->po.pick = -1;
		schedule_failed(j, failed, NULL);
		return j->opt->keep_going;
	}
	const struct btc_tune_playoff *p = &j->po;
	if (p->winner < 0 || p->runner_up < 0)
		return true;
	if (!p->raced) {
		printf("playoff: none: the tuning winner %d's 95 %% interval lies below the "
		       "runner-up %d's\n",
		       p->winner, p->runner_up);
		return true;
	}
	const struct btc_tune_h2h *h = &p->h;
	char ci[96] = "";
	if (h->rounds >= 2)
		snprintf(ci, sizeof(ci), " [%.3f, %.3f%s]", h->ratio_lo, h->ratio_hi,
			 h->ci_exact ? "" : ": min..max, too few rounds for a 95 % interval");
	char pooled[128];
	pooled_say(pooled, sizeof(pooled), p->pooled_ratio, p->pooled_tuning_rounds, h->rounds);
	printf("playoff: runner-up %d / tuning winner %d time ratio %.3f%s over %d rounds (%s%s): "
	       "%s\n",
	       p->runner_up, p->winner, h->ratio_median, ci, h->rounds, h->stop, pooled,
	       p->pick == p->runner_up ? "the runner-up replaces the tuning winner"
				       : "the tuning winner stays");
	return true;
}

/* The calibrated model's best assignment (btc_fit_bound_assignment) from
 * the candidates' measurements: --exhaustive's space_only ones are not
 * read, so that what the regret's denominator measured never picks the
 * choice. False when there is none or it is a one-chunk schedule (a
 * baseline, measured). Tests only: the environment's
 * BTC_TEST_BOUND_ROUND=SPEC (a --chunks spec) stands for the assignment,
 * so that a test on a small app reaches the build and the race, and
 * BTC_TEST_BOUND_ROUND=runner-up for the measured candidate of least
 * median but the tuning winner, the rematch's path (test/driver/tuning.sh). */
static bool bound_assignment(struct job *j, struct btc_schedule *s)
{
	const char *spec = getenv("BTC_TEST_BOUND_ROUND");
	if (spec && strcmp(spec, "runner-up") == 0) { /* the rematch's path */
		int w = tuning_winner(j), best = -1;
		for (int i = 0; i < j->n; i++)
			if (i != w && j->entries[i].status == BTC_RUN_VERIFIED &&
			    !j->entries[i].baseline && !j->entries[i].space_only &&
			    (best < 0 || j->entries[i].median_ms < j->entries[best].median_ms))
				best = i;
		if (best >= 0)
			*s = j->scheds[best].s;
		return best >= 0;
	}
	if (spec && *spec)
		return btc_plan_parse_spec(spec, j->app, j->dev, s, j->d) && s->n_chunks >= 2;
	struct btc_tune_entry *seen = btc_xcalloc((size_t)j->n, sizeof(*seen));
	memcpy(seen, j->entries, (size_t)j->n * sizeof(*seen)); /* shallow: runs borrowed */
	for (int i = 0; i < j->n; i++)
		if (seen[i].space_only)
			seen[i].status = BTC_RUN_NOT_RUN;
	struct btc_report r;
	btc_report_init(&r);
	btc_fit_candidates(j->plan, seen, &r);
	btc_fit_report(j->plan, &r);
	bool has = btc_fit_bound_assignment(j->plan, &r, s, &j->br.mode, &j->br.bound_ms);
	btc_report_free(&r);
	free(seen);
	return has && s->n_chunks >= 2;
}

/* The bound round's race of schedule k against the tuning winner, said
 * (what: "" or "rematch: "). */
static void bound_race_say(const struct job *j, const char *what, int k, int winner)
{
	const struct btc_tune_h2h *h = &j->br.h2h;
	char pooled[128];
	pooled_say(pooled, sizeof(pooled), j->br.pooled_ratio, j->br.pooled_tuning_rounds,
		   h->rounds);
	printf("bound round: %sschedule %d / tuning winner %d time ratio %.3f [%.3f, %.3f%s] over "
	       "%d rounds (%s%s): %s\n",
	       what, k, winner, h->ratio_median, h->ratio_lo, h->ratio_hi,
	       h->ci_exact ? "" : ": min..max, too few rounds for a 95 % interval", h->rounds,
	       h->stop, pooled,
	       j->br.kept ? "it replaces the tuning winner" : "the tuning winner stays");
}

/* The playoff's loser (out of the pick after a head to head), -1: none. */
static int playoff_loser(const struct job *j)
{
	const struct btc_tune_playoff *p = &j->po;
	if (!p->raced || p->pick < 0)
		return -1;
	return p->pick == p->winner ? p->runner_up : p->winner;
}

/* Whether the bound round races measured candidate k, the calibrated
 * model's best assignment, against the tuning winner (a rematch): k is not
 * the winner, verified, not the playoff's loser (raced already), and
 * tuning's exact intervals do not separate the two (btc_tune_separated);
 * screened out or not. */
static bool rematch_due(const struct job *j, int k, int winner)
{
	const struct btc_tune_entry *e = &j->entries[k];
	return k != winner && e->status == BTC_RUN_VERIFIED && e->n_runs > 0 &&
	       k != playoff_loser(j) && !btc_tune_separated(&j->entries[winner], e);
}

/* Why rematch_due said no, for the bound round's line. */
static const char *rematch_skip_why(const struct job *j, int k)
{
	if (j->entries[k].status != BTC_RUN_VERIFIED || !j->entries[k].n_runs)
		return ", not verified: no rematch";
	if (k == playoff_loser(j))
		return ", the playoff's loser: no rematch";
	return ", its 95 % interval above the tuning winner's: no rematch";
}

/* The bound round's rematch (docs/report.md, "The bound round"): the
 * calibrated model's best assignment k was measured in tuning, but the
 * tuning winner won on runs too few or too noisy to separate them (lease
 * ZQ's octree-cuda-g1: cuda:0-5 cpu:6, 2 runs at 1.66 and 2.00 ms in a
 * noisy spell, lost to one at 1.51 ms; 0.62 ms on lease ZP). k races the
 * winner by the playoff's rules (btc_tune_rematch_rounds): it replaces
 * the winner as the playoff's runner-up would; the loser is out of the pick.
 * In the simulation (test/driver/suite_tune_sim.c, "the bound round's
 * rematch") this is never worse and gains where tuning errs most
 * (docs/results/tune-sim.md, "The rematch"). False when the job stops. */
static bool bound_rematch(struct job *j, int k, int winner)
{
	double t = now_s();
	struct btc_rng rng;
	btc_rng_seed(&rng, (uint64_t)j->tune.seed ^ UINT64_C(0x726d617463680000));
	j->entries[k].finalist = true; /* a contender again, screened out or not */
	struct btc_tune_playoff p;
	int failed;
	bool ok = btc_tune_rematch(j->prog, j->scheds, &j->opt->tune, &j->tune, j->entries, winner,
				   k, &rng, &p, &failed);
	j->phases[PH_TUNE] += now_s() - t;
	if (!ok) {
		free(p.h.ratios);
		if (btc_interrupted() || failed < 0)
			return false;
		schedule_failed(j, failed, NULL);
		return j->opt->keep_going;
	}
	j->br.status = "rematch"; /* raced: rematch_due checked the separation */
	j->br.h2h = p.h; /* takes p.h.ratios */
	j->br.winner = winner;
	j->br.kept = p.pick == k;
	j->br.pooled_ratio = p.pooled_ratio;
	j->br.pooled_tuning_rounds = p.pooled_tuning_rounds;
	bound_race_say(j, "rematch: ", k, winner);
	return true;
}

/* 4b. The bound round (docs/report.md, "The bound round"). Tuning
 * measured the plan's candidates, which the paper's gapness filter
 * chose: it can leave out the schedule of least T_max (on the H100,
 * alexnet-dense-vulkan-g2 of lease M, docs/results/h100.md). Calibrated
 * on those measurements, the bound's model (btc_fit_bound_assignment)
 * names its best assignment; when that is a schedule no candidate is, it
 * is appended to the plan, the program rebuilt, and it is raced head to
 * head against the tuning winner (the head to head's rules,
 * btc_tune_head_to_head); it replaces the winner when the head to head
 * keeps it (btc_tune_h2h_keeps_candidate). An --exhaustive space_only
 * schedule is already built: it is raced the same way and becomes a
 * candidate. False when the job stops (interrupted; a failed build; a
 * failed run without --keep-going). */
static bool phase_bound_round(struct job *j)
{
	j->br = (struct bound_round){
		.schedule = -1, .winner = -1, .bound_ms = NAN, .pooled_ratio = NAN};
	if (!j->opt->bound_round || j->opt->plan.n_specs || !j->plan->has_bound)
		return true;
	int winner = tuning_winner(j);
	if (winner < 0)
		return true;
	struct btc_schedule s;
	j->br.status = "no assignment";
	if (!bound_assignment(j, &s)) {
		printf("bound round: nothing to measure (no calibration of every PU, or the "
		       "calibrated model's best assignment is a baseline or outside the space)\n");
		return true;
	}
	bool added;
	int k = btc_plan_add_bound_schedule(j->plan, &s, &added);
	if (k < 0)
		return true;
	j->br.schedule = k;
	j->scheds = j->plan->schedules;
	char *label = btc_plan_schedule_label(&j->scheds[k].s, j->dev);
	bool space = !added && j->scheds[k].space_only;
	char what[64] = "BTC_TEST_BOUND_ROUND";
	if (!isnan(j->br.bound_ms))
		snprintf(what, sizeof(what), "%s table, bound %.3f ms", btc_mode_name(j->br.mode),
			 j->br.bound_ms);
	if (!added && !space) {
		bool go = rematch_due(j, k, winner);
		printf("bound round: the calibrated model's best assignment (%s) is schedule %d "
		       "(%s), measured in tuning%s\n",
		       what, k, label,
		       k == winner ? ": the tuning winner"
		       : go        ? ", not the tuning winner: a rematch against it"
				   : rematch_skip_why(j, k));
		j->br.status = "measured";
		free(label);
		return go ? bound_rematch(j, k, winner) : true;
	}
	printf("bound round: the calibrated model's best assignment (%s) is %s, %s: racing it "
	       "against the tuning winner %d\n",
	       what, label, space ? "measured only for the regret (--exhaustive)" : "no candidate",
	       winner);
	free(label);
	if (added) {
		j->br.status = "added";
		j->entries = btc_xrealloc(j->entries, (size_t)(j->n + 1) * sizeof(*j->entries));
		j->entries[k] = btc_tune_entry_start(&j->scheds[k]);
		j->n++;
		if (!phase_build(j))
			return false;
	} else {
		j->br.status = "space";
		j->plan->schedules[k].space_only = false;
		j->plan->schedules[k].from_bound = true; /* kind "bound" from here on */
		j->entries[k].space_only = false;
	}
	double t = now_s();
	struct btc_rng rng;
	btc_rng_seed(&rng, (uint64_t)j->tune.seed ^ UINT64_C(0x626f756e64000000));
	int failed;
	struct btc_tune_options o = j->opt->tune;
	o.speedup_precision = 0; /* it chooses; the speedup is the final head to head's */
	bool ok = btc_tune_head_to_head(j->prog, j->scheds, &o, &j->tune, j->entries, k, winner,
					&rng, &j->br.h2h, &failed);
	if (!ok && (btc_interrupted() || failed < 0))
		return false;
	if (!ok) {
		schedule_failed(j, failed, NULL);
		return j->opt->keep_going;
	}
	const struct btc_tune_h2h *h = &j->br.h2h;
	j->br.winner = winner;
	j->br.kept = btc_tune_h2h_keeps_candidate(h, &j->opt->tune);
	if (!j->br.kept) /* out of the pick (tuning_winner), as raced out */
		j->entries[k].finalist = false;
	j->phases[PH_TUNE] += now_s() - t;
	bound_race_say(j, "", k, winner);
	return true;
}

/* The test hooks of the io round (tests only: the dev box leaves no
 * thread beyond one loader and one checker; test/driver/tuning.sh):
 * BTC_TEST_IO_ROUND=KL,KC[,keep] races the farms KL and KC whatever the
 * probe found, so that a test reaches the probe, the rebuild and the race,
 * and with ",keep" the path that keeps the new farms whatever the race
 * found (IO_HOOK_RACE; none when it names the plan's farms);
 * BTC_TEST_IO_ROUND=fewer:KL,KC takes the plan's farms as KL and KC for
 * the round, so that it races one io thread fewer (IO_HOOK_FEWER; the
 * dev box's generator builds one and one whatever the plan says). */
enum io_hook { IO_HOOK_NONE, IO_HOOK_RACE, IO_HOOK_FEWER };

static enum io_hook io_round_hook(const struct job *j, uint32_t *kl, uint32_t *kc, bool *keep)
{
	const char *hook = getenv("BTC_TEST_IO_ROUND");
	*keep = false;
	if (!hook || !*hook)
		return IO_HOOK_NONE;
	bool fewer = strncmp(hook, "fewer:", 6) == 0;
	unsigned a, b; /* 1..16: BTRT_LOAD_THREADS_MAX, BTRT_CHECK_THREADS_MAX */
	char tail[8] = "";
	if (sscanf(hook + (fewer ? 6 : 0), "%u,%u,%7s", &a, &b, tail) < 2 || a < 1 || b < 1 ||
	    a > 16 || b > 16 || (a == j->plan->load_threads && b == j->plan->check_threads))
		return IO_HOOK_NONE;
	*kl = a;
	*kc = b;
	*keep = !fewer && strcmp(tail, "keep") == 0;
	return fewer ? IO_HOOK_FEWER : IO_HOOK_RACE;
}

/* The io round's probe: one run of schedule k as the final run has it (no
 * trace) for the program's own io figures, its report's `io`: one task's
 * load and check on one thread, mean ms over the steady state's tasks,
 * as the period it is weighed against (btc_tune_io_means). 2 with those,
 * 1 with the means over every task (a program of an earlier btrt), 0 when
 * the report has none, -1 when the run failed (marked failed). */
static int io_probe(struct job *j, int k, double *load_ms, double *check_ms)
{
	double ms;
	if (!run_checked(j, k, "io round", NULL, true, &ms))
		return -1;
	cJSON *r = btc_read_json(j->run_report, NULL, NULL);
	int got = btc_tune_io_means(cJSON_GetObjectItemCaseSensitive(r, "io"), load_ms, check_ms);
	cJSON_Delete(r);
	return got;
}

/* u, an owning PU that the io round may take cores of for the io farms,
 * where the final run does not adapt (--adapt switches among every
 * built schedule) and the head to head's baseline runs no chunk on it
 * (btc_gen_idle_service_pu), so that the baseline keeps every core it
 * was measured with; else -1. */
static int io_pu_free_of_baseline(const struct job *j, int u)
{
	if (u < 0 || j->opt->adapt)
		return -1;
	int base = btc_tune_pick(j->entries, j->n, true);
	return base >= 0 && btc_gen_idle_service_pu(j->dev, &j->scheds[base].s) != u ? -1 : u;
}

/* The PU whose cores the io round may give the io farms
 * (btc_gen_io_threads_idle), -1: none. The schedules the job races after
 * it must leave that PU idle: tuning winner k and the baseline run no
 * chunk on it (io_pu_free_of_baseline). The regret round, which may race
 * any measured schedule, is not raced where its measured best runs there
 * (phase_regret_round). */
static int io_idle_pu(const struct job *j, int k)
{
	return io_pu_free_of_baseline(j, btc_gen_idle_service_pu(j->dev, &j->scheds[k].s));
}

/* The owning PU whose one chunk of tuning winner k may give the io farms a
 * core (btc_gen_busy_service_pu), -1: none; the baseline runs no chunk
 * there (io_pu_free_of_baseline). */
static int io_busy_pu(const struct job *j, int k)
{
	return io_pu_free_of_baseline(j, btc_gen_busy_service_pu(j->dev, &j->scheds[k].s));
}

/* 4c. The io round (docs/scheduler.md, "The io round"). The plan sizes
 * the io farms on the table's load and check, timed alone, against its
 * predicted compute period; in the pipeline the io runs slower and the
 * chunks can run faster, and one io thread then sets the period (the
 * H100's octree-cuda-g1: lease S's one checker at 0.73 ms against chunks
 * of 0.63 ms, lease U's one loader at 0.80 ms for a period of 0.78 ms;
 * docs/results/h100.md). Where the device leaves io threads to give
 * (btc_gen_io_threads_extra, or btc_gen_io_threads_idle where io_idle_pu,
 * or one core of the owning PU's chunk where io_busy_pu and none else),
 * one probe run of the tuning winner measures
 * its load and check; where their T_io reaches BTC_PLAN_IO_HEADROOM of the
 * winner's measured period, the program is rebuilt with the farms for
 * that period (btc_plan_io_round_farms) and raced head to head against
 * the build it replaces (each thread more is a core fewer for the CPU
 * chunks). Otherwise, where the plan's farms have more than one thread,
 * the build with one io thread fewer (btc_plan_io_round_fewer) races it
 * the same way. More farms stay as the head to head's candidate does
 * (btc_tune_io_round_keeps: a significant gain, or undecided with a
 * median ratio below 1), fewer only on a significant gain; else the
 * plan's are built again. False when the job stops (interrupted; a failed
 * check without --keep-going). */
static bool phase_io_round(struct job *j)
{
	j->io = (struct io_round){
		.schedule = -1, .period_ms = NAN, .load_ms = NAN, .check_ms = NAN};
	uint32_t extra = btc_gen_io_threads_extra(j->dev), kl, kc;
	bool keep;
	enum io_hook hook_kind = io_round_hook(j, &kl, &kc, &keep);
	bool hook = hook_kind == IO_HOOK_RACE;
	int k = tuning_winner(j);
	int idle = k >= 0 ? io_idle_pu(j, k) : -1;
	int busy = k >= 0 && idle < 0 && !extra ? io_busy_pu(j, k) : -1;
	if (idle >= 0)
		extra = btc_gen_io_threads_idle(j->dev);
	else if (busy >= 0)
		extra = 1; /* a core of the owning PU's chunk */
	if (!j->opt->io_round || j->opt->plan.n_specs || k < 0 ||
	    (!extra && hook_kind == IO_HOOK_NONE))
		return true;
	struct io_round *io = &j->io;
	if (idle >= 0) {
		io->idle_pu = j->dev->pus[idle].name;
		printf("io round: %s runs no chunk of schedule %d nor of the baseline: its cores "
		       "can take %u io thread(s) beyond the source and the sink\n",
		       io->idle_pu, k, extra);
	}
	if (busy >= 0) {
		io->chunk_core_pu = j->dev->pus[busy].name;
		printf("io round: no io thread to spare: schedule %d's chunk on %s can give the io "
		       "farms one of its cores\n",
		       k, io->chunk_core_pu);
	}
	if (hook_kind == IO_HOOK_FEWER)
		btc_plan_set_io_farms(j->plan, kl, kc);
	double t = now_s();
	int got = io_probe(j, k, &io->load_ms, &io->check_ms);
	j->phases[PH_TUNE] += now_s() - t;
	if (got < 0)
		return !btc_interrupted() && j->opt->keep_going;
	io->schedule = k;
	io->steady = got == 2;
	io->period_ms = j->entries[k].median_ms;
	io->load_from = io->load_to = j->plan->load_threads;
	io->check_from = io->check_to = j->plan->check_threads;
	if (!got && hook_kind == IO_HOOK_NONE) {
		printf("io round: schedule %d's run reports no io figures: the farms stay\n", k);
		io->status = "not raced";
		return true;
	}
	double t_io = btrt_model_io_ms(io->load_ms, io->check_ms, io->load_from, io->check_from);
	bool more = hook || btc_plan_io_round_farms(j->plan, io->load_ms, io->check_ms,
						    io->period_ms, extra, &kl, &kc);
	bool fewer = !more && btc_plan_io_round_fewer(j->plan, io->load_ms, io->check_ms, &kl, &kc);
	printf("io round: schedule %d's io %.3f ms (load %.3f ms / %u, check %.3f ms / %u, "
	       "measured%s) is %.2f of its measured period %.3f ms: %s",
	       k, t_io, io->load_ms, io->load_from, io->check_ms, io->check_from,
	       io->steady ? ", steady state" : "", t_io / io->period_ms, io->period_ms,
	       more    ? ""
	       : fewer ? "no farm more, one io thread fewer (a core more for the chunks): "
		       : "the farms stay (below the headroom or no thread left)\n");
	if (!more && !fewer) {
		io->status = "not raced";
		return true;
	}
	printf("rebuilding with %u loader(s) and %u check worker(s), racing it against the "
	       "build%s\n",
	       kl, kc, hook_kind != IO_HOOK_NONE ? " (BTC_TEST_IO_ROUND)" : "");
	io->status = "raced";
	io->load_to = kl;
	io->check_to = kc;
	char *built = btc_xasprintf("%s.built", j->prog);
	if (rename(j->prog, built) != 0) {
		btc_warning(j->d, (struct btc_loc){0}, "io round: cannot keep %s as %s: not raced",
			    j->prog, built);
		free(built);
		io->status = "not raced";
		return true;
	}
	btc_plan_set_io_farms(j->plan, kl, kc);
	bool ok = phase_build(j);
	if (ok) {
		t = now_s();
		struct btc_rng rng;
		btc_rng_seed(&rng, (uint64_t)j->tune.seed ^ UINT64_C(0x696f726f756e6400));
		ok = btc_tune_io_round(j->prog, built, j->scheds, k, &j->entries[k], &j->opt->tune,
				       &j->tune, &rng, &io->h2h);
		j->phases[PH_TUNE] += now_s() - t;
	}
	remove(built);
	free(built);
	if (btc_interrupted())
		return false;
	const struct btc_tune_h2h *h = &io->h2h;
	bool wins = ok && btc_tune_io_round_keeps(h, &j->opt->tune, more);
	io->kept = wins || (ok && keep);
	if (ok)
		printf("io round: %u and %u / %u and %u time ratio %.3f [%.3f, %.3f%s] over %d "
		       "rounds (%s): %s\n",
		       kl, kc, io->load_from, io->check_from, h->ratio_median, h->ratio_lo,
		       h->ratio_hi,
		       h->ci_exact ? "" : ": min..max, too few rounds for a 95 % interval",
		       h->rounds, h->stop,
		       h->gain ? "significant gain, the program keeps the new farms"
		       : wins  ? "no significant gain, the program keeps the new farms (undecided, "
				 "the median below 1: the io set the period)"
		       : keep  ? "kept (BTC_TEST_IO_ROUND)"
			       : "no significant gain, the plan's farms are built again");
	else
		btc_error(j->d, (struct btc_loc){0},
			  "io round: schedule %d with %u loader(s) and %u check worker(s) failed",
			  k, kl, kc);
	if (io->kept)
		return true;
	btc_plan_set_io_farms(j->plan, io->load_from, io->check_from);
	if (!phase_build(j))
		return false;
	return ok || j->opt->keep_going;
}

/* 5. Head to head, verified: the tuning winner against the best baseline,
 * in rounds of one run each in a shuffled order, until the interval of the
 * median per-round time ratio (winner / baseline) is decided or the budget
 * is out. The baseline is replaced when that interval lies below 1, or
 * when the head to head ends undecided with a median ratio below 1 (the
 * point estimate, "no significant gain"; btc_tune_h2h_keeps_candidate);
 * otherwise it is kept: "no significant gain". */
static bool phase_head_to_head(struct job *j)
{
	/* tests only: BTC_TEST_H2H_RERACE=K races candidate K, whatever
	 * tuning found, and takes its first race as reversing the runs before
	 * it (on the dev box a baseline wins tuning; test/driver/tuning.sh) */
	const char *hook = getenv("BTC_TEST_H2H_RERACE");
	int forced_k = hook && *hook ? atoi(hook) : -1;
	for (;;) {
		bool forced = forced_k >= 0 && forced_k < j->n && !j->entries[forced_k].baseline &&
			      j->entries[forced_k].status == BTC_RUN_VERIFIED;
		j->chosen = forced ? forced_k : tuning_winner(j);
		j->h2h_ran = false;
		if (j->chosen < 0)
			return false;
		j->best_base = j->entries[j->chosen].baseline
				       ? j->chosen
				       : btc_tune_pick(j->entries, j->n, true);
		if (j->best_base < 0 || j->best_base == j->chosen)
			return true;
		/* the race reverses the runs before it (btc_tune_h2h_reverses):
		 * raced once more, and the second race decides */
		free(j->h2h_first.stop);
		j->h2h_first = (struct btc_report_race){0};
		bool sep = btc_tune_separated(&j->entries[j->chosen], &j->entries[j->best_base]);
		const struct btc_tune_entry *c = &j->entries[j->chosen],
					    *b = &j->entries[j->best_base];
		double c_ms = c->median_ms, c_lo = c->ci_lo_ms, c_hi = c->ci_hi_ms;
		double b_ms = b->median_ms, b_lo = b->ci_lo_ms, b_hi = b->ci_hi_ms;
		int failed = -1;
		bool ok = true;
		for (int race = 0; race < 2 && ok; race++) {
			struct btc_rng rng;
			btc_rng_seed(&rng, (uint64_t)j->tune.seed ^ UINT64_C(0x6832680000000000) ^
						   (uint64_t)race);
			free(j->h2h.ratios);
			j->h2h.ratios = NULL;
			ok = btc_tune_head_to_head(j->prog, j->scheds, &j->opt->tune, &j->tune,
						   j->entries, j->chosen, j->best_base, &rng,
						   &j->h2h, &failed);
			if (!ok || race > 0 || !(forced || btc_tune_h2h_reverses(sep, &j->h2h)))
				break;
			const struct btc_tune_h2h *h = &j->h2h;
			printf("head to head: schedule %d / baseline %s time ratio %.3f [%.3f, %.3f] "
			       "over %d rounds reverses the runs before it (%.3f ms [%.3f, %.3f] "
			       "against %.3f ms [%.3f, %.3f]): the machine changed during the job; "
			       "racing again, the second race decides%s\n",
			       j->chosen, pu_of(j, j->best_base), h->ratio_median, h->ratio_lo,
			       h->ratio_hi, h->rounds, c_ms, c_lo, c_hi, b_ms, b_lo, b_hi,
			       forced ? " (BTC_TEST_H2H_RERACE)" : "");
			free(j->h2h_first.stop);
			j->h2h_first = (struct btc_report_race){.rounds = h->rounds,
								.ratio = h->ratio_median,
								.ratio_lo = h->ratio_lo,
								.ratio_hi = h->ratio_hi,
								.decided = h->decided,
								.stop = btc_xstrdup(h->stop)};
		}
		if (!ok && (btc_interrupted() || failed < 0))
			return false;
		if (!ok) {
			schedule_failed(j, failed, NULL);
			if (!j->opt->keep_going)
				return false;
			continue; /* --keep-going: the next pair */
		}
		j->h2h_ran = true;
		const struct btc_tune_h2h *h = &j->h2h;
		bool keep = btc_tune_h2h_keeps_candidate(h, &j->opt->tune);
		char *label = btc_plan_schedule_label(&j->scheds[j->chosen].s, j->dev);
		printf("head to head: schedule %d (%s) / baseline %s time ratio %.3f [%.3f, %.3f%s] "
		       "over %d rounds (%s%s): %s\n",
		       j->chosen, label, pu_of(j, j->best_base), h->ratio_median, h->ratio_lo,
		       h->ratio_hi,
		       h->ci_exact ? "" : ": min..max, too few rounds for a 95 % interval",
		       h->rounds, h->stop, j->h2h_first.rounds > 0 ? ", the second race" : "",
		       h->gain ? "significant gain, keeping the candidate"
		       : keep  ? "undecided, no significant gain; keeping the candidate, of median "
				 "ratio below 1 (the point estimate)"
			       : "no significant gain, keeping the baseline");
		if (j->h2h_first.rounds > 0 && btc_tune_h2h_reverses(true, h))
			btc_warning(j->d, (struct btc_loc){0},
				    "the head to head reversed the runs before it twice: the "
				    "choice rests on a machine that changed during the job "
				    "(run it again on a quiet machine)");
		free(label);
		if (!keep)
			j->chosen = j->best_base;
		return true;
	}
}

/* 7. The regret round (docs/report.md, "Regret"; --exhaustive or
 * --regret-round: without --exhaustive the measured best is that of the
 * schedules the job measured, not of the space).
 * The regret's two medians can come from different phases of the job:
 * the measured best's from tuning alone, the chosen's from tuning, the
 * playoff, the bound round and the head to head too. On a machine that
 * drifts (lease Z's octree-cuda-g1, docs/results/h100.md: 8.6 % from
 * pooled medians, 0.7 % within the tuning rounds) that difference is
 * the drift's, not the choice's. When the measured best is not the
 * chosen, the two race head to head in paired rounds within the
 * playoff's limits (btc_tune_regret_round), and the report gives the
 * paired ratio beside the pooled regret. It measures, never chooses.
 * False when the job stops (interrupted; a failed run without
 * --keep-going). */
static bool phase_regret_round(struct job *j)
{
	j->rr = (struct regret_round){.best = -1};
	if ((j->plan->n_space <= 0 && !j->opt->regret_round) || j->chosen < 0)
		return true;
	int best = -1;
	for (int i = 0; i < j->n; i++) {
		const struct btc_tune_entry *e = &j->entries[i];
		if (e->status == BTC_RUN_VERIFIED && !isnan(e->median_ms) &&
		    (best < 0 || e->median_ms < j->entries[best].median_ms))
			best = i;
	}
	/* tests only: BTC_TEST_REGRET_ROUND=K races schedule K instead (on
	 * the dev box the chosen is mostly the best; test/driver/tuning.sh) */
	const char *hook = getenv("BTC_TEST_REGRET_ROUND");
	if (hook && *hook) {
		int k = atoi(hook);
		if (k >= 0 && k < j->n && j->entries[k].status == BTC_RUN_VERIFIED)
			best = k;
	}
	if (best < 0 || best == j->chosen)
		return true;
	if (j->io.kept && j->io.idle_pu &&
	    btc_gen_idle_service_pu(j->dev, &j->scheds[best].s) < 0) {
		printf("regret round: not raced: the measured best %d runs on %s, whose cores the "
		       "io farms took (the io round)\n",
		       best, j->io.idle_pu);
		return true;
	}
	double t = now_s();
	struct btc_rng rng;
	btc_rng_seed(&rng, (uint64_t)j->tune.seed ^ UINT64_C(0x7265677265740000));
	int failed;
	char *error;
	bool ok = btc_tune_regret_round(j->prog, j->scheds, j->chosen, best, j->entries,
					&j->opt->tune, &j->tune, &rng, &j->rr.h2h, &failed, &error);
	j->phases[PH_TUNE] += now_s() - t;
	if (!ok) {
		if (btc_interrupted() || failed < 0) {
			free(error);
			return false;
		}
		schedule_failed(j, failed, error);
		return j->opt->keep_going;
	}
	free(error);
	j->rr.best = best;
	const struct btc_tune_h2h *h = &j->rr.h2h;
	char *label = btc_plan_schedule_label(&j->scheds[best].s, j->dev);
	printf("regret round: chosen %d / measured best %d (%s) time ratio %.3f [%.3f, %.3f%s] "
	       "over %d rounds (%s): the paired regret under the summary\n",
	       j->chosen, best, label, h->ratio_median, h->ratio_lo, h->ratio_hi,
	       h->ci_exact ? "" : ": min..max, too few rounds for a 95 % interval", h->rounds,
	       h->stop);
	free(label);
	return true;
}

/* The final run's adaptive figures from the program's report (its
 * "adapt" object: runtime/src/btrt_report.c, docs/report.md), printed. */
static void read_adaptive(struct job *j)
{
	cJSON *r = btc_read_json(j->run_report, NULL, NULL);
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(r, "adapt");
	const cJSON *sw = cJSON_GetObjectItemCaseSensitive(a, "switches");
	const cJSON *fs = cJSON_GetObjectItemCaseSensitive(a, "final_schedule");
	if (cJSON_IsNumber(sw) && cJSON_IsNumber(fs) && fs->valueint >= 0 && fs->valueint < j->n) {
		j->final_switches = sw->valueint;
		j->final_schedule = fs->valueint;
		char *label = btc_plan_schedule_label(&j->scheds[j->final_schedule].s, j->dev);
		printf("final run adaptive (--adapt): %d switch%s, ended on schedule %d (%s)%s\n",
		       j->final_switches, j->final_switches == 1 ? "" : "es", j->final_schedule,
		       label, j->final_switches ? "; the switches are in the trace" : "");
		free(label);
	} else {
		btc_warning(j->d, (struct btc_loc){0},
			    "--adapt: the final run's report %s has no adaptive figures",
			    j->run_report);
	}
	cJSON_Delete(r);
}

/* The final run's breakdown from the program's report (its "chunks"
 * times per task, its "schedule" chunks' farm ids, its "io";
 * runtime/src/btrt_report.c) into j->final_bd, which the job's summary
 * prints: what set the period, the slowest chunk (a farm's workers as one
 * chunk: their mean over their count, each running every k-th task) or
 * the io threads' T_io = max(load / k_load, check / k_check)
 * (btrt_model_io_ms, on the same times). The times are the steady-state
 * means (over the period's tasks: steady_mean_ms, load/check_steady_mean_ms)
 * where the report has them for every chunk and both io threads, else the
 * means over every task, which hold the warm-up. Issue 25's "the period
 * set by the slowest chunk, not by load + check" is read off it. chunk -1
 * when the report lacks the figures. */
static void read_breakdown(struct job *j)
{
	cJSON *r = btc_read_json(j->run_report, NULL, NULL);
	const cJSON *chunks = cJSON_GetObjectItemCaseSensitive(r, "chunks");
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(r, "schedule"), "chunks");
	const cJSON *io = cJSON_GetObjectItemCaseSensitive(r, "io");
	int n = cJSON_GetArraySize(chunks);
	struct btc_report_breakdown *b = &j->final_bd;
	free(b->chunk_pu); /* a final run again (--keep-going): its own */
	*b = (struct btc_report_breakdown){
		.chunk = -1, .chunk_ms = NAN, .io_ms = NAN, .load_ms = NAN, .check_ms = NAN};
	if (n != cJSON_GetArraySize(sc))
		n = 0;
	bool steady = n > 0 &&
		      cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(io, "load_steady_mean_ms")) &&
		      cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(io, "check_steady_mean_ms"));
	for (int c = 0; steady && c < n; c++)
		steady = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(chunks, c), "steady_mean_ms"));
	b->steady = steady;
	const char *per_task = steady ? "steady_mean_ms" : "mean_ms";
	for (int c = 0; c < n; c++) {
		const cJSON *pu = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(chunks, c),
								   "pu");
		const cJSON *farm = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(sc, c),
								     "farm");
		/* chunk c with its farm's other workers: their mean over their count */
		double sum = 0;
		int workers = 0;
		for (int w = 0; w < n; w++) {
			const cJSON *fw = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetArrayItem(sc, w), "farm");
			const cJSON *mw = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetArrayItem(chunks, w), per_task);
			bool same = w == c || (cJSON_IsNumber(farm) && cJSON_IsNumber(fw) &&
					       fw->valueint == farm->valueint);
			if (same && cJSON_IsNumber(mw)) {
				sum += mw->valuedouble;
				workers++;
			}
		}
		if (!workers || !cJSON_IsString(pu))
			continue;
		double ms = sum / workers / workers;
		if (b->chunk < 0 || ms > b->chunk_ms) {
			free(b->chunk_pu);
			b->chunk = c;
			b->chunk_pu = btc_xstrdup(pu->valuestring);
			b->chunk_ms = ms;
		}
	}
	/* the io as the program measured it, and its T_io */
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(io, steady ? "load_steady_mean_ms"
								     : "load_mean_ms");
	const cJSON *ck = cJSON_GetObjectItemCaseSensitive(io, steady ? "check_steady_mean_ms"
								      : "check_mean_ms");
	const cJSON *kl = cJSON_GetObjectItemCaseSensitive(io, "load_threads");
	const cJSON *kc = cJSON_GetObjectItemCaseSensitive(io, "check_threads");
	if (b->chunk >= 0 && cJSON_IsNumber(l) && cJSON_IsNumber(ck) && cJSON_IsNumber(kl) &&
	    cJSON_IsNumber(kc)) {
		b->load_ms = l->valuedouble;
		b->check_ms = ck->valuedouble;
		b->load_threads = kl->valueint;
		b->check_threads = kc->valueint;
		b->io_ms = btrt_model_io_ms(b->load_ms, b->check_ms,
					    (uint32_t)(kl->valueint > 0 ? kl->valueint : 0),
					    (uint32_t)(kc->valueint > 0 ? kc->valueint : 0));
	}
	cJSON_Delete(r);
}

/* 6. The chosen schedule once more, traced: its figure is for the trace
 * only, in no comparison. Returns 1 when it verified, 0 when the job
 * stops, -1 when --keep-going must choose again. */
static int phase_final_run(struct job *j)
{
	if (!run_checked(j, j->chosen, "final run", j->trace, false, &j->final_ms))
		return btc_interrupted() || !j->opt->keep_going ? 0 : -1;
	printf("final run (for the trace only): %d measured tasks after %d warm-up tasks (%d "
	       "asked, one per TaskObject at least), %.3f ms/task\n",
	       j->opt->final_tasks, j->final_warmup, j->opt->tune.warmup, j->final_ms);
	j->final_verified = true;
	if (j->opt->adapt)
		read_adaptive(j);
	else
		read_breakdown(j);
	return 1;
}

/* A race's head to head h into the report's *out (kept: the challenger
 * won). */
static void report_race(struct btc_report_race *out, const struct btc_tune_h2h *h, bool kept)
{
	out->rounds = h->rounds;
	if (h->rounds > 0) {
		out->ratio = h->ratio_median;
		out->ratio_lo = h->ratio_lo;
		out->ratio_hi = h->ratio_hi;
		out->decided = h->decided;
		out->stop = btc_xstrdup(h->stop);
	}
	out->kept = kept;
}

/* The report struct from what the job found: verified and the speedup
 * computed from the runs, null reasons where a value is absent. Every
 * schedule has one figure, the median of its verified runs. */
static void fill_report(const struct job *j, struct btc_report *r)
{
	const struct btc_device *dev = j->dev;
	btc_report_init(r);
	r->app = btc_xstrdup(j->app->name);
	r->device = btc_xstrdup(dev->name);
	r->table = j->table_path ? btc_xstrdup(j->table_path) : NULL;
	r->mode = btc_xstrdup(btc_mode_name(j->plan->mode));
	r->objective = btc_xstrdup(btc_sched_objective_name(j->opt->plan.sched.objective));
	r->gpu = btc_xstrdup(j->opt->plan.gpu ? j->opt->plan.gpu : "auto");
	r->racing = j->opt->tune.race;
	memcpy(r->phases_s, j->phases, sizeof(r->phases_s));
	btc_fit_candidates(j->plan, j->entries, r);
	int n_base = 0;
	for (int i = 0; i < j->n; i++) {
		r->n_failed += r->candidates[i].status == BTC_RUN_FAILED;
		n_base += r->candidates[i].baseline;
	}
	if (r->n_failed) {
		bool *failed = btc_xcalloc((size_t)j->n + 1, sizeof(bool));
		for (int i = 0; i < j->n; i++)
			failed[i] = r->candidates[i].status == BTC_RUN_FAILED;
		r->failure_diagnosis = btc_diagnose_failures(j->app, j->dev, j->scheds, failed,
							     j->n);
		free(failed);
	}
	btc_fit_pearson(r, j->plan->mode);
	btc_fit_report(j->plan, r);
	r->seed = j->tune.seed;
	r->tune_rounds = j->tsum.rounds;
	r->tune_screened = j->tsum.screened;
	r->tune_cpu_steal = j->tsum.cpu_steal;
	r->tune_stop = j->tsum.stop ? btc_xstrdup(j->tsum.stop) : NULL;
	r->tune_budget_s = j->opt->tune.budget_s;
	r->chosen_verified = j->final_verified;
	r->verified = j->final_verified && r->n_failed == 0;
	if (j->final_verified) {
		const struct btc_schedule *s = &j->scheds[j->chosen].s;
		r->chosen = j->chosen;
		r->n_chunks = s->n_chunks;
		r->chunks = btc_xcalloc((size_t)s->n_chunks, sizeof(*r->chunks));
		for (int c = 0; c < s->n_chunks; c++)
			r->chunks[c] = (struct btc_report_chunk){
				btc_xstrdup(dev->pus[s->chunks[c].pu].name),
				s->chunks[c].first_stage, s->chunks[c].last_stage};
		r->predicted_ms = j->scheds[j->chosen].predicted ? s->period_ms : NAN;
		r->measured_ms = r->candidates[j->chosen].measured_ms;
		r->final_ms = j->final_ms;
		r->final_tasks = j->opt->final_tasks;
		r->final_warmup = j->final_warmup;
		r->final_warmup_requested = j->opt->tune.warmup;
		r->final_switches = j->final_switches;
		r->final_schedule = j->final_schedule;
		r->final_breakdown = j->final_bd;
		r->final_breakdown.chunk_pu = j->final_bd.chunk_pu
						      ? btc_xstrdup(j->final_bd.chunk_pu)
						      : NULL;
	}
	r->n_space = j->plan->n_space;
	r->regret_round = j->opt->regret_round;
	btc_report_regret(r);
	if (r->regret_best >= 0 && j->rr.best >= 0) {
		r->regret_paired_best = j->rr.best;
		report_race(&r->regret_paired, &j->rr.h2h, false);
	}
	if (j->best_base >= 0 && j->entries[j->best_base].status == BTC_RUN_VERIFIED) {
		r->best_baseline = j->best_base;
		r->best_baseline_ms = r->candidates[j->best_base].measured_ms;
	} else {
		r->best_baseline_null_reason = btc_xstrdup(
			n_base == 0 ? "no baseline: no PU of the device runs every stage"
				    : "no baseline verified: every baseline failed its check");
	}
	if (j->po.winner >= 0 && j->po.runner_up >= 0) {
		const struct btc_tune_h2h *h = &j->po.h;
		r->playoff_status = btc_xstrdup(j->po.raced ? "raced" : "decided in tuning");
		r->playoff_winner = j->po.winner;
		r->playoff_runner_up = j->po.runner_up;
		if (j->po.raced) {
			report_race(&r->playoff, h, j->po.pick == j->po.runner_up);
			r->playoff.pooled_ratio = j->po.pooled_ratio;
			r->playoff.pooled_tuning_rounds = j->po.pooled_tuning_rounds;
		}
	}
	if (j->io.status) {
		const struct btc_tune_h2h *h = &j->io.h2h;
		r->io_round_status = btc_xstrdup(j->io.status);
		r->io_round_schedule = j->io.schedule;
		r->io_round_period_ms = j->io.period_ms;
		r->io_round_load_ms = j->io.load_ms;
		r->io_round_check_ms = j->io.check_ms;
		r->io_round_steady = j->io.steady;
		r->io_round_load_from = (int)j->io.load_from;
		r->io_round_check_from = (int)j->io.check_from;
		r->io_round_load_to = (int)j->io.load_to;
		r->io_round_check_to = (int)j->io.check_to;
		r->io_round_idle_pu = j->io.idle_pu ? btc_xstrdup(j->io.idle_pu) : NULL;
		r->io_round_chunk_core_pu = j->io.chunk_core_pu ? btc_xstrdup(j->io.chunk_core_pu)
								: NULL;
		report_race(&r->io_round, h, j->io.kept);
	}
	if (j->br.status) {
		const struct btc_tune_h2h *h = &j->br.h2h;
		r->bound_round_status = btc_xstrdup(j->br.status);
		r->bound_round_schedule = j->br.schedule;
		r->bound_round_mode = isnan(j->br.bound_ms)
					      ? NULL
					      : btc_xstrdup(btc_mode_name(j->br.mode));
		r->bound_round_bound_ms = j->br.bound_ms;
		r->bound_round_rounds = h->rounds;
		if (h->rounds > 0) {
			r->bound_round_winner = j->br.winner;
			r->bound_round_ratio = h->ratio_median;
			r->bound_round_ratio_lo = h->ratio_lo;
			r->bound_round_ratio_hi = h->ratio_hi;
			r->bound_round_kept = j->br.kept;
			r->bound_round_pooled_ratio = j->br.pooled_ratio;
			r->bound_round_pooled_tuning_rounds = j->br.pooled_tuning_rounds;
		}
	}
	if (j->h2h_ran) {
		const struct btc_tune_h2h *h = &j->h2h;
		r->h2h_candidate = h->candidate;
		r->h2h_rounds = h->rounds;
		r->ratio_median = h->ratio_median;
		r->ratio_ci_low = h->ratio_lo;
		r->ratio_ci_high = h->ratio_hi;
		r->h2h_decided = h->decided;
		r->h2h_stop = btc_xstrdup(h->stop);
		r->h2h_precision = j->opt->tune.speedup_precision;
		r->no_significant_gain = !h->gain;
		r->h2h_first = j->h2h_first;
		r->h2h_first.stop = j->h2h_first.stop ? btc_xstrdup(j->h2h_first.stop) : NULL;
	}
	if (!j->final_verified) {
		r->speedup_null_reason = btc_xstrdup("no schedule verified");
	} else if (r->best_baseline < 0) {
		r->speedup_null_reason = btc_xstrdup(r->best_baseline_null_reason);
	} else if (j->chosen == j->best_base) {
		r->speedup = 1; /* the chosen schedule is the best baseline */
	} else if (j->h2h_ran && !isnan(j->h2h.ratio_median) && j->h2h.ratio_median > 0) {
		/* The paired ratio's median and interval, inverted. */
		r->speedup = 1 / j->h2h.ratio_median;
		r->speedup_ci_low = 1 / j->h2h.ratio_hi;
		r->speedup_ci_high = 1 / j->h2h.ratio_lo;
	} else {
		r->speedup_null_reason = btc_xstrdup(
			"the best baseline was not measured head to head");
	}
	btc_fit_bound(j->plan, r);
}

static void print_summary(const struct job *j, const struct btc_report *r)
{
	char what[96] = "";
	printf("\n== btc report: %s on %s ==\n", j->app->name, j->dev->name);
	printf("%-4s %-9s %-34s %12s %12s %21s %4s %6s %6s\n", "N", "kind",
	       "schedule (PU:stages)", "predicted_ms", "measured_ms", "95% interval", "runs",
	       "rounds", "eff %");
	for (int i = 0; i < j->n; i++) {
		const struct btc_report_candidate *c = &r->candidates[i];
		char measured[32], ci[48];
		btc_report_measured_text(c, measured, sizeof(measured), ci, sizeof(ci));
		char eff[16] = "-";
		if (!isnan(c->efficiency))
			snprintf(eff, sizeof(eff), "%.1f", 100 * c->efficiency);
		printf("%-4d %-9s %-34s %12.3f %12s %21s %4d %6d %6s%s\n", i,
		       c->space_only ? "space" : btc_report_candidate_kind(c), c->label,
		       btc_fit_shown_ms(r, i, j->plan->mode, what, sizeof(what)),
		       measured, ci, c->runs, c->rounds, eff, i == r->chosen ? "  <- chosen" : "");
	}
	printf("(measured: median ms/task of the runs of up to %d tasks after %d warm-up, tuning and "
	       "head to head; the same figure in the report and btc report; predicted: %s)\n",
	       j->opt->tune.tasks, j->opt->tune.warmup, what);
	if (r->chosen >= 0) {
		const struct btc_report_candidate *c = &r->candidates[r->chosen];
		char ci[64] = "[n/a]";
		if (!isnan(c->ci_low_ms))
			snprintf(ci, sizeof(ci), "[%.3f, %.3f]", c->ci_low_ms, c->ci_high_ms);
		double pc = btc_fit_shown_ms(r, r->chosen, j->plan->mode, what, sizeof(what));
		printf("chosen: %s, %.3f ms/task %s over %d runs (%.1f tasks/s), predicted %.3f ms "
		       "(%s)\n",
		       c->label, r->measured_ms, ci, c->runs, 1000.0 / r->measured_ms,
		       isnan(pc) ? 0.0 : pc, what);
	} else
		printf("chosen: none (no schedule verified)\n");
	if (r->best_baseline >= 0 && !isnan(r->speedup)) {
		printf("best baseline: %s, %.3f ms/task: speedup %.2fx",
		       r->candidates[r->best_baseline].pu, r->best_baseline_ms, r->speedup);
		if (!isnan(r->speedup_ci_low))
			printf(" [%.2f, %.2f] (median of %d paired head-to-head ratios)",
			       r->speedup_ci_low, r->speedup_ci_high, r->h2h_rounds);
		printf("\n");
		if (r->h2h_first.rounds > 0)
			printf("head to head raced again: its first race, time ratio %.3f [%.3f, "
			       "%.3f] over %d rounds, reversed the runs before it (the machine "
			       "changed during the job); the second race decided\n",
			       r->h2h_first.ratio, r->h2h_first.ratio_lo, r->h2h_first.ratio_hi,
			       r->h2h_first.rounds);
		if (r->no_significant_gain)
			printf("no significant gain: schedule %d / baseline time ratio %.3f [%.3f, %.3f] "
			       "over %d rounds; %s\n",
			       r->h2h_candidate, r->ratio_median, r->ratio_ci_low, r->ratio_ci_high,
			       r->h2h_rounds,
			       r->chosen == r->h2h_candidate ? "undecided: the candidate is kept"
							     : "the baseline is kept");
	} else {
		printf("speedup: none (%s)\n", r->speedup_null_reason);
	}
	if (!isnan(r->final_ms))
		printf("final run (trace only): %.3f ms/task over %d tasks after %d warm-up%s\n",
		       r->final_ms, r->final_tasks, r->final_warmup,
		       r->final_switches >= 0 ? ", adaptive" : "");
	if (r->final_switches >= 0)
		printf("adaptive final run: %d switch%s, ended on schedule %d\n", r->final_switches,
		       r->final_switches == 1 ? "" : "es", r->final_schedule);
	int n_spread;
	double spread = btc_report_runs_spread(r, &n_spread);
	if (!isnan(spread))
		printf("runs' spread: %.1f %% (over the %d schedules with 3 runs or more, the median "
		       "of their 95 %% interval's width over their median)\n",
		       100 * spread, n_spread);
	const struct btc_report_breakdown *b = &r->final_breakdown;
	if (b->chunk >= 0) {
		printf("final run breakdown (%s per task): slowest chunk %d (%s) %.3f ms",
		       b->steady ? "steady means" : "means", b->chunk,
		       b->chunk_pu ? b->chunk_pu : "?", b->chunk_ms);
		if (!isnan(b->io_ms))
			printf(", io %.3f ms (load %.3f ms / %d, check %.3f ms / %d)", b->io_ms,
			       b->load_ms, b->load_threads, b->check_ms, b->check_threads);
		printf(": the period is set by the %s\n", btc_report_period_set_by(b));
	}
	int np = 0;
	double *pred = btc_xcalloc((size_t)j->n + 1, sizeof(double));
	double *meas = btc_xcalloc((size_t)j->n + 1, sizeof(double));
	const char **labels = btc_xcalloc((size_t)j->n + 1, sizeof(*labels));
	for (int i = 0; i < j->n; i++) {
		double p = btc_fit_shown_ms(r, i, j->plan->mode, what, sizeof(what));
		if (r->candidates[i].status == BTC_RUN_VERIFIED && !isnan(p)) {
			pred[np] = p;
			labels[np] = r->candidates[i].label;
			meas[np++] = r->candidates[i].measured_ms;
		}
	}
	char line[512];
	puts(btc_agreement_line(pred, meas, np, labels, what, line, sizeof(line)));
	free(pred);
	free(meas);
	free(labels);
	btc_fit_print(r, stdout);
	btc_fit_print_bound(r, stdout);
	btc_report_print_regret(r, stdout);
	if (r->verified)
		printf("verified: every task of every run matched the sequential reference\n");
	else {
		printf("NOT verified: %d of %d schedules failed their check%s\n", r->n_failed, j->n,
		       r->chosen_verified ? " (the chosen one verified in every run)" : "");
		if (r->failure_diagnosis)
			printf("where: %s\n", r->failure_diagnosis);
	}
	printf("phases: profile %.1f s, schedule %.3f s, build %.1f s, tune %.1f s, run %.1f s (total %.1f s)\n",
	       j->phases[PH_PROFILE], j->phases[PH_SCHEDULE], j->phases[PH_BUILD],
	       j->phases[PH_TUNE], j->phases[PH_RUN], now_s() - j->t0);
}

/* 7. Pictures, the summary, the report JSON. */
static void phase_report(struct job *j)
{
	char *svg = btc_xasprintf("%s/timeline.svg", j->dir);
	char *heat = btc_xasprintf("%s/profile.svg", j->dir);
	char *fit = btc_xasprintf("%s/fit.svg", j->dir);
	if (j->final_verified)
		btc_report_gantt_svg(j->trace, svg, 10 * j->final_ms, j->d);
	btc_report_heatmap_svg(j->table, j->app, j->dev, j->plan->mode, heat, j->d);
	struct btc_report r;
	fill_report(j, &r);
	btc_report_fit_svg(&r, fit, j->d);
	print_summary(j, &r);
	printf("files: ");
	if (j->final_verified)
		printf("%s (Perfetto), %s, ", j->trace, svg);
	printf("%s, ", fit);
	printf("%s%s%s\n", heat, j->opt->report ? ", " : "", j->opt->report ? j->opt->report : "");
	if (j->opt->report && !btc_interrupted())
		btc_report_write(&r, j->opt->report, j->d);
	if (!j->opt->table && r.fit_mode && !btc_interrupted())
		btc_cache_fit_mode_write(j->table_path, r.fit_mode, j->d);
	btc_report_free(&r);
	free(svg);
	free(heat);
	free(fit);
}

/* ---- the job ---- */

/* The CUDA placement probe's results shared by the job's programs
 * (BTRT_CUDA_PROBE_FILE; btrt_probe_file.c): the first run that probes a
 * buffer size decides for the runs after it, which neither probe it again
 * at their start (100-115 ms of each octree CUDA run on the H200) nor
 * place that buffer otherwise. A fresh DIR/cuda-probe.txt for each job,
 * kept afterwards; a setting of the user's stands. Returns the path to
 * free, or NULL. */
static char *share_cuda_probe(const char *dir)
{
	if (getenv("BTRT_CUDA_PROBE_FILE"))
		return NULL;
	char *abs = realpath(dir, NULL); /* whatever directory a program runs in */
	char *path = btc_xasprintf("%s/cuda-probe.txt", abs ? abs : dir);
	free(abs);
	unlink(path);
	setenv("BTRT_CUDA_PROBE_FILE", path, 1);
	return path;
}

int btc_job_main(const struct btc_app *app, const struct btc_device *dev,
		 const struct btc_request *opt, struct btc_diag *d)
{
	struct job j = {
		.app = app,
		.dev = dev,
		.opt = opt,
		.d = d,
		.tune = {.input = opt->input, .verbose = true, .app = app, .dev = dev},
		.chosen = -1,
		.best_base = -1,
		.final_ms = NAN,
		.final_switches = -1,
		.final_schedule = -1,
		.rr = {.best = -1},
		.final_bd = {.chunk = -1,
			     .chunk_ms = NAN,
			     .io_ms = NAN,
			     .load_ms = NAN,
			     .check_ms = NAN},
		.br = {.schedule = -1, .winner = -1, .bound_ms = NAN},
		.po = {.winner = -1, .runner_up = -1, .pick = -1},
		.io = {.schedule = -1, .period_ms = NAN, .load_ms = NAN, .check_ms = NAN},
		.t0 = now_s(),
	};
	btc_install_signal_handlers();
	/* Outputs checked, and the directory held, before any long phase. */
	if (opt->report && !btc_output_check("--report", opt->report, d))
		return 1;
	/* --cache too when a --table leaves it unused: a FIFO or device
	 * given as one is a mistake to name, not to ignore */
	if (opt->cache_dir && !btc_output_dir_check("--cache", opt->cache_dir, d))
		return 1;
	j.dir = btc_job_dir(opt->out_dir, app, dev, d);
	if (!j.dir || !btc_job_dir_claim(j.dir, d)) {
		free(j.dir);
		return 1;
	}
	/* The report and the pictures always reflect this run. */
	if (opt->report)
		unlink(opt->report);
	btc_job_dir_sweep(j.dir);
	j.tune.work_dir = j.dir;
	j.trace = btc_xasprintf("%s/trace.json", j.dir);
	j.run_report = btc_xasprintf("%s/run.tmp.%ld", j.dir, (long)getpid());
	char *probe_file = share_cuda_probe(j.dir);

	bool ok = phase_profile(&j) && phase_schedule(&j) && phase_build(&j) && phase_tune(&j) &&
		  phase_playoff(&j) && phase_bound_round(&j) && phase_io_round(&j);
	double t = now_s();
	for (int final = -1; ok && final == -1;) {
		ok = phase_head_to_head(&j);
		final = ok ? phase_final_run(&j) : 0;
		ok = final == 1;
	}
	j.phases[PH_RUN] = now_s() - t;
	ok = ok && phase_regret_round(&j);
	if (j.tuned && !btc_interrupted() && btc_tune_pick(j.entries, j.n, false) < 0)
		btc_error(d, (struct btc_loc){0}, "no schedule ran to a verified result");
	/* A report when the job ran to its end, or under --keep-going. */
	if (j.tuned && !btc_interrupted() && (ok || opt->keep_going))
		phase_report(&j);

	int status = d->errors ? 1 : 0;
	if (btc_interrupted()) {
		fprintf(stderr, "btc: interrupted\n");
		if (opt->report)
			unlink(opt->report);
		status = BTC_EXIT_INTERRUPTED;
	}
	/* The last run's own report, kept for reading as run.json. */
	char *run_json = btc_xasprintf("%s/run.json", j.dir);
	if (rename(j.run_report, run_json) != 0)
		unlink(j.run_report);
	free(run_json);
	btc_tune_entries_clear(j.entries, j.n);
	free(j.entries);
	free(j.h2h.ratios);
	free(j.br.h2h.ratios);
	free(j.io.h2h.ratios);
	free(j.h2h_first.stop);
	free(j.po.h.ratios);
	free(j.rr.h2h.ratios);
	free(j.final_bd.chunk_pu);
	btc_plan_free(j.plan);
	free(j.table_path);
	btc_table_free(j.table);
	free(j.prog);
	free(j.trace);
	free(j.run_report);
	free(j.dir);
	if (probe_file) {
		unsetenv("BTRT_CUDA_PROBE_FILE");
		free(probe_file);
	}
	return status;
}
