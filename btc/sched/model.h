/* The chunk model: what one chunk of a pipeline costs per task, and the
 * predicted period (docs/scheduler.md, "The chunk model").
 *
 *   chunk_ms(c, f..l) = F_c + sum_{i=f..l} t_{i,c} + X_c(f, l)     [ms]
 *   P = max(T_io, max over chunks chunk_ms)                         [ms]
 *
 * t_{i,c}: stage i's compute time alone on PU c; F_c: the fixed cost of a
 * chunk on PU c per task (handoff, submission, sync); X_c(f, l): the
 * transfers of a chunk on a PU whose memory is not the host's; T_io: the
 * io thread's load + check per task. With F = X = T_io = 0 (a table with
 * no model terms, e.g. the reference layout) this is the paper's model:
 * chunk time = sum of the stages' profiled times, P = T_max.
 *
 * The one chunk-time function of sched/: the solvers (through their
 * quantised copy in struct btc_sched_prep), the oracle, the planner and the
 * report all use btc_model_chunk_ms, which is the runtime's
 * btrt_model_chunk_ms (runtime/src/btrt_model.c, compiled into btc): the
 * generated program's adaptive controller predicts with the same code. */
#ifndef BTC_MODEL_H
#define BTC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <btrt_model.h>

struct btc_sched_problem;
struct btc_schedule;
struct btc_sched_chunk;

/* Time of the chunk (PU c, stages f..l inclusive) in ms: F_c + S_{f,c} +
 * sum of the stage times + X_c(f, l), from p->time_ms, p->fixed_ms,
 * p->start_ms, p->xfer_ms (the last three may be NULL: 0). The stages must
 * all have a time on c. */
double btc_model_chunk_ms(const struct btc_sched_problem *p, int c, int f, int l);

/* The larger space (issue 16): a chunk on k cores of a CPU PU and a farm.
 *
 *   chunk_ms(c[k], f..l) = F_c + S_{f,c} + sum_{i=f..l} t_{i,c,k} + X_c(f, l)
 *   farm_ms(S, f..l)     = 1 / sum_{c in S} 1 / chunk_ms(c, f..l)
 *
 * t_{i,c,k}: the stage's time on k cores of c (p->time_cores_ms); a farm's
 * members run the whole chunk on all their cores and take its tasks in
 * turn, so their rates add, over the members the pool admits
 * (btrt_model.h, btrt_model_farm). */

/* Time of stage i on PU c with `cores` of its cores (0: all), ms; NAN when
 * not profiled at that count. */
double btc_model_stage_ms(const struct btc_sched_problem *p, int i, int c, int cores);

/* The rate sum of a farm's admitted members, ms: 1 / sum_j 1 / member_ms[j]
 * over the members that btrt_model_farm admits with BTRT_FARM_EXTRA_MAX
 * TaskObjects of cover (btrt_model.h: a member that would make the
 * faster ones wait for it in the reorder longer than that many tasks is
 * left idle, as the runtime leaves it). Never above the fastest member's
 * time; 0 when a member takes 0 ms, NAN when one is NAN. */
double btc_model_farm_ms(const double *member_ms, int n);

/* The PUs of farm ch (ch->farm != 0) that take tasks (btrt_model_farm on
 * their chunk times, bits over PU indices), and in *extra the TaskObjects
 * they need beyond one per worker: ceil(t_max * R_others) of the
 * admitted set (0 when a time is NAN). */
uint32_t btc_model_farm_admitted(const struct btc_sched_problem *p, const struct btc_sched_chunk *ch,
				 int *extra);

/* The pool schedule s needs (TaskObjects): one per chunk entry (a farm's
 * every member), one for the io threads, and each farm's extra above
 * (docs/runtime.md "Farms: the pool and admission"). The generator emits
 * it as the schedule table's `pool`. */
int btc_model_pool(const struct btc_sched_problem *p, const struct btc_schedule *s);

/* Time of any chunk of the larger space, ms: btc_model_chunk_ms for an
 * ordinary chunk on all cores, the formulas above for a chunk on
 * ch->cores cores or a farm (ch->farm). NAN when a needed time is. */
double btc_model_chunk_time_ms(const struct btc_sched_problem *p, const struct btc_sched_chunk *ch);

/* Index j of `cores` among the PU's profiled counts (p->cores[c]), or -1. */
int btc_model_core_slot(const struct btc_sched_problem *p, int c, int cores);

/* Predicted period P = max(T_io, tmax_ms), ms. */
double btc_model_period_ms(const struct btc_sched_problem *p, double tmax_ms);

/* T_max of s in ms: the largest of its chunk times (btc_model_chunk_time_ms),
 * recomputed from p (the times stored in s are not read). NAN when a
 * chunk's time is NAN (a stage without a time on its PU). */
double btc_model_tmax_ms(const struct btc_sched_problem *p, const struct btc_schedule *s);

/* Fills s's chunk times, tmax_ms, tmin_ms, gapness_ms and period_ms from p
 * (the ranking keys *_q are left as they are). tmax_ms is NAN when a
 * chunk's time is. */
void btc_model_fill_times(const struct btc_sched_problem *p, struct btc_schedule *s);

/* Whether p has any term beyond the paper's model (F, X or T_io). */
bool btc_model_has_terms(const struct btc_sched_problem *p);

/* Index of X_c(f, l) in a transfer table of n stages and np PUs: the
 * layout of btrt_model_xfer_index (btrt_model.h). */
static inline size_t btc_model_xfer_index(int n, int np, int c, int f, int l)
{
	return btrt_model_xfer_index((uint32_t)n, (uint32_t)np, (uint32_t)c, (uint32_t)f,
				     (uint32_t)l);
}

/* The per-direction cost of moving one buffer between the host and a PU's
 * memory, as the runtime moves it (CUDA: one cudaMemPrefetchAsync per
 * buffer; Vulkan and CPU: host memory, nothing moves): latency per buffer
 * (ms) plus bytes / bandwidth (ms per MiB). */
struct btc_model_link {
	double in_lat_ms, in_ms_per_mib;   /* host -> PU */
	double out_lat_ms, out_ms_per_mib; /* PU -> host */
};

/* Buffers and their use by the stages, enough to know what a chunk moves. */
struct btc_model_buffers {
	int n_stages, n_buffers;
	const double *bytes;            /* [n_buffers] element size x count */
	const unsigned char *reads;     /* [n_stages * n_buffers] 0/1 */
	const unsigned char *writes;    /* [n_stages * n_buffers] 0/1 */
	const unsigned char *io_loaded; /* [n_buffers] 0/1: io.load fills it
					 * per task, or NULL (none) */
	const unsigned char *in_place;  /* [n_buffers] 0/1: lives in host memory
					 * the GPU reads in place (never moves),
					 * or NULL (none) */
	const unsigned char *scratch;   /* [n_buffers] 0/1: the app's `scratch:
					 * true` (never an output), or NULL
					 * (none) */
};

/* Bytes the chunk f..l moves in and out per task (docs/scheduler.md,
 * "X_c"), the rule of the CUDA runtime on a discrete GPU (btrt_cuda.cu,
 * cuda_chunk): a buffer moves to the device before the chunk and back
 * after it when a stage of f..l touches it, some stage writes it, it is not
 * in place, and its value is shared with the host: the io thread loads
 * it, a stage outside f..l touches it, or it is an output (no stage reads
 * its final value: the output check does, on the host; a scratch buffer
 * is none). The chunk's
 * private buffers (weights no stage writes, intermediates only f..l
 * touch) move once per TaskObject and stay: 0 per task. Each moved buffer
 * counts in both directions: *in_bytes == *out_bytes, *n_in == *n_out.
 * *n_in / *n_out receive the number of buffers (each costs a latency). */
void btc_model_chunk_bytes(const struct btc_model_buffers *b, int f, int l, double *in_bytes,
			   int *n_in, double *out_bytes, int *n_out);

/* X(f, l) on a link, ms. */
double btc_model_transfer_ms(const struct btc_model_buffers *b, const struct btc_model_link *k,
			     int f, int l);

/* Fills xfer_ms[btc_model_xfer_index(n, np, c, f, l)] for every f <= l and
 * every PU c with links[c] (NULL entries of has_link: 0). xfer_ms has
 * n * np * n doubles; entries with f > l are set to 0. */
void btc_model_fill_transfers(const struct btc_model_buffers *b, const struct btc_model_link *links,
			      const bool *has_link, int np, double *xfer_ms);

#endif
