/* What bounds octree's io load (issue 25): the load is a memcpy of one
 * Kinect frame (307,200 points x 16 B = 4.9 MB) into the TaskObject's
 * input buffer, which the CUDA backend places in pinned host memory
 * (cudaHostAlloc, mapped + portable; docs/runtime.md, "Buffer placement").
 * On the H100 machine it ran at 6.7-8 GB/s beside the cpu chunk.
 *
 * This measures one frame copy (ms) for each of
 *   destination  host (posix_memalign) | pinned (cudaHostAlloc; CUDA builds)
 *   copy         memcpy (glibc) | stream (btrt_io_copy: SSE2 non-temporal
 *                stores + sfence)
 *   beside       idle | spin (B threads computing) | stream (B threads
 *                each reading and writing its own 16 MiB array)
 * with 6 source frames and a pool of 4 destinations cycled as the real
 * loader does. Every (destination, copy) pair runs in each round, rounds
 * interleaved; it prints the median ms per copy over the rounds, the
 * 10th-90th percentile spread and GB/s.
 *
 * usage: bench_load_copy [-r rounds] [-n copies per round] [-b background threads]
 *   default 15 rounds x 40 copies, b = online cores - 2 (the loader and one
 *   for the system).
 * Needs only btrt_io_copy.c of btrt, so that it builds on the GPU machine
 * without meson:
 *   gcc -O2 -pthread -DBENCH_CUDA -Iruntime/include -I/usr/local/cuda/include \
 *     bench/runtime/bench_load_copy.c runtime/src/btrt_io_copy.c \
 *     -L/usr/local/cuda/lib64 -lcudart
 * Timings on a shared 2-core box say little; the figures are for the GPU
 * machine (docs/results/h100-load-copy.md). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <btrt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

enum { N_FRAMES = 6, N_POOL = 4, POINTS = 307200 };
#define FRAME_BYTES ((size_t)POINTS * 4 * sizeof(float))
#define BG_BYTES ((size_t)16 << 20)

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static atomic_int bg_mode; /* 0 idle, 1 spin, 2 stream, -1 quit */

static void *background(void *arg)
{
	float *a = arg;
	volatile double sink = 0;
	for (;;) {
		int m = atomic_load_explicit(&bg_mode, memory_order_relaxed);
		if (m < 0)
			break;
		if (m == 0) {
			usleep(200);
		} else if (m == 1) {
			double x = sink;
			for (int i = 0; i < 100000; i++)
				x = x * 1.0000001 + 1e-9;
			sink = x;
		} else {
			size_t n = BG_BYTES / sizeof(float);
			for (size_t i = 0; i < n; i++)
				a[i] = a[i] * 0.5f + 1.0f;
		}
	}
	return NULL;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double pct(const double *v, int n, double p)
{
	double *s = malloc((size_t)n * sizeof(double));
	memcpy(s, v, (size_t)n * sizeof(double));
	qsort(s, (size_t)n, sizeof(double), cmp_double);
	double r = s[(int)(p * (n - 1) + 0.5)];
	free(s);
	return r;
}

int main(int argc, char **argv)
{
	int rounds = 15, copies = 40, bg = (int)sysconf(_SC_NPROCESSORS_ONLN) - 2, opt;
	while ((opt = getopt(argc, argv, "r:n:b:h")) != -1) {
		switch (opt) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'n':
			copies = atoi(optarg);
			break;
		case 'b':
			bg = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: %s [-r rounds] [-n copies] [-b background threads]\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (rounds < 1 || copies < 1 || bg < 0) {
		fprintf(stderr, "bench_load_copy: rounds and copies must be >= 1, threads >= 0\n");
		return 2;
	}

	float *src[N_FRAMES];
	void *dst[2][N_POOL] = {{0}};
	int n_dst = 1;
	for (int f = 0; f < N_FRAMES; f++) {
		if (posix_memalign((void **)&src[f], 64, FRAME_BYTES))
			return 1;
		for (size_t i = 0; i < FRAME_BYTES / sizeof(float); i++)
			src[f][i] = (float)(i % 1000) * 0.25f + (float)f;
	}
	for (int p = 0; p < N_POOL; p++) {
		if (posix_memalign(&dst[0][p], 64, FRAME_BYTES))
			return 1;
		memset(dst[0][p], 0, FRAME_BYTES);
	}
#ifdef BENCH_CUDA
	n_dst = 2;
	for (int p = 0; p < N_POOL && n_dst == 2; p++) {
		cudaError_t e = cudaHostAlloc(&dst[1][p], FRAME_BYTES,
					      cudaHostAllocMapped | cudaHostAllocPortable);
		if (e != cudaSuccess) {
			printf("no pinned memory (cudaHostAlloc: %s): host destinations only\n",
			       cudaGetErrorString(e));
			n_dst = 1;
		} else {
			memset(dst[1][p], 0, FRAME_BYTES);
		}
	}
#endif
	pthread_t *th = calloc((size_t)bg + 1, sizeof(pthread_t));
	for (int t = 0; t < bg; t++) {
		float *a = malloc(BG_BYTES);
		if (!a)
			return 1;
		for (size_t i = 0; i < BG_BYTES / sizeof(float); i++)
			a[i] = 1.0f;
		pthread_create(&th[t], NULL, background, a);
	}

	static const char *dst_name[] = {"host", "pinned"};
	static const char *copy_name[] = {"memcpy", "stream"};
	static const char *bg_name[] = {"idle", "spin", "stream"};
	/* ms per copy: [bg][dst][copy][round] */
	double *ms = calloc((size_t)3 * 2 * 2 * rounds, sizeof(double));
	uint64_t seq = 0;
	for (int r = 0; r < rounds; r++) {
		for (int b = 0; b < 3; b++) {
			atomic_store(&bg_mode, b);
			usleep(20000);
			for (int d = 0; d < n_dst; d++) {
				for (int c = 0; c < 2; c++) {
					double t0 = now_ms();
					for (int i = 0; i < copies; i++, seq++) {
						void *to = dst[d][seq % N_POOL];
						const void *from = src[seq % N_FRAMES];
						if (c == 0)
							memcpy(to, from, FRAME_BYTES);
						else
							btrt_io_copy(to, from, FRAME_BYTES);
					}
					ms[((b * 2 + d) * 2 + c) * rounds + r] = (now_ms() - t0) /
										 copies;
				}
			}
		}
	}
	atomic_store(&bg_mode, -1);
	for (int t = 0; t < bg; t++)
		pthread_join(th[t], NULL);

	/* A check that the copies copied: the last destination written holds its frame. */
	uint64_t last = seq - 1;
	if (memcmp(dst[n_dst - 1][last % N_POOL], src[last % N_FRAMES], FRAME_BYTES)) {
		fprintf(stderr, "bench_load_copy: the last copy differs from its frame\n");
		return 1;
	}

	printf("frame copy %.2f MB, %d rounds x %d copies, %d background threads\n",
	       FRAME_BYTES / 1e6, rounds, copies, bg);
	printf("%-7s %-7s %-7s %9s %9s %9s %7s\n", "beside", "dst", "copy", "ms", "p10", "p90",
	       "GB/s");
	for (int b = 0; b < 3; b++)
		for (int d = 0; d < n_dst; d++)
			for (int c = 0; c < 2; c++) {
				const double *v = &ms[((b * 2 + d) * 2 + c) * rounds];
				double med = pct(v, rounds, 0.5);
				printf("%-7s %-7s %-7s %9.3f %9.3f %9.3f %7.2f\n", bg_name[b],
				       dst_name[d], copy_name[c], med, pct(v, rounds, 0.1),
				       pct(v, rounds, 0.9), FRAME_BYTES / 1e6 / med);
			}
	return 0;
}
