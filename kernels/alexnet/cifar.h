/* Reader for CIFAR-10 binary batch files and the input normalisation the
   AlexNet weights were trained with (data/README.md). */
#ifndef ALEXNET_CIFAR_H
#define ALEXNET_CIFAR_H

#include <stddef.h>
#include <stdint.h>

#define CIFAR_SIDE 32
#define CIFAR_CHANNELS 3
#define CIFAR_PIXELS (CIFAR_CHANNELS * CIFAR_SIDE * CIFAR_SIDE) /* 3072 */
#define CIFAR_RECORD (1 + CIFAR_PIXELS)                          /* 3073 bytes */
#define CIFAR_CLASSES 10

/* A CIFAR-10 batch: n records of one label byte (0..9) and 3072 pixel bytes
   (1024 red, 1024 green, 1024 blue, each row-major 32x32). */
struct cifar_batch {
	size_t n;
	uint8_t *labels;  /* [n] */
	uint8_t *pixels;  /* [n][3072], CHW */
};

/* Reads a whole batch file. Fails (-1, message in err naming the file) when
   the file is empty, its size is not a multiple of 3073 bytes, or a label is
   not in 0..9. */
int cifar_read(const char *path, struct cifar_batch *out, char *err, size_t errlen);

void cifar_free(struct cifar_batch *b);

/* Writes image i of b to dst[3][32][32] as float32: pixel/255, then per
   channel (x - mean) / std with the CIFAR-10 mean (0.4914, 0.4822, 0.4465)
   and std (0.2470, 0.2435, 0.2616). */
void cifar_normalise(const struct cifar_batch *b, size_t i, float *dst);

#endif
