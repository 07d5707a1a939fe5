/* btrt_trace.h: timing records of a pipeline run, summary statistics and
 * Chrome/Perfetto trace-event JSON.
 *
 * All host times are CLOCK_MONOTONIC nanoseconds (btrt_now_ns). GPU stage
 * times come from Vulkan timestamp queries or CUDA events; their durations
 * are exact (device clock), their start is placed on the host time line at
 * the chunk's submission time plus the device-side offset, so GPU tracks
 * line up with the dispatcher's to within the submission latency. */
#ifndef BTRT_TRACE_H
#define BTRT_TRACE_H

#include "btrt.h"
#include "btrt_ring.h"

#ifdef __cplusplus
extern "C" {
#endif

struct btrt_run;

/* Summary of a set of durations, in nanoseconds (percentiles by the
 * nearest-rank method on the sorted sample). All zero when n == 0. */
struct btrt_summary {
	uint64_t n;
	double mean_ns, median_ns, p90_ns, p99_ns, min_ns, max_ns;
};

/* Summarises n durations (ns). vals is sorted in place. */
void btrt_summarize(uint64_t *vals, uint64_t n, struct btrt_summary *out);

/* Items that went through (loaded and checked) and the wall time from the
 * first load to the last check, in ns. */
uint64_t btrt_run_items(const struct btrt_run *run);
uint64_t btrt_run_wall_ns(const struct btrt_run *run);
uint32_t btrt_run_chunks(const struct btrt_run *run);

/* Per-task time of chunk c from popping the task to finishing its last
 * stage (ns); the dispatcher's own work included, queue waits excluded. */
int btrt_run_chunk_summary(const struct btrt_run *run, uint32_t c,
			   struct btrt_summary *out);
/* Per-task time of stage s (app index) where it ran: CPU stages on the
 * host clock, GPU stages from timestamps / events (ns). gpu: set to 1 if
 * the stage ran on a GPU. Returns -1 if s never ran. In a farm: the tasks
 * of its first worker (btrt_run_print prints every worker's). */
int btrt_run_stage_summary(const struct btrt_run *run, uint32_t s,
			   struct btrt_summary *out, int *gpu);
/* Per-item time of the io source's load (check = 0) or the io sink's check
 * (check = 1, on whichever check worker ran it), ns. The threads overlap,
 * so the io bound on the period (T_io of the chunk model) is
 * max(load, check / k) with k = btrt_run_check_threads, not their sum.
 * Each item's intervals: btrt_run_io_times. */
int btrt_run_io_summary(const struct btrt_run *run, int check, struct btrt_summary *out);
/* The same three summaries over the tasks of seq >= from only (chunk and
 * stage records by their task's seq; io items by their index i, counted
 * from the run's first_seq as btrt_run_io_times's), ns; from = 0 gives the
 * functions above. With from = the run's warm-up these are the tasks
 * btrt_run_steady_ns(run, warmup) times, so their mean_ns is comparable
 * with the period (the steady-state mean; from =
 * btrt_run_steady_from(run, warmup) keeps its fallback). Where no task
 * qualifies: *out all zero (n == 0) and the same return as with from = 0
 * (stage: 0 if s ran at all, -1 if it never ran). */
int btrt_run_chunk_summary_from(const struct btrt_run *run, uint32_t c, uint64_t from,
				struct btrt_summary *out);
int btrt_run_stage_summary_from(const struct btrt_run *run, uint32_t s, uint64_t from,
				struct btrt_summary *out, int *gpu);
int btrt_run_io_summary_from(const struct btrt_run *run, int check, uint64_t from,
			     struct btrt_summary *out);
/* The check workers of the run (btrt_io_check_threads of its config; 1
 * for a run merged from several, btrt_adapt). */
uint32_t btrt_run_check_threads(const struct btrt_run *run);
/* The loaders of the run (btrt_io_load_threads; 1 for a merged run). */
uint32_t btrt_run_load_threads(const struct btrt_run *run);
/* Item i's io intervals (btrt_now_ns ns, i counted from the run's
 * first_seq): load on the io source, check on the io sink; zero where not
 * recorded. Returns 0, or -1 if i has no record (past the record limit). */
int btrt_run_io_times(const struct btrt_run *run, uint64_t i, uint64_t *load_start,
		      uint64_t *load_end, uint64_t *check_start, uint64_t *check_end);
/* End-to-end latency per item: load start to check end (ns). */
int btrt_run_latency_summary(const struct btrt_run *run, struct btrt_summary *out);

/* Steady-state time per item (ns): from the completion (check) of item
 * warmup-1 to that of the last item, divided by the items in between, so
 * pipeline fill and warm-up are excluded. warmup >= items counts all. */
double btrt_run_steady_ns(const struct btrt_run *run, uint64_t warmup);
/* The items btrt_run_steady_ns(run, warmup) divides by: the recorded
 * items after the warm-up, or all of them when warmup >= their count (the
 * same fallback); 0 when none was recorded. The reports' measured_tasks. */
uint64_t btrt_run_steady_items(const struct btrt_run *run, uint64_t warmup);
/* The first item btrt_run_steady_ns(run, warmup) times: warmup, or 0 when
 * warmup >= the recorded items (the same fallback). The `from` of the
 * summaries above that gives the steady-state means. */
uint64_t btrt_run_steady_from(const struct btrt_run *run, uint64_t warmup);

/* Copies the per-task times (ns, pop to finish) of chunk c, in task
 * order, into ns[0..max-1]; returns how many were copied. */
uint64_t btrt_run_chunk_times(const struct btrt_run *run, uint32_t c, uint64_t *ns,
			      uint64_t max);

/* How thread t of the run waited on its rings: t < chunks is chunk t's
 * dispatcher, t == chunks the io sink (pops of the last link, pushes into
 * the recycle ring), t == chunks + 1 the io source (pops of the recycle
 * ring, pushes into the first link). Sums its pops of its input ring and
 * its pushes into its output ring (struct btrt_wait_stats in
 * btrt_ring.h). Returns 0, or -1 if t is out of range. */
int btrt_run_wait_stats(const struct btrt_run *run, uint32_t t,
			struct btrt_wait_stats *out);

/* Prints throughput and per-chunk / per-stage / latency statistics (us). */
void btrt_run_print(const struct btrt_run *run, FILE *out);

/* Writes the run as Chrome trace-event JSON (chrome://tracing, Perfetto):
 * one track per chunk ("X" events per task, nested per-stage events), one
 * GPU track per GPU chunk, an io load track (the source, first) and an io
 * check track (the sink, last). Times in us
 * relative to the run's start. Returns 0, or -1 with err (BTRT_E_SYS). */
int btrt_run_write_trace(const struct btrt_run *run, const char *path,
			 struct btrt_error *err);

/* Several runs that ran at once (btrt_workload.h) in one trace: run i is
 * process 1 + i named names[i], with the tracks of btrt_run_write_trace,
 * all on one time line (us from the earliest run's start). Returns 0, or
 * -1 with err (BTRT_E_SYS). n == 1 writes what btrt_run_write_trace does. */
int btrt_runs_write_trace(const struct btrt_run *const *runs, const char *const *names,
			  uint32_t n, const char *path, struct btrt_error *err);
void btrt_run_free(struct btrt_run *run);

#ifdef __cplusplus
}
#endif
#endif
