/* CUDA backend entry points for builds without CUDA. */
#include "btrt_cuda.h"
#include "btrt_internal.h"

#define NOCU(err) btrt_error_set(err, BTRT_E_NODEV, 0, "btrt was built without CUDA")

int btrt_cuda_create(struct btrt_cuda **out, const struct btrt_cuda_config *cfg, struct btrt_error *err)
{
	*out = NULL;
	return NOCU(err);
}
void btrt_cuda_destroy(struct btrt_cuda *cu) {}
const char *btrt_cuda_device_name(const struct btrt_cuda *cu) { return "none"; }
int btrt_cuda_integrated(const struct btrt_cuda *cu) { return 0; }
int btrt_cuda_prefetch_cost(struct btrt_cuda *cu, size_t bytes, int reps, double *in_ms,
			    double *out_ms, struct btrt_error *err) { return NOCU(err); }
int btrt_cuda_pool_init(struct btrt_cuda *cu, struct btrt_pool *pool, struct btrt_error *err) { return NOCU(err); }
void btrt_cuda_pool_fini(struct btrt_cuda *cu, struct btrt_pool *pool) {}
int btrt_cuda_chunk_init(struct btrt_cuda *cu, const struct btrt_pipeline_config *cfg, uint32_t c,
			 void **state, struct btrt_error *err) { return NOCU(err); }
int btrt_cuda_chunk_exec(void *state, struct btrt_task *t, struct btrt_gpu_time *times,
			 struct btrt_error *err) { return NOCU(err); }
void btrt_cuda_chunk_fini(void *state) {}
