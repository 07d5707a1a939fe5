// The CUDA hog (btrt_hog.h): a host thread launching spin kernels back to
// back on a non-blocking stream of its own, so that the pipeline's CUDA
// chunks share the SMs with it.
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdlib.h>

extern "C" {
#include "btrt_hog_internal.h"
}

struct cuda_hog {
	int device;
	long long cycles;          // per block
	int blocks;
	volatile int stop;         // written by btrt_hog_cuda_end, read by the thread
	pthread_mutex_t mu;
	pthread_t th;
	cudaStream_t stream;
};

__global__ void btrt_hog_spin(long long cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles) {
	}
}

static int stopped(struct cuda_hog *h)
{
	pthread_mutex_lock(&h->mu);
	int s = h->stop;
	pthread_mutex_unlock(&h->mu);
	return s;
}

static void *hog_thread(void *arg)
{
	struct cuda_hog *h = (struct cuda_hog *)arg;
	cudaSetDevice(h->device);
	while (!stopped(h)) {
		btrt_hog_spin<<<h->blocks, 256, 0, h->stream>>>(h->cycles);
		if (cudaStreamSynchronize(h->stream) != cudaSuccess)
			break;
	}
	return NULL;
}

#define HOGCHECK(call, what)                                                           \
	do {                                                                           \
		cudaError_t e_ = (call);                                               \
		if (e_ != cudaSuccess) {                                               \
			btrt_error_set(err, BTRT_E_CUDA, (int)e_, "GPU hog: %s: %s (%s)", what, \
				       cudaGetErrorName(e_), cudaGetErrorString(e_));  \
			free(h);                                                       \
			return -1;                                                     \
		}                                                                      \
	} while (0)

int btrt_hog_cuda_begin(void **state, int device, double kernel_ms, struct btrt_error *err)
{
	*state = NULL;
	struct cuda_hog *h = (struct cuda_hog *)calloc(1, sizeof *h);
	if (!h)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "GPU hog: out of memory");
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		free(h);
		return btrt_error_set(err, BTRT_E_NODEV, 0, "GPU hog: no CUDA device");
	}
	if (device < 0)
		HOGCHECK(cudaGetDevice(&device), "cudaGetDevice");
	h->device = device;
	HOGCHECK(cudaSetDevice(device), "cudaSetDevice");
	int sms = 0, khz = 0;
	HOGCHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
		 "cudaDeviceGetAttribute(SMs)");
	HOGCHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device),
		 "cudaDeviceGetAttribute(clock)");
	h->blocks = 4 * (sms > 0 ? sms : 1);
	h->cycles = (long long)(kernel_ms * (double)khz);
	HOGCHECK(cudaStreamCreateWithFlags(&h->stream, cudaStreamNonBlocking), "cudaStreamCreate");
	pthread_mutex_init(&h->mu, NULL);
	int e = pthread_create(&h->th, NULL, hog_thread, h);
	if (e) {
		cudaStreamDestroy(h->stream);
		pthread_mutex_destroy(&h->mu);
		free(h);
		return btrt_error_set(err, BTRT_E_SYS, e, "GPU hog: pthread_create failed");
	}
	*state = h;
	return 0;
}

void btrt_hog_cuda_end(void *state)
{
	struct cuda_hog *h = (struct cuda_hog *)state;
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->stop = 1;
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->th, NULL);
	cudaStreamSynchronize(h->stream);
	cudaStreamDestroy(h->stream);
	pthread_mutex_destroy(&h->mu);
	free(h);
}
