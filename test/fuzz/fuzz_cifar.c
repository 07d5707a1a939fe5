/* The CIFAR-10 batch reader of the AlexNet apps (kernels/alexnet/cifar.c):
 * any file gives whole records with labels 0..9, or a message. */
#include <stdlib.h>
#include <string.h>

#include "cifar.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cifar_batch b;
	char err[512];
	err[0] = '\0';
	if (cifar_read(fuzz_file(data, size), &b, err, sizeof(err)) != 0) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0] || b.labels || b.pixels)
			abort();
		return 0;
	}
	if (b.n * CIFAR_RECORD != size)
		abort();
	float img[CIFAR_PIXELS];
	for (size_t i = 0; i < b.n; i++) {
		if (b.labels[i] >= CIFAR_CLASSES)
			abort();
		cifar_normalise(&b, i, img);
	}
	cifar_free(&b);
	return 0;
}
