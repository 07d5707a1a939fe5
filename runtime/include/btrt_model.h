/* The chunk model (docs/scheduler.md, "The chunk model"): what one chunk
 * of a pipeline costs per task. One C source, runtime/src/btrt_model.c,
 * compiled into both btrt (the adaptive controller's cost model,
 * btrt_adapt.h) and btc (btc/sched/model.c, the optimizer's), so the
 * scheduler's predictions and the running program's are the same doubles.
 * Pure C: no allocation, no state, nothing beyond <stddef.h> and
 * <stdint.h>.
 *
 *   chunk_ms(c, f..l) = F_c + sum_{i=f..l} t_{i,c} + X_c(f, l)     [ms]
 *
 * t_{i,c}: stage i's compute time alone on PU c; F_c: the fixed cost of a
 * chunk on PU c per task (handoff, submission, sync); X_c(f, l): the
 * transfers of a chunk on a PU whose memory is not the host's. With F =
 * X = 0 this is the paper's model: the sum of the stages' profiled times. */
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
	double io_ms;              /* T_io: io thread load + check per task */
	const char *const *pu_names; /* [n_pus], or NULL */
	const char *mode;          /* the table mode the schedules were chosen
				      with, e.g. "interference", or NULL */
};

/* Index of X_c(f, l) in a transfer table of n stages and np PUs. */
static inline size_t btrt_model_xfer_index(uint32_t n, uint32_t np, uint32_t c, uint32_t f,
					   uint32_t l)
{
	return ((size_t)f * np + c) * n + l;
}

/* chunk_ms(c, f..l) above, ms: PU c (< n_pus), stages f..l inclusive (f
 * <= l < n_stages). Summed as F_c, then t_{f,c} .. t_{l,c} in stage
 * order, then X_c(f, l). NAN when a stage has no time on c. */
double btrt_model_chunk_ms(const struct btrt_model *m, uint32_t c, uint32_t f, uint32_t l);

#ifdef __cplusplus
}
#endif

#endif
