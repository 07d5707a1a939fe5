/* The offline replay of a lease's runs (`btc report --replay R.json`;
 * docs/report.md, "Replaying the tuner's rules"): a main job's report
 * keeps every verified run of every schedule in the order run
 * (candidates[].runs_ms); the replay feeds them to the tuner's decision
 * rules (driver/tune_loop.h) through a bench that serves each schedule's
 * recorded runs in order, and judges each rule set by the regret of its
 * choice against the measured best. No process runs and nothing is timed:
 * the clock is the recorded runs' durations. */
#ifndef BTC_TUNE_REPLAY_H
#define BTC_TUNE_REPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "driver/tune.h"
#include "report/result.h"

/* The fixed seed of the resampling: a rule set that asks for more runs of
 * a verified schedule than the report holds gets runs drawn uniformly, with
 * replacement, from its recorded ones by a generator seeded with this. */
#define BTC_REPLAY_RESAMPLE_SEED UINT64_C(0x5265706c6179)

/* A run's start-up (process start, device set-up, the program's report) in
 * seconds when the report cannot give it (no phases_s.tune): lease I's
 * round 1, 48 s for 36 runs (as test/driver/suite_tune_sim.c). */
#define BTC_REPLAY_STARTUP_S 1.3

/* One set of the tuner's decision rules (btc_tune_options' screen and
 * h2h_point; racing is the report's own). */
struct btc_replay_rules {
	const char *name; /* "old", "new", "screen", "point" (static) */
	bool screen;      /* successive halving sized to the budget */
	bool h2h_point;   /* an undecided head to head keeps the lower median ratio */
};

#define BTC_REPLAY_MAX_RULES 4

/* Parses a comma-separated list of rule-set names ("old,new"; NULL: old
 * and new) into out[BTC_REPLAY_MAX_RULES]. Returns how many, or -1 after
 * reporting an unknown or repeated name to d. */
int btc_replay_rules_parse(const char *list, struct btc_replay_rules *out, struct btc_diag *d);

/* What one rule set chose on the recorded runs. */
struct btc_replay_outcome {
	struct btc_replay_rules rules;
	int chosen;                  /* index into the report's candidates, -1: none */
	double chosen_ms;            /* its recorded median (all its recorded runs), NAN: none */
	double regret;               /* chosen_ms / the measured best - 1 (a fraction), NAN: none */
	struct btc_tune_summary sum; /* the tuning's rounds, stop, screened, elapsed_s (replayed) */
	bool h2h_ran;
	struct btc_tune_h2h h2h; /* when h2h_ran; ratios freed (NULL) */
	bool kept_candidate;     /* the head to head kept its candidate */
	double elapsed_s;        /* tuning and head to head on the replay's clock */
	int runs_served;         /* runs the rules asked for */
	int runs_resampled;      /* of them, past a schedule's recorded runs */
	int schedules_resampled; /* schedules with a resampled run */
};

/* One report replayed under several rule sets. */
struct btc_replay {
	struct btc_report report; /* as read (owned) */
	double budget_s;          /* the budget replayed (--budget, else the report's) */
	double startup_s;         /* each run's start-up on the clock */
	bool startup_measured;    /* from phases_s.tune; else BTC_REPLAY_STARTUP_S */
	int warmup, tasks;        /* the job's full run length (its longest) */
	int n_recorded;           /* recorded runs over all schedules */
	int best;                 /* the verified schedule of least recorded median */
	double best_ms;
	double recorded_ms, recorded_regret; /* the job's own choice (report.chosen) */
	struct btc_replay_outcome out[BTC_REPLAY_MAX_RULES];
	int n_out;
};

/* Reads the report at path (btc_report_read: a malformed file is reported
 * as path:line:col) and replays its runs under rules[n_rules]. The bench
 * serves schedule i's runs_ms in order; past the last one a verified
 * schedule's run is resampled (BTC_REPLAY_RESAMPLE_SEED, one generator per
 * rule set), any other schedule's run fails as it did in the job. The
 * clock advances by startup_s + (warmup + tasks) x ms / 1000 per run, where
 * startup_s = max(0, phases_s.tune - sum over the tuning's runs of (warmup
 * + tasks) x ms / 1000) / (tuning runs), the head to head's runs (the last
 * head_to_head.rounds of its two schedules) left out. budget_s: the
 * tuning's and the head to head's budget in seconds, NAN for the report's
 * (tuning.budget_s, else 60). The tuning's seed is the report's (0 when
 * unknown), the head to head's derived from it as the job does; other
 * options are btc_tune_options_init's. The regret: the chosen's recorded
 * median / the least recorded median of any verified schedule - 1.
 * Returns false after reporting to d a report that cannot be replayed (no
 * runs_ms: written before btc recorded them; a run that is not a positive
 * number); free rp with btc_replay_free in both cases. */
bool btc_tune_replay(const char *path, const struct btc_replay_rules *rules, int n_rules,
		     double budget_s, struct btc_replay *rp, struct btc_diag *d);

/* Prints rp as text to f: the job, the measured best, and per rule set its
 * choice, recorded median, regret, rounds, head to head and the runs
 * resampled. */
void btc_replay_print(const struct btc_replay *rp, const char *path, FILE *f);

/* rp as JSON (docs/report.md, "Replay output"; caller deletes). */
cJSON *btc_replay_json(const struct btc_replay *rp, const char *path);

/* Frees what btc_tune_replay allocated inside rp (the report it read), not
 * rp itself; safe after a failed btc_tune_replay. */
void btc_replay_free(struct btc_replay *rp);

#endif
