/* CUDA launchers in the stage tables (only programs linked with the
   alexnet_cuda library use this file). */
#include "harness.h"

/* Launchers through the runtime's void * signature. */
#define CUDA_THUNK(app, st) \
	static int app##_##st##_thunk(void *t, void *stream) \
	{ \
		return app##_##st##_cuda(t, stream); \
	}
CUDA_THUNK(alexnet_dense, conv1)
CUDA_THUNK(alexnet_dense, pool1)
CUDA_THUNK(alexnet_dense, conv2)
CUDA_THUNK(alexnet_dense, pool2)
CUDA_THUNK(alexnet_dense, conv3)
CUDA_THUNK(alexnet_dense, conv4)
CUDA_THUNK(alexnet_dense, conv5)
CUDA_THUNK(alexnet_dense, pool3)
CUDA_THUNK(alexnet_dense, linear)
CUDA_THUNK(alexnet_sparse, conv1)
CUDA_THUNK(alexnet_sparse, pool1)
CUDA_THUNK(alexnet_sparse, conv2)
CUDA_THUNK(alexnet_sparse, pool2)
CUDA_THUNK(alexnet_sparse, conv3)
CUDA_THUNK(alexnet_sparse, conv4)
CUDA_THUNK(alexnet_sparse, conv5)
CUDA_THUNK(alexnet_sparse, pool3)
CUDA_THUNK(alexnet_sparse, linear)

void alexnet_app_set_cuda(struct alexnet_app *a)
{
	static const btrt_cuda_kernel dense[ALEXNET_N_STAGES] = {
		alexnet_dense_conv1_thunk,
		alexnet_dense_pool1_thunk,
		alexnet_dense_conv2_thunk,
		alexnet_dense_pool2_thunk,
		alexnet_dense_conv3_thunk,
		alexnet_dense_conv4_thunk,
		alexnet_dense_conv5_thunk,
		alexnet_dense_pool3_thunk,
		alexnet_dense_linear_thunk,
	};
	static const btrt_cuda_kernel sparse[ALEXNET_N_STAGES] = {
		alexnet_sparse_conv1_thunk,
		alexnet_sparse_pool1_thunk,
		alexnet_sparse_conv2_thunk,
		alexnet_sparse_pool2_thunk,
		alexnet_sparse_conv3_thunk,
		alexnet_sparse_conv4_thunk,
		alexnet_sparse_conv5_thunk,
		alexnet_sparse_pool3_thunk,
		alexnet_sparse_linear_thunk,
	};
	for (int i = 0; i < ALEXNET_N_STAGES; i++)
		a->stages[i].cuda = a->sparse ? sparse[i] : dense[i];
}
