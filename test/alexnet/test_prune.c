/* Suite "prune": magnitude pruning per layer and the CSR it produces. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alexnet_sparse_task.h"
#include "net.h"
#include "suites.h"

static struct alexnet_weights dense;
static char err[1024];

static int init(void)
{
	if (btc_test_need_data(ALEXNET_WEIGHTS_REL))
		return -1;
	if (alexnet_weights_load(ALEXNET_WEIGHTS, &dense, err, sizeof err)) {
		fprintf(stderr, "prune: %s\n", err);
		return -1;
	}
	return 0;
}

static int cleanup(void)
{
	alexnet_weights_free(&dense);
	return 0;
}

static void check_sparsity(int sparsity)
{
	struct alexnet_weights p;
	struct alexnet_csr csr[ALEXNET_N_LAYERS];
	CU_ASSERT_EQUAL_FATAL(alexnet_prune(&dense, sparsity, &p, csr), 0);
	for (int l = 0; l < ALEXNET_N_LAYERS; l++) {
		size_t n = alexnet_weight_count(l), drop = n * (size_t)sparsity / 100, zeros = 0;
		float kept_min = INFINITY, dropped_max = 0.0f;
		for (size_t i = 0; i < n; i++) {
			if (p.w[l][i] == 0.0f) {
				zeros++;
				dropped_max = fmaxf(dropped_max, fabsf(dense.w[l][i]));
			} else {
				CU_ASSERT_EQUAL(p.w[l][i], dense.w[l][i]);
				kept_min = fminf(kept_min, fabsf(p.w[l][i]));
			}
		}
		/* The trained weights have no exact zeros: exactly drop pruned. */
		CU_ASSERT_EQUAL(zeros, drop);
		CU_ASSERT_EQUAL(csr[l].nnz, n - drop);
		CU_ASSERT(dropped_max <= kept_min);
		/* CSR expands back to the pruned dense matrix. */
		const struct alexnet_layer *L = &alexnet_layers[l];
		size_t row = n / (size_t)L->cout;
		float *back = calloc(n, sizeof(float));
		CU_ASSERT_EQUAL(csr[l].row_ptr[0], 0);
		CU_ASSERT_EQUAL(csr[l].row_ptr[L->cout], csr[l].nnz);
		for (int r = 0; r < L->cout; r++) {
			CU_ASSERT(csr[l].row_ptr[r] <= csr[l].row_ptr[r + 1]);
			for (uint32_t j = csr[l].row_ptr[r]; j < csr[l].row_ptr[r + 1]; j++) {
				CU_ASSERT_FATAL(csr[l].col_idx[j] < row);
				if (j > csr[l].row_ptr[r])
					CU_ASSERT(csr[l].col_idx[j] > csr[l].col_idx[j - 1]);
				back[(size_t)r * row + csr[l].col_idx[j]] = csr[l].val[j];
			}
		}
		CU_ASSERT_EQUAL(memcmp(back, p.w[l], n * sizeof(float)), 0);
		CU_ASSERT_EQUAL(memcmp(p.b[l], dense.b[l], (size_t)L->cout * sizeof(float)), 0);
		free(back);
	}
	/* Deterministic: a second run gives the same bytes. */
	struct alexnet_weights q;
	CU_ASSERT_EQUAL_FATAL(alexnet_prune(&dense, sparsity, &q, NULL), 0);
	for (int l = 0; l < ALEXNET_N_LAYERS; l++)
		CU_ASSERT_EQUAL(memcmp(q.w[l], p.w[l], alexnet_weight_count(l) * sizeof(float)), 0);
	alexnet_weights_free(&q);
	alexnet_weights_free(&p);
	alexnet_csr_free(csr);
}

static void test_prune_levels(void)
{
	static const int levels[] = {0, 20, 50, 90, 100};
	for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
		check_sparsity(levels[i]);
}

static void test_offsets(void)
{
	/* The static offsets of the sparse app's shared weight buffers are the
	   prefix sums of the layer shapes and fill the buffers exactly. */
	size_t r = 0, z = 0, b = 0;
	for (int l = 0; l < ALEXNET_N_LAYERS; l++) {
		CU_ASSERT_EQUAL(alexnet_row_offset(l), r);
		CU_ASSERT_EQUAL(alexnet_nz_offset(l), z);
		CU_ASSERT_EQUAL(alexnet_bias_offset(l), b);
		r += (size_t)alexnet_layers[l].cout + 1;
		z += alexnet_weight_count(l);
		b += (size_t)alexnet_layers[l].cout;
	}
	struct alexnet_sparse_params p = ALEXNET_SPARSE_DEFAULT_PARAMS;
	CU_ASSERT_EQUAL(alexnet_row_offset(ALEXNET_N_LAYERS), r);
	CU_ASSERT_EQUAL(alexnet_sparse_buffer_count(&p, ALEXNET_SPARSE_BUF_CSR_ROWPTR), r);
	CU_ASSERT_EQUAL(alexnet_sparse_buffer_count(&p, ALEXNET_SPARSE_BUF_CSR_COLIDX), z);
	CU_ASSERT_EQUAL(alexnet_sparse_buffer_count(&p, ALEXNET_SPARSE_BUF_CSR_VAL), z);
	CU_ASSERT_EQUAL(alexnet_sparse_buffer_count(&p, ALEXNET_SPARSE_BUF_BIAS), b);
	CU_ASSERT_EQUAL(alexnet_nz_offset(ALEXNET_N_LAYERS), z);
	CU_ASSERT_EQUAL(alexnet_bias_offset(ALEXNET_N_LAYERS), b);
}

int alexnet_register_prune(void)
{
	CU_pSuite s = CU_add_suite("prune", init, cleanup);
	if (!s || !CU_add_test(s, "magnitude pruning and CSR at 0/20/50/90/100 %", test_prune_levels) ||
	    !CU_add_test(s, "offsets of the shared sparse weight buffers", test_offsets))
		return -1;
	return 0;
}
