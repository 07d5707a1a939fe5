/* Inside driver/colocate.c: the state of a co-location measurement and
 * its statistics (colocate_stats.c: pure, no I/O but the verbose racing
 * line; test/driver/colocate_stats_test.c feeds it synthetic runs). */
#ifndef BTC_COLOCATE_INTERNAL_H
#define BTC_COLOCATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/colocate.h"

enum colo_kind { COLO_SOLO, COLO_JOINT, COLO_NAIVE, COLO_MULTIPLEX };

/* One configuration measured in every round while it is live. */
struct colo_cfg {
	enum colo_kind kind;
	int stream;    /* COLO_SOLO: the stream run alone (its app's first) */
	int joint;     /* COLO_JOINT: the candidate's index */
	bool finalist; /* still run (racing drops joint candidates only) */
	bool failed;   /* a run failed: out, with why */
	char *why;     /* the first failure's message (owned) */
	int n_runs;    /* verified runs */
	double *rate;  /* [max_rounds * S]: tasks/s of stream s in round r
			   (1-based) at [(r - 1) * S + s]; NAN: not run */
	int n_timed;   /* runs timed (verified or not) */
	double run_s;  /* their wall seconds, start to the last process's end */
	double prep_s; /* their preparation, s: per run the slowest process's
			  streams' prepare_ms summed (a report's; 0 unknown) */
	struct btc_colocate_chunks *chunks; /* [S] sums over the verified runs */
};

struct colo_state {
	int S, n_cfg, max_rounds, rounds;
	const double *weight; /* [S] borrowed */
	int *solo_of;         /* [S] the index in cfg[] of s's app's solo */
	struct colo_cfg *cfg; /* solos (one per app), joints, naive, multiplex */
};

/* Builds the configurations of setup s (copied what it needs but the
 * weights, borrowed). Free with colo_state_free. */
void colo_state_init(struct colo_state *st, const struct btc_colocate_setup *s, int max_rounds);
void colo_state_free(struct colo_state *st);

/* Adds a verified run's chunks run[0..S) (a stream with n 0: not in its
 * reports) to c's sums; a stream whose chunk count differs from the runs
 * before is left out of this run. The figures (btc_colocate_figure.chunks,
 * btc_colocate_result.solo_chunks) are the means over the runs added. */
void colo_add_chunks(struct colo_cfg *c, const struct btc_colocate_chunks *run, int S);

/* "solo 0", "joint 2", "naive", "multiplex" into buf[n]. */
void colo_cfg_name(const struct colo_cfg *c, char *buf, size_t n);
bool colo_cfg_live(const struct colo_cfg *c);

/* Records c's verified run of round r: rate[S] tasks/s per stream (NAN
 * for a stream it did not run). */
void colo_record(struct colo_state *st, struct colo_cfg *c, int round, const double *rate);
/* Marks c failed (out of the race) with why (copied; the first kept). */
void colo_fail(struct colo_cfg *c, int round, const char *why);

/* r*_s: the median tasks/s of the solo runs of stream s's app; NAN
 * before one verified. */
double colo_solo_rate(const struct colo_state *st, int s);
/* M of c's run of round r: min over s of rate_s / (w_s r*_s) (issue 27's
 * max-min normalised throughput); NAN when c did not verify in round r or
 * an r* is unknown. */
double colo_merit(const struct colo_state *st, const struct colo_cfg *c, int round);
/* Median and 95 % interval of M over c's rounds (report/stats.h). */
void colo_merit_stat(const struct colo_state *st, const struct colo_cfg *c,
		     struct btc_colocate_stat *m);
/* Is a solo configuration failed (nothing can be normalised)? */
bool colo_solo_failed(const struct colo_state *st);
/* Joint candidates still in the race. */
int colo_joint_live(const struct colo_state *st);
/* The index in cfg[] of the joint candidate with the highest median M
 * among the verified finalists (else among every verified one); -1. */
int colo_best(const struct colo_state *st);
/* Racing: drops every live joint candidate whose exact 95 % interval of
 * M lies entirely below the best's (exact too). */
void colo_race(struct colo_state *st, bool verbose);
/* The paired gain M_a / M_b over the rounds where both verified: median
 * and 95 % interval (NAN when none). */
void colo_gain(const struct colo_state *st, const struct colo_cfg *a, const struct colo_cfg *b,
	       struct btc_colocate_stat *g);
/* The stop rule after a round (>= min_rounds): "converged" when every
 * live configuration's interval (M; for solos r*) is exact and within
 * ci_rel of its median; "decided" when one joint candidate is left and
 * each gain over a verified baseline is exact and excludes 1 or lies
 * within 1 +- ci_rel ("one finalist" without baselines); NULL: go on. */
const char *colo_stop(const struct colo_state *st, double ci_rel);
/* The rates of one run's streams over their common window: at[s][n_at[s]]
 * is stream s's check times (ns, one clock for all, ascending); the
 * window runs from the latest check of a stream's warm-up (its task
 * warmup - 1, as the program's steady state) to the earliest last check;
 * stream s's rate is (k - 1) / (its last - its first check inside the
 * window) x 1e9 for its k checks in it. Returns true with rate[S]
 * (tasks/s) when every stream has at least 3 checks in the window, false
 * (rate untouched) otherwise: then the streams did not run together long
 * enough to say what each got while all ran. */
bool colo_common_rates(int S, const double *const *at, const int *n_at, const int *warmup,
		       double *rate);

/* The warm-up by time (docs/report.md, "The workload job"): stream s's
 * warm-up tasks in a run of configuration c, warmup[s] = max(base,
 * ceil(warmup_s x rate_s)) with rate_s its expected tasks/s in c: after a
 * verified run of c (not a solo) the median of c's own rates; else the
 * solo rate r*_s (a solo's own; time multiplexing's turn; naive
 * co-location's at most), for a joint candidate scaled by min(1,
 * predicted x w_s) (predicted: the model's M of c, the max-min point r_s
 * = M w_s r*_s; NAN: unscaled); before r*_s is measured plan_rate[s] (the
 * plan's predicted solo tasks/s; NULL or <= 0: unknown, then base).
 * warmup_s <= 0: base for every stream. A stream c does not run (the
 * other streams of a solo) gets base. Returns where the rates came from:
 * "measured" (c's own), "solo" (r*), "plan", "none" (some stream's
 * unknown, or warmup_s <= 0) - the first stream's that c runs. warmup[S]. */
const char *colo_warmup_tasks(const struct colo_state *st, const struct colo_cfg *c,
			      double warmup_s, int base, const double *plan_rate,
			      double predicted, int *warmup);

/* Tasks per stream for a run of several streams: base for the slowest
 * stream (the lowest r*), 2 x base x r*_s / min r* for the others (at
 * most 64 x base), so that each of them outlasts the slowest one, whose
 * tasks then span the common window (with --together the first stream
 * through ends the run); base for all while an r* is unknown. tasks[S]. */
void colo_stream_tasks(const struct colo_state *st, int base, int *tasks);
/* Tasks per stream for a run of configuration c: colo_stream_tasks, but
 * for naive co-location after a verified run the same rule over its own
 * median rates (its processes run every task, with no first one through
 * ending the run: sized by the solo rates, alexnet-dense's processes ran
 * 9-10x as long as octree's, whose run is the common window where M is
 * counted, in the H100's Vulkan runs: about 2.4 s against 0.25 s at 1+1,
 * 5.3-5.5 s against 0.65 s at 4+4, where the rule means 2x). */
void colo_cfg_tasks(const struct colo_state *st, const struct colo_cfg *c, int base, int *tasks);

/* Time multiplexing's turns, in tasks: turns of equal time at equal
 * normalised throughput, stream s's turn[s] = round(T w_s tasks[s] /
 * min_k w_k tasks[k]) (at least 1), tasks[S] from colo_stream_tasks
 * (proportional to the solo rates r*_s), weight[S] the streams' w_s > 0, T
 * (turn_tasks >= 1) the slowest stream's turn. */
void colo_multiplex_turns(int S, const double *weight, const int *tasks, long turn_tasks,
			  long *turn);

/* The lines on stderr (colocate_say.c): the warm-up by time once every
 * r* is known (each stream's warm-up tasks at its solo rate; returns
 * true once said, false before), round r's progress (M of each
 * configuration, the joint candidates left), and each configuration's
 * mean seconds a run (its preparation in parentheses). */
bool colo_say_warmup(const struct colo_state *st, const struct btc_colocate_setup *s,
		     const struct btc_tune_options *o);
void colo_say_progress(const struct colo_state *st, int r, int n_live, double elapsed);
void colo_say_timing(const struct colo_state *st);

/* Fills r (n_streams, n_joint, solo_rate, joint, best, naive, multiplex,
 * gains; not seed and wall_s) from st. */
void colo_result(const struct colo_state *st, struct btc_colocate_result *r);

#endif
