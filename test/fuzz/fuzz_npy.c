/* The .npy reader of the AlexNet apps (kernels/alexnet/npy.c): any file
 * gives a float32 array whose size matches its shape, or a message. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct npy_array a;
	char err[512];
	err[0] = '\0';
	if (npy_read_f32(fuzz_file(data, size), &a, err, sizeof(err)) != 0) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0] || a.data)
			abort(); /* every failure says why and holds nothing */
		return 0;
	}
	size_t count = 1;
	for (int i = 0; i < a.ndim; i++)
		count *= (size_t)a.shape[i];
	if (count != a.count || a.count * sizeof(float) > size)
		abort();
	volatile float sum = 0;
	for (size_t i = 0; i < a.count; i++)
		sum += a.data[i];
	npy_free(&a);
	return 0;
}
