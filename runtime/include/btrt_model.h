/* The chunk model (docs/scheduler.md, "The chunk model"): what one chunk
 * of a pipeline costs per task. One C source, runtime/src/btrt_model.c,
 * compiled into both btrt (the adaptive controller's cost model,
 * btrt_adapt.h) and btc (btc/sched/model.c, the optimizer's), so the
 * scheduler's predictions and the running program's are the same doubles.
 * Pure C: no allocation, no state, nothing beyond <stddef.h> and
 * <stdint.h>.
 *
 *   chunk_ms(c, f..l) = F_c + S_{f,c} + sum_{i=f..l} t_{i,c} + X_c(f, l)   [ms]
 *
 * t_{i,c}: stage i's compute time on PU c; F_c: the fixed cost of a chunk
 * on PU c per task (handoff, submission, sync); S_{f,c}: what the chunk's
 * first stage costs beyond its time inside a chunk (the chunk boundary:
 * its input comes from the host, not from the GPU stage before it);
 * X_c(f, l): the transfers of a chunk on a PU whose memory is not the
 * host's. With S, t_{i,c} is the stage's time inside a chunk (t^in) and
 * t^in_{f,c} + S_{f,c} its time alone, so this is
 * F_c + t_{f,c}(alone) + sum_{i=f+1..l} t^in_{i,c} + X_c(f, l). With
 * F = S = X = 0 it is the paper's model: the sum of the stages' profiled
 * times. */
#ifndef BTRT_MODEL_H
#define BTRT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The chunk model of one profiling-table mode (btc's struct
 * btc_sched_problem carries the same arrays): times in ms per task.
 * Borrows every array. */
struct btrt_model {
	uint32_t n_stages, n_pus;  /* n_pus <= 32 */
	const double *time_ms;     /* [n_stages * n_pus] t_{i,c} at i * n_pus + c;
				      NAN: no kernel for that PU */
	const double *fixed_ms;    /* [n_pus] F_c, or NULL (0) */
	const double *xfer_ms;     /* [n_stages * n_pus * n_stages] X_c(f, l) at
				      btrt_model_xfer_index, or NULL (0) */
	double io_ms;              /* T_io: the io bound per task,
				      btrt_model_io_ms (max(load / k_load,
				      check / k_check)) */
	const char *const *pu_names; /* [n_pus], or NULL */
	const char *mode;          /* the table mode the schedules were chosen
				      with, e.g. "interference", or NULL */
	const double *start_ms;    /* [n_stages * n_pus] S_{i,c} at i * n_pus + c,
				      finite >= 0, or NULL (0): the boundary
				      term of a chunk that starts at stage i
				      (docs/scheduler.md, "The chunk model") */
};

/* Index of X_c(f, l) in a transfer table of n stages and np PUs. */
static inline size_t btrt_model_xfer_index(uint32_t n, uint32_t np, uint32_t c, uint32_t f,
					   uint32_t l)
{
	return ((size_t)f * np + c) * n + l;
}

/* chunk_ms(c, f..l) above, ms: PU c (< n_pus), stages f..l inclusive (f
 * <= l < n_stages). Summed as F_c, then S_{f,c}, then t_{f,c} .. t_{l,c}
 * in stage order, then X_c(f, l). NAN when a stage has no time on c. */
double btrt_model_chunk_ms(const struct btrt_model *m, uint32_t c, uint32_t f, uint32_t l);

/* The io term of the chunk model (docs/scheduler.md, "The io farms"):
 *
 *   T_io = max(T_load / k_load, T_check / k_check)                 [ms]
 *
 * The io source's load farm of k_load loaders loads ahead while the io
 * sink's check farm of k_check workers checks behind (docs/runtime.md),
 * each thread every k-th task, so each side of the io admits a task
 * every T / k ms. load_ms and
 * check_ms: per task on one thread; k_load, k_check >= 1 (0 read as 1).
 * A NAN time is left out (the other alone); both NAN: NAN. */
static inline double btrt_model_io_ms(double load_ms, double check_ms, uint32_t k_load,
				      uint32_t k_check)
{
	double l = load_ms / (k_load ? k_load : 1), c = check_ms / (k_check ? k_check : 1);
	if (l != l) /* NAN */
		return c;
	if (c != c)
		return l;
	return l > c ? l : c;
}

/* The io farms that keep the io off the critical path
 * (docs/scheduler.md, "The io farms"): k_load loaders and k_check check
 * workers, each the fewest with T / k <= compute_ms (the best predicted
 * compute period: T_max of the best schedule), i.e. k = ceil(T /
 * compute_ms), within `extra` threads beyond one of each ((k_load - 1) +
 * (k_check - 1) <= extra). Over budget, the farm whose loss of a thread
 * raises T_io = max(load / k_load, check / k_check) least gives one up,
 * until it fits; then a farm keeps no thread that does not lower T_io.
 * load_ms, check_ms: per item on one thread (NAN or <= 0: that farm 1);
 * compute_ms not a positive finite number: both 1. */
void btrt_model_io_threads(double load_ms, double check_ms, double compute_ms, uint32_t extra,
			   uint32_t *k_load, uint32_t *k_check);

/* Farms that never lose (docs/runtime.md "Farms: the pool and
 * admission", docs/scheduler.md "The larger space"). A farm delivers in
 * input order: while worker w holds the oldest task for t_w ms, the other
 * workers finish t_w * R_others tasks (R_others = sum over them of 1 / t_v,
 * tasks per ms) that wait behind it, each in a TaskObject of its own. The
 * pool's TaskObjects beyond one at every position ("cover", W = pool -
 * positions, btrt_model_farm_cover below: the loaders and check workers
 * hold theirs too) must hold them, else the fast workers stall:
 *
 *   w may take tasks  iff  t_w * R_others <= W            (admission)
 *   extra(S)            = ceil(t_max(S) * R(S minus its slowest))
 *   pool                = entries + 1 + sum over farms of extra(S)
 *
 * t_w * R_others = t_w * R - 1 grows with t_w, so the slowest member's
 * condition implies every faster one's. A member that fails it is left
 * idle (the runtime measures t_w; the optimizer takes the table's), and
 * the farm runs on the admitted members: its period 1 / sum over them of
 * 1 / t_c, never above its fastest member's alone. */

/* The most TaskObjects a farm may add to the pool (memory; a slow worker
 * that would need more is left idle). */
#define BTRT_FARM_EXTRA_MAX 32

/* Whether a worker of t_ms per task may take tasks beside others whose
 * rates sum to others_per_ms (tasks per ms), with `cover` TaskObjects of
 * slack: t_ms * others_per_ms <= cover. A worker with no others, or none
 * measured (others_per_ms = 0), always may. */
static inline int btrt_farm_admits(double t_ms, double others_per_ms, double cover)
{
	return others_per_ms <= 0 || t_ms * others_per_ms <= cover;
}

/* A farm of n (1..32) members of member_ms[j] ms per task each, with at
 * most `cover` TaskObjects of slack (>= 0): the members admitted
 * (ascending times, while btrt_farm_admits holds for the slowest so far:
 * the fastest always), returned as a bit set over j; *period_ms receives
 * 1 / sum over them of 1 / t (0 when one takes 0 ms, NAN when any member
 * is NAN) and *extra the TaskObjects they need, extra(S) above (0 for one
 * member). Ties keep the lower index first. */
uint32_t btrt_model_farm(const double *member_ms, uint32_t n, double cover, double *period_ms,
			 uint32_t *extra);

/* The admission cover W of a run's farms (docs/runtime.md "Farms: the
 * pool and admission"): the TaskObjects free to hold the tasks that a
 * farm's workers finish behind the oldest one, beyond one at every
 * position that holds a TaskObject busy at once (btrt_model_default_pool
 * below: k_load loaders, the chunk entries, k_check check workers):
 *
 *   W = pool - positions = pool - (k_load + entries + k_check)   [TaskObjects]
 *
 * The io positions are not slack: by Little's law the io holds R * (T_load
 * + T_check) TaskObjects on average at throughput R, which reaches k_load
 * + k_check as each io share T / k nears the period (the io farms are
 * sized k = ceil(T / period) so that it does), and the source loads item
 * s only once s - pool is checked, so a TaskObject in a load or a check is
 * one the workers cannot run ahead into. In the paper's model (one io
 * thread: one position) the schedule table's pool (btc_model_pool:
 * entries + 1 + extras) leaves W = the extras exactly; the runtime's io
 * has at least two positions (a loader and a check worker), and a run's
 * default pool (below) leaves W = the extras + BTRT_POOL_SLACK whatever
 * k_load and k_check. pool: the run's
 * TaskObjects; entries: chunk entries (each farm member one); k_load,
 * k_check of 0 count as 1. Returns W (>= 0; 0 when the pool has no
 * TaskObject beyond the positions). */
double btrt_model_farm_cover(uint32_t pool, uint32_t entries, uint32_t k_load, uint32_t k_check);

/* The default pool of a run (docs/runtime.md "The pool"): every
 * position that holds a TaskObject busy at once, plus slack. A task is held
 * by a loader while it loads (k_load of them), by a chunk entry while it
 * runs, and by a check worker while it checks (k_check), so with
 * table_pool = entries + 1 + farm extras (the schedule table's pool,
 * btc_model_pool: the 1 is the paper's single io thread)
 *
 *   positions = k_load + entries + k_check
 *   pool      = table_pool - 1 + k_load + k_check + BTRT_POOL_SLACK
 *
 * By Little's law the period is at least (T_load + sum of T_c + T_check) /
 * pool, <= T_max only if pool >= positions (when each io share is below
 * T_max); the slack lets a stage run ahead when another is late (octree
 * on an H100, pool 4 for 5 positions: 0.716 ms against chunks of 0.645
 * ms; with the synthetic jitter of bench_pool, pools 4, 5, 8 and 10 came
 * 12 %, 5 %, 0 % and -1 % above the slowest chunk's measured mean:
 * docs/results/pool-positions.md). k_load and k_check of 0 count as 1.
 * Returns the pool (TaskObjects), at least 1, saturating at UINT32_MAX. */
#define BTRT_POOL_SLACK 3
uint32_t btrt_model_default_pool(uint32_t table_pool, uint32_t k_load, uint32_t k_check);

/* The warm-up of a run (docs/runtime.md "The warm-up: every slot's
 * first use before the clock", issue 25): the tasks before the measured window, at least one
 * per TaskObject of the run's pool, so that every slot has carried a task
 * before the clock. A slot's first use costs more than its later ones
 * (an io that fills per-slot data once, e.g. alexnet's weights; a CUDA
 * chunk priming its private per-slot buffers; first touches of pages and
 * GPU allocations), and the source hands out the pool's TaskObjects in
 * order (slot i to item first_seq + i) before it recycles any, so the
 * first `pool` items are exactly the slots' first uses. To keep the
 * measured tasks the caller asked for (tasks - requested), the run
 * streams the extra warm-up tasks too:
 *
 *   warmup = max(requested, pool)                     [tasks]
 *   run    = tasks + (warmup - requested)             [tasks]
 *
 * tasks: the tasks asked for (--tasks, > requested unless 0); requested:
 * --warmup; pool: the run's TaskObjects. *warmup and *run receive the
 * two (either may be NULL); run saturates at UINT64_MAX. */
void btrt_model_warmup(uint64_t tasks, uint64_t requested, uint32_t pool, uint64_t *warmup,
		       uint64_t *run);

#ifdef __cplusplus
}
#endif

#endif
