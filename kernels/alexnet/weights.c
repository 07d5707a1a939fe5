/* Loading the trained weights (.npy) and magnitude pruning to CSR. */
#include "net.h"
#include "npy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct alexnet_layer alexnet_layers[ALEXNET_N_LAYERS] = {
	{"conv1", 3, 16, 32, 3},
	{"conv2", 16, 32, 16, 3},
	{"conv3", 32, 64, 8, 3},
	{"conv4", 64, 64, 8, 3},
	{"conv5", 64, 64, 8, 3},
	{"linear", ALEXNET_FEATURES, ALEXNET_CLASSES, 1, 1},
};

size_t alexnet_weight_count(int l)
{
	const struct alexnet_layer *L = &alexnet_layers[l];
	return (size_t)L->cout * (size_t)L->cin * (size_t)L->k * (size_t)L->k;
}

void alexnet_weights_free(struct alexnet_weights *w)
{
	for (int l = 0; l < ALEXNET_N_LAYERS; l++) {
		free(w->w[l]);
		free(w->b[l]);
		w->w[l] = w->b[l] = NULL;
	}
}

/* Reads DIR/NAME.npy and checks its shape against want[0..ndim-1]. */
static float *load_checked(const char *dir, const char *name, const int64_t *want, int ndim,
			   char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.npy", dir, name);
	struct npy_array a;
	if (npy_read_f32(path, &a, err, errlen) != 0)
		return NULL;
	int ok = a.ndim == ndim;
	for (int i = 0; ok && i < ndim; i++)
		ok = a.shape[i] == want[i];
	if (!ok) {
		char got[160], exp[160];
		npy_shape_str(a.shape, a.ndim, got, sizeof got);
		npy_shape_str(want, ndim, exp, sizeof exp);
		snprintf(err, errlen, "%s: dtype '<f4', shape %s: expected shape %s", path, got, exp);
		npy_free(&a);
		return NULL;
	}
	for (size_t i = 0; i < a.count; i++)
		if (!isfinite(a.data[i])) {
			snprintf(err, errlen, "%s: element %zu is not finite (%g)", path, i,
				 (double)a.data[i]);
			npy_free(&a);
			return NULL;
		}
	return a.data;
}

int alexnet_weights_load(const char *dir, struct alexnet_weights *w, char *err, size_t errlen)
{
	memset(w, 0, sizeof *w);
	for (int l = 0; l < ALEXNET_N_LAYERS; l++) {
		const struct alexnet_layer *L = &alexnet_layers[l];
		char name[32];
		int64_t shape[4] = {L->cout, L->cin, L->k, L->k};
		snprintf(name, sizeof name, "%s_w", L->name);
		w->w[l] = load_checked(dir, name, shape, l == ALEXNET_LINEAR ? 2 : 4, err, errlen);
		if (!w->w[l])
			goto fail;
		snprintf(name, sizeof name, "%s_b", L->name);
		w->b[l] = load_checked(dir, name, shape, 1, err, errlen);
		if (!w->b[l])
			goto fail;
	}
	return 0;
fail:
	alexnet_weights_free(w);
	return -1;
}

void alexnet_csr_free(struct alexnet_csr csr[ALEXNET_N_LAYERS])
{
	for (int l = 0; l < ALEXNET_N_LAYERS; l++) {
		free(csr[l].row_ptr);
		free(csr[l].col_idx);
		free(csr[l].val);
		memset(&csr[l], 0, sizeof csr[l]);
	}
}

static const float *sort_base;

/* Orders indices by |w| ascending, then by index (a total order: the result
   does not depend on qsort's algorithm). */
static int by_magnitude(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	float ma = fabsf(sort_base[a]), mb = fabsf(sort_base[b]);
	if (ma != mb)
		return ma < mb ? -1 : 1;
	return (a > b) - (a < b);
}

int alexnet_prune(const struct alexnet_weights *dense, int sparsity,
		  struct alexnet_weights *out, struct alexnet_csr csr[ALEXNET_N_LAYERS])
{
	memset(out, 0, sizeof *out);
	if (csr)
		memset(csr, 0, sizeof(struct alexnet_csr) * ALEXNET_N_LAYERS);
	for (int l = 0; l < ALEXNET_N_LAYERS; l++) {
		const struct alexnet_layer *L = &alexnet_layers[l];
		size_t n = alexnet_weight_count(l);
		size_t drop = n * (size_t)sparsity / 100;
		out->w[l] = malloc(n * sizeof(float));
		out->b[l] = malloc((size_t)L->cout * sizeof(float));
		uint32_t *order = malloc(n * sizeof *order);
		if (!out->w[l] || !out->b[l] || !order) {
			free(order);
			goto fail;
		}
		memcpy(out->w[l], dense->w[l], n * sizeof(float));
		memcpy(out->b[l], dense->b[l], (size_t)L->cout * sizeof(float));
		for (size_t i = 0; i < n; i++)
			order[i] = (uint32_t)i;
		sort_base = dense->w[l];
		qsort(order, n, sizeof *order, by_magnitude);
		for (size_t i = 0; i < drop; i++)
			out->w[l][order[i]] = 0.0f;
		free(order);
		if (!csr)
			continue;
		struct alexnet_csr *c = &csr[l];
		size_t row_len = n / (size_t)L->cout, nnz = 0;
		for (size_t i = 0; i < n; i++)
			nnz += out->w[l][i] != 0.0f;
		c->rows = (uint32_t)L->cout;
		c->nnz = (uint32_t)nnz;
		c->row_ptr = malloc(((size_t)L->cout + 1) * sizeof(uint32_t));
		c->col_idx = malloc((nnz ? nnz : 1) * sizeof(uint32_t));
		c->val = malloc((nnz ? nnz : 1) * sizeof(float));
		if (!c->row_ptr || !c->col_idx || !c->val)
			goto fail;
		uint32_t k = 0;
		for (int r = 0; r < L->cout; r++) {
			c->row_ptr[r] = k;
			for (size_t j = 0; j < row_len; j++) {
				float v = out->w[l][(size_t)r * row_len + j];
				if (v != 0.0f) {
					c->col_idx[k] = (uint32_t)j;
					c->val[k++] = v;
				}
			}
		}
		c->row_ptr[L->cout] = k;
	}
	return 0;
fail:
	alexnet_weights_free(out);
	if (csr)
		alexnet_csr_free(csr);
	return -1;
}
