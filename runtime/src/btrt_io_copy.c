/* btrt_io_copy (btrt.h): an io load's copy into a TaskObject buffer with
 * non-temporal stores. Depends on nothing but btrt.h and libc, so that
 * bench/runtime/bench_load_copy.c builds with it on the GPU machine. */
#include "btrt.h"

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static int io_copy_stream = 1; /* set before any thread loads */

void btrt_io_copy_configure(int stream)
{
	io_copy_stream = stream != 0;
}

void btrt_io_copy(void *dst, const void *src, size_t bytes)
{
#if defined(__SSE2__)
	if (io_copy_stream && bytes >= BTRT_IO_COPY_STREAM_MIN) {
		size_t head = (size_t)(-(uintptr_t)dst & 15), blocks = (bytes - head) / 64;
		memcpy(dst, src, head);
		__m128i *d = (__m128i *)((char *)dst + head);
		const __m128i *s = (const __m128i *)((const char *)src + head);
		for (size_t i = 0; i < blocks; i++, d += 4, s += 4) {
			__m128i a = _mm_loadu_si128(s), b = _mm_loadu_si128(s + 1);
			__m128i c = _mm_loadu_si128(s + 2), e = _mm_loadu_si128(s + 3);
			_mm_stream_si128(d, a);
			_mm_stream_si128(d + 1, b);
			_mm_stream_si128(d + 2, c);
			_mm_stream_si128(d + 3, e);
		}
		memcpy(d, s, bytes - head - blocks * 64);
		_mm_sfence();
		return;
	}
#endif
	memcpy(dst, src, bytes);
}
