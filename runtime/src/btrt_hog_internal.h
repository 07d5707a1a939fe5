/* Between btrt_hog.c and its CUDA part (not installed). */
#ifndef BTRT_HOG_INTERNAL_H
#define BTRT_HOG_INTERNAL_H

#include "btrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the CUDA hog thread (btrt_hog_cuda_start): *state for
 * btrt_hog_cuda_end. Returns 0, or -1 with err. */
int btrt_hog_cuda_begin(void **state, int device, double kernel_ms, struct btrt_error *err);
/* Stops and joins it, waits for its last kernel, frees state. */
void btrt_hog_cuda_end(void *state);

#ifdef __cplusplus
}
#endif
#endif
