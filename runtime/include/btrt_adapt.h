/* btrt_adapt.h: adaptive pipelines. A run switches among the schedules
 * compiled into the program when the machine changes under it
 * (docs/runtime.md, "Adaptive pipelines").
 *
 *   observe: per task, each chunk's pop-to-finish time and the completion
 *            time (btrt_pipeline_config.on_task_done); per window (at
 *            least `window` tasks and `window_ms` of them),
 *            the period (mean time between completions) and each PU's
 *            slowdown: observed chunk time / the cost model's chunk time,
 *            relative to the same ratio in the first window (the table's
 *            own error is no disturbance).
 *   decide:  when the period stays above the expected one (measured in the
 *            first steady windows of the run) by more than a threshold for
 *            `patience` windows, every compiled schedule is re-ranked by the
 *            cost model with the slowdowns applied (btrt_model_period_ms),
 *            each prediction times the schedule's observed / predicted
 *            ratio from when it last ran; if one promises a gain larger
 *            than a margin, it is tried; when the PUs slowed unevenly, so
 *            is the best never run that the model puts within `explore`
 *            of the period (its error being unknown); else the new period
 *            becomes the expected one.
 *   trial:   the candidate runs for `trial_windows` windows; its measured
 *            period is compared with the periods measured in this episode
 *            (the schedule it left, measured just before the switch, and
 *            earlier trials): it stays if it is the best by `accept`, or
 *            the next-ranked candidate is tried (up to `max_trials`; one
 *            never run if the model puts it within `explore` of the best
 *            measured period, its error being unknown), or
 *            the run goes back to the best measured schedule (a revert).
 *            Hysteresis against flapping: the threshold, the margin, each
 *            schedule tried at most once per episode, the learned ratios
 *            (a schedule measured slower than predicted is not proposed
 *            again on the strength of the slowdowns alone), and a patience
 *            that doubles with every episode that switched.
 *   switch:  at a task boundary: stop admitting, drain, start the pipeline
 *            of the new schedule at the next sequence number (the io
 *            thread's order and checks continue across segments), resume.
 *
 * The cost model is btc's chunk model (docs/scheduler.md, "The chunk
 * model"), compiled into the generated program as data: struct btrt_model
 * and btrt_model_chunk_ms (btrt_model.h) are one source, btrt_model.c,
 * that btc's optimizer (btc/sched/model.c) calls too. */
#ifndef BTRT_ADAPT_H
#define BTRT_ADAPT_H

#include <stdio.h>

#include "btrt.h"
#include "btrt_adapt_ctl.h"
#include "btrt_pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An adaptive run. */
struct btrt_adapt_config {
	/* Everything but the schedule (chunks, n_chunks are ignored), with
	 * n_items the whole stream; its on_task_done, if any, is called for
	 * every task after the controller (e.g. to start a hog). The pool
	 * must serve every schedule (its backend, and at least n_chunks + 1
	 * TaskObjects of the largest one is what a static run would get). */
	const struct btrt_pipeline_config *base;
	const struct btrt_model *model; /* NULL: only forced switches */
	const struct btrt_adapt_schedule *scheds; /* [n_scheds] */
	uint32_t n_scheds;
	uint32_t start;            /* the first schedule */
	struct btrt_adapt_options opt;
};

struct btrt_adapt_result;

/* Runs base's stream adaptively: a pipeline of schedule `start`, then of
 * each schedule the controller switches to, each continuing the sequence
 * where the previous one stopped. Every task is checked once, in order.
 * *res (also after an error; free with btrt_adapt_free) holds the
 * records of the whole run and the decisions. Returns 0, or -1 with err
 * filled as btrt_pipeline_run does (BTRT_E_INVAL also for a bad config,
 * BTRT_E_NOMEM). */
int btrt_adapt_run(const struct btrt_adapt_config *cfg, struct btrt_adapt_result **res,
		   struct btrt_error *err);

/* The run's records as one run (btrt_trace.h): io records indexed by
 * seq, one chunk record per (schedule, chunk) pair that ran, named
 * "PU [schedule N]". Borrowed from res. */
const struct btrt_run *btrt_adapt_records(const struct btrt_adapt_result *res);
/* Name of merged chunk record c ("PU [schedule N]"), as in the trace;
 * NULL when c is out of range. Borrowed. */
const char *btrt_adapt_chunk_name(const struct btrt_adapt_result *res, uint32_t c);
/* Decisions (switches and keeps), in order; a switch decided as the stream
 * ended, never carried out, is not among them. Borrowed. */
const struct btrt_adapt_decision *btrt_adapt_decisions(const struct btrt_adapt_result *res,
						       uint32_t *n);
uint32_t btrt_adapt_switches(const struct btrt_adapt_result *res);
/* Steady time per task (ns) after the last switch: from the completion
 * of task resume_seq + settle - 1 to the last, settle covering every
 * TaskObject slot's first use by the new schedule (btrt_adapt_settle);
 * with no switch, after warmup tasks (btrt_run_steady_ns; the run's
 * warm-up, btrt_model_warmup). *from_seq: the first task counted. */
double btrt_adapt_after_switch_ns(const struct btrt_adapt_result *res, uint64_t warmup,
				  uint64_t *from_seq);
/* Writes the run's adaptive figures as the members of a JSON object
 * (no braces): "switches" (every change of schedule), "trials", "reverts",
 * "final_schedule", "after_switch_from_task", "after_switch_ms_per_task"
 * (btrt_adapt_after_switch_ns with warmup) and "decisions": [{"task",
 * "from", "to", "kind", "reason", "observed_ms", "expected_ms",
 * "predicted_from_ms", "predicted_to_ms", "expected_to_ms", for decisions
 * that end a trial "trial_ms" and "compared_ms", "slowdown": {PU: x}, and
 * for switches "resume_task", "switch_ms", "drain_ms", "rewire_ms"}]. */
void btrt_adapt_write_json(const struct btrt_adapt_result *res, uint64_t warmup, FILE *f);
/* The schedule running at the end of the run (the last switch's target,
 * else the first). */
uint32_t btrt_adapt_final_schedule(const struct btrt_adapt_result *res);
/* Checks that the model reproduces btc's prediction of every schedule
 * with one (predicted_ms > 0, printed to 1e-6 ms): |P - predicted_ms| <=
 * 1e-6 (1 + predicted_ms). Returns 0, or -1 with err (BTRT_E_INVAL)
 * naming the first schedule that disagrees. */
int btrt_adapt_check_model(const struct btrt_model *m, const struct btrt_adapt_schedule *scheds,
			   uint32_t n, struct btrt_error *err);
/* Prints the switches (and with all, the keeps): task, schedules, reason,
 * figures, drain and rewire times. */
void btrt_adapt_print(const struct btrt_adapt_result *res, FILE *out, int all);
/* Writes the whole run as trace-event JSON (btrt_run_write_trace), plus
 * one global instant event per decision ("switch 0 -> 3" / "keep 0") with
 * the reason and figures in its args, and a "switching" span per switch
 * on the io track. Returns 0, or -1 with err (BTRT_E_SYS). */
int btrt_adapt_write_trace(const struct btrt_adapt_result *res, const char *path,
			   struct btrt_error *err);
void btrt_adapt_free(struct btrt_adapt_result *res);

#ifdef __cplusplus
}
#endif
#endif
