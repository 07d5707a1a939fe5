/* The CUDA hog of builds without CUDA. */
#include "btrt_hog_internal.h"

int btrt_hog_cuda_begin(void **state, int device, double kernel_ms, struct btrt_error *err)
{
	(void)device;
	(void)kernel_ms;
	*state = NULL;
	return btrt_error_set(err, BTRT_E_NODEV, 0, "btrt was built without CUDA: no GPU hog");
}

void btrt_hog_cuda_end(void *state)
{
	(void)state;
}
