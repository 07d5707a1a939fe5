/* CIFAR-10 binary version: https://www.cs.toronto.edu/~kriz/cifar.html */
#include "cifar.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cifar_free(struct cifar_batch *b)
{
	free(b->labels);
	free(b->pixels);
	memset(b, 0, sizeof *b);
}

int cifar_read(const char *path, struct cifar_batch *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	int rc = -1;
	long size;
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		snprintf(err, errlen, "%s: cannot determine the size: %s", path, strerror(errno));
		goto out;
	}
	if (size == 0 || size % CIFAR_RECORD != 0) {
		snprintf(err, errlen,
			 "%s: %ld bytes is not a CIFAR-10 binary batch (a positive multiple of "
			 "%d-byte records: 1 label byte + 3072 pixel bytes)",
			 path, size, CIFAR_RECORD);
		goto out;
	}
	out->n = (size_t)size / CIFAR_RECORD;
	out->labels = malloc(out->n);
	out->pixels = malloc(out->n * CIFAR_PIXELS);
	if (!out->labels || !out->pixels) {
		snprintf(err, errlen, "%s: out of memory for %zu images", path, out->n);
		goto out;
	}
	for (size_t i = 0; i < out->n; i++) {
		unsigned char lab;
		if (fread(&lab, 1, 1, f) != 1 ||
		    fread(out->pixels + i * CIFAR_PIXELS, 1, CIFAR_PIXELS, f) != CIFAR_PIXELS) {
			snprintf(err, errlen, "%s: short read in record %zu", path, i);
			goto out;
		}
		if (lab >= CIFAR_CLASSES) {
			snprintf(err, errlen,
				 "%s: record %zu (byte offset %zu) has label %u, expected 0..9: "
				 "not a CIFAR-10 batch",
				 path, i, i * CIFAR_RECORD, lab);
			goto out;
		}
		out->labels[i] = lab;
	}
	rc = 0;
out:
	if (rc)
		cifar_free(out);
	fclose(f);
	return rc;
}

void cifar_normalise(const struct cifar_batch *b, size_t i, float *dst)
{
	static const float mean[3] = {0.4914f, 0.4822f, 0.4465f};
	static const float std[3] = {0.2470f, 0.2435f, 0.2616f};
	const uint8_t *src = b->pixels + i * CIFAR_PIXELS;
	for (int c = 0; c < 3; c++)
		for (int p = 0; p < CIFAR_SIDE * CIFAR_SIDE; p++) {
			int k = c * CIFAR_SIDE * CIFAR_SIDE + p;
			dst[k] = ((float)src[k] / 255.0f - mean[c]) / std[c];
		}
}
