/* btrt_adapt_ctl.h: the adaptive controller of btrt_adapt.h without the
 * runs it drives: the period of a schedule under the cost model
 * (btrt_model_period_ms over btrt_model.h), the options, and the observe /
 * decide / trial state machine (btrt_adapt_ctl_*). Pure: no threads, no
 * clock (runtime/src/btrt_adapt_ctl.c); the adaptive runs build on it,
 * never the other way round. The steps are described with the runs
 * (btrt_adapt's header). */
#ifndef BTRT_ADAPT_CTL_H
#define BTRT_ADAPT_CTL_H

#include "btrt.h"
#include "btrt_model.h"
#include "btrt_pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BTRT_ADAPT_MAX_PUS 32 /* as btc's BTC_SCHED_MAX_PUS */

/* One schedule the adaptive run may use. */
struct btrt_adapt_schedule {
	const char *label;         /* "cpu0:0-2 cpu1:3-6" */
	const struct btrt_chunk *chunks; /* [n_chunks] */
	uint32_t n_chunks;
	const uint32_t *pus;       /* [n_chunks] the model's PU of each chunk,
				      or NULL (no model: forced switches only) */
	double predicted_ms;       /* btc's predicted period P, 0: none */
	int skip;                  /* nonzero: never switched to (e.g. its GPU
				      context could not be created) */
};

/* The predicted period of s, ms: P = max(T_io', max over chunks
 * slowdown[pu] * chunk_ms), with T_io' = io_ms when io_ms >= 0, else the
 * model's T_io; slowdown NULL: all 1 (then P is btc's prediction). NAN
 * when a chunk has no time. */
double btrt_model_period_ms(const struct btrt_model *m, const struct btrt_adapt_schedule *s,
			    const double *slowdown, double io_ms);

/* Options of the controller; btrt_adapt_options_init sets the defaults. */
struct btrt_adapt_options {
	uint32_t window;           /* tasks per observation window, at least
				      (16) */
	double window_ms;          /* and at least this long, ms of completed
				      tasks (100: short tasks, 1-2 ms on the
				      dev box, made 16-task windows of 30 ms,
				      which another process's burst could
				      fill; 0: tasks only) */
	uint32_t patience;         /* windows in a row above the threshold
				      before a decision (3); doubled by every
				      episode that switched, up to 8 x, until
				      16 windows in a row are below it */
	double threshold;          /* above: period > (1 + threshold) x the
				      expected period (0.50: on a shared
				      machine other processes move the period
				      by 30-40 % for a while; a hog on a core
				      doubles its chunk) */
	double margin;             /* a switch needs the best schedule's
				      expected period below the observed one
				      by this fraction: E_new (1 + margin) <
				      period (0.20) */
	uint32_t settle;           /* tasks ignored after each (re)start; 0:
				      pool size + 4; at least the pool size
				      (btrt_adapt_settle) */
	uint32_t trial_windows;    /* windows a trial is measured over, after
				      `settle` (2) */
	uint32_t max_trials;       /* schedules tried per episode (3) */
	double accept;             /* a trial stays only if its period is below
				      every other period measured in the
				      episode by this fraction: T_trial (1 +
				      accept) < T_best (0.05) */
	double explore;            /* a candidate never run before is tried if
				      its expected period is below (1 +
				      explore) x the best measured one (0.50:
				      the model's error on it is unknown),
				      after a trial, and at the start of an
				      episode when the PUs slowed unevenly
				      (the most slowed by (1 + threshold / 2)
				      x the least; else the margin applies); one that ran
				      before must be expected below the best
				      measured one by `accept` after a trial;
				      0: none at the start, and after a trial
				      only schedules expected faster */
	uint64_t force_every;      /* testing: switch to the next schedule
				      (round robin) every N tasks; 0: off */
	FILE *log;                 /* NULL, or print every decision here */
};
void btrt_adapt_options_init(struct btrt_adapt_options *o);

/* The tasks a segment (the run's first, or the one after a switch)
 * ignores before it is measured, settle [tasks]: o->settle, else
 * pool_size + 4, and at least pool_size, the rule of btrt_model_warmup
 * (docs/runtime.md "The warm-up"). A segment is a new pipeline: its
 * chunks use each TaskObject slot for the first time in its first
 * pool_size tasks (a CUDA chunk primes each slot's private buffers, and
 * does so again in every segment), and those first uses cost more than
 * the later ones. The controller's windows and the figure after the last
 * switch (btrt_adapt_after_switch_ns) both start after them.
 * pool_size: the run's TaskObjects, which every schedule shares. */
uint32_t btrt_adapt_settle(const struct btrt_adapt_options *o, uint32_t pool_size);

/* One decision of the controller (a switch, or a keep). */
struct btrt_adapt_decision {
	uint64_t seq;              /* the task after whose check it was taken */
	uint32_t from, to;         /* schedule indices (to == from: kept) */
	const char *kind;          /* "calibrated", "keep" (a trigger without a
				      better candidate), "trial" (a switch to
				      a candidate, to be measured), "accept"
				      (the trial's schedule stays), "revert" (a
				      switch back to the best measured
				      schedule), "forced" */
	const char *reason;        /* "forced", "period above expected", ... */
	double observed_ms;        /* period of the last window */
	double expected_ms;        /* what the trigger compared it with */
	double predicted_from_ms;  /* the model's period of the current schedule */
	double predicted_to_ms;    /* and of the chosen one, with the slowdowns
				      (0: no model) */
	double expected_to_ms;     /* the chosen one's prediction times its
				      observed / predicted ratio: what the
				      switch expects (keeps: the period) */
	double trial_ms;           /* decisions that end a trial (accept,
				      revert, or a trial of the next candidate):
				      the period measured on the trial, else 0 */
	double compared_ms;        /* and the best period measured in the
				      episode on another schedule (the one
				      left: just before the switch), else 0 */
	uint32_t n_pus;
	double slowdown[BTRT_ADAPT_MAX_PUS]; /* per model PU, as applied:
				      relative to the first window (a PU first
				      seen later: to the table) */
	unsigned char observed[BTRT_ADAPT_MAX_PUS]; /* 1: measured, 0: never
				      observed (1 assumed) */
	/* Switches only (ns, btrt_now_ns): the decision, the last task of the
	 * old schedule checked (or the decision, if none was in flight),
	 * the new pipeline streaming again. */
	uint64_t decide_ns, drained_ns, resumed_ns;
	uint64_t resume_seq;       /* first task of the new schedule */
};

/* The controller alone (the pure part of btrt_adapt_run: tests feed it
 * synthetic observations). The model, schedules and options are borrowed.
 * Returns NULL when out of memory. */
struct btrt_adapt_ctl;
struct btrt_adapt_ctl *btrt_adapt_ctl_create(const struct btrt_model *m,
					     const struct btrt_adapt_schedule *scheds,
					     uint32_t n_scheds, uint32_t start,
					     uint32_t pool_size,
					     const struct btrt_adapt_options *opt);
/* Observes one checked task of the current schedule. Returns 1 when the
 * run should switch (btrt_adapt_ctl_target), else 0. */
int btrt_adapt_ctl_observe(struct btrt_adapt_ctl *c, const struct btrt_task_done *d);
/* The schedule a switch goes to; btrt_adapt_ctl_switched tells the
 * controller the new schedule runs from now on (a new segment). */
uint32_t btrt_adapt_ctl_target(const struct btrt_adapt_ctl *c);
void btrt_adapt_ctl_switched(struct btrt_adapt_ctl *c);
uint32_t btrt_adapt_ctl_current(const struct btrt_adapt_ctl *c);
/* The decisions so far (the array stays valid until the next observe). */
const struct btrt_adapt_decision *btrt_adapt_ctl_decisions(const struct btrt_adapt_ctl *c,
							   uint32_t *n);
void btrt_adapt_ctl_free(struct btrt_adapt_ctl *c);

#ifdef __cplusplus
}
#endif
#endif
