/* Reader for NumPy .npy files holding float32 arrays in C order. */
#ifndef ALEXNET_NPY_H
#define ALEXNET_NPY_H

#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS 8

/* A float32 C-order array read from a .npy file. data is malloc'ed and owned
   by the caller (free with npy_free). */
struct npy_array {
	int ndim;
	int64_t shape[NPY_MAX_DIMS];
	size_t count;   /* product of shape (1 for a 0-d array) */
	float *data;
};

/* Reads path (format versions 1.0, 2.0 and 3.0). Accepts only little-endian
   float32 ('<f4') in C order; anything else, a truncated file or a malformed
   header fails with a message in err naming the file, the dtype and the
   shape. Returns 0 or -1. */
int npy_read_f32(const char *path, struct npy_array *out, char *err, size_t errlen);

/* Formats shape as "(16, 3, 3, 3)" into buf. */
void npy_shape_str(const int64_t *shape, int ndim, char *buf, size_t len);

void npy_free(struct npy_array *a);

#endif
