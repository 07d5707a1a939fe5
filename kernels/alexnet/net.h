/* The CIFAR-10 AlexNet of the BetterTogether paper (Table II): shapes,
   weights (dense and pruned CSR) and the sequential C reference. Shared by
   the alexnet_dense and alexnet_sparse apps.

   conv 3x3 stride 1 pad 1 + ReLU, 2x2 max-pool stride 2:
     image 3x32x32 -> conv1 16x32x32 -> pool1 16x16x16 -> conv2 32x16x16
     -> pool2 32x8x8 -> conv3 64x8x8 -> conv4 64x8x8 -> conv5 64x8x8
     -> pool3 64x4x4 (= 1024, flattened CHW) -> linear 10 logits. */
#ifndef ALEXNET_NET_H
#define ALEXNET_NET_H

#include <stddef.h>
#include <stdint.h>

#define ALEXNET_N_CONV 5
#define ALEXNET_N_LAYERS 6       /* conv1..conv5, linear */
#define ALEXNET_LINEAR 5         /* layer index of linear */
#define ALEXNET_IMAGE (3 * 32 * 32)
#define ALEXNET_FEATURES 1024    /* pool3 output, linear input */
#define ALEXNET_CLASSES 10

/* Shape of layer l: conv layers are cout x cin x 3 x 3 over side x side
   planes (output side = input side); linear is 10 x 1024 (side 1, k 1). */
struct alexnet_layer {
	const char *name;   /* "conv1" .. "conv5", "linear" */
	int cin, cout, side, k;
};
extern const struct alexnet_layer alexnet_layers[ALEXNET_N_LAYERS];

/* Weight count of layer l (cout * cin * k * k). */
size_t alexnet_weight_count(int l);

/* The sparse app keeps the CSR arrays and biases of all six layers in one
   buffer each (apps/alexnet-sparse.yaml); layer l's part starts at these
   static offsets (prefix sums of cout + 1, cout * cin * k * k and cout), so
   the layout does not depend on the sparsity. Row pointers are relative
   to the layer's part. */
static inline size_t alexnet_row_offset(int l)
{
	static const size_t off[ALEXNET_N_LAYERS + 1] = {0, 17, 50, 115, 180, 245, 256};
	return off[l];
}
static inline size_t alexnet_nz_offset(int l)
{
	static const size_t off[ALEXNET_N_LAYERS + 1] = {0, 432, 5040, 23472, 60336, 97200, 107440};
	return off[l];
}
static inline size_t alexnet_bias_offset(int l)
{
	static const size_t off[ALEXNET_N_LAYERS + 1] = {0, 16, 48, 112, 176, 240, 250};
	return off[l];
}

/* Dense weights, OIHW (linear: 10 x 1024), float32, malloc'ed. */
struct alexnet_weights {
	float *w[ALEXNET_N_LAYERS];
	float *b[ALEXNET_N_LAYERS];
};

/* One layer in compressed sparse rows: row = output channel (linear: output
   class), column = ic * k * k + ky * k + kx (the OIHW offset within the row). */
struct alexnet_csr {
	uint32_t rows, nnz;
	uint32_t *row_ptr;  /* [rows + 1] */
	uint32_t *col_idx;  /* [nnz] */
	float *val;         /* [nnz] */
};

/* Reads conv{1..5}_{w,b}.npy and linear_{w,b}.npy from dir. Any missing
   file, non-float32 or Fortran-order array, or shape other than the
   network's fails with a message naming the file, its dtype and shape. */
int alexnet_weights_load(const char *dir, struct alexnet_weights *w, char *err, size_t errlen);
void alexnet_weights_free(struct alexnet_weights *w);

/* Magnitude pruning per layer: in each layer the floor(n * sparsity / 100)
   weights of smallest |w| (ties broken by lower index) become zero; biases
   are kept. Deterministic. Writes the pruned dense copy to out (allocated)
   and, when csr is not NULL, the CSR of every layer (allocated, nnz = the
   non-zeros left). sparsity in 0..100. Returns 0 or -1 (out of memory). */
int alexnet_prune(const struct alexnet_weights *dense, int sparsity,
		  struct alexnet_weights *out, struct alexnet_csr csr[ALEXNET_N_LAYERS]);
void alexnet_csr_free(struct alexnet_csr csr[ALEXNET_N_LAYERS]);

/* Sequential float32 reference, one image, straightforward loops (an
   independent implementation from the kernels). */
void alexnet_ref_conv(const float *in, float *out, const float *w, const float *b,
		      int cin, int cout, int side);          /* + ReLU */
void alexnet_ref_pool(const float *in, float *out, int c, int side); /* side = input side */
void alexnet_ref_linear(const float *in, float *out, const float *w, const float *b,
			int nin, int nout);
/* Whole network: img[3][32][32] normalised -> logits[10]. */
void alexnet_ref_forward(const struct alexnet_weights *w, const float *img, float *logits);
/* Index of the largest of x[0..n-1] (first one on ties). */
int alexnet_argmax(const float *x, int n);

#endif
