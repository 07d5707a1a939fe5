/* alexnet_sparse_io: CIFAR-10 batches in, logits checked (io_common.h);
   open prunes the dense weights to params->sparsity and load copies the
   CSR arrays into the TaskObject. */
#include "alexnet_sparse_task.h"
#include "io_common.h"

#include <string.h>

static void *sparse_open(const char *path, const void *params, char *err, size_t errlen)
{
	const struct alexnet_sparse_params *p = params;
	if (p->sparsity < 0) {
		snprintf(err, errlen, "alexnet_sparse: param sparsity = %lld, expected 0..100",
			 (long long)p->sparsity);
		return NULL;
	}
	return alexnet_io_open("alexnet_sparse", path, NULL, p->batch, p->sparsity, err, errlen);
}

static int sparse_load(void *state, uint64_t seq, void *task, char *err, size_t errlen)
{
	struct alexnet_io *s = state;
	struct alexnet_sparse_task *t = task;
	int fill = alexnet_io_claim_slot(s, t->base.slot, t->csr_val);
	if (fill < 0) {
		snprintf(err, errlen, "alexnet_sparse: out of memory");
		return -1;
	}
	if (fill) {
		const struct alexnet_csr *c = alexnet_io_csr(s);
		const struct alexnet_weights *w = alexnet_io_weights(s);
		for (int l = 0; l < ALEXNET_N_LAYERS; l++) {
			memcpy(t->csr_rowptr + alexnet_row_offset(l), c[l].row_ptr,
			       ((size_t)c[l].rows + 1) * sizeof(uint32_t));
			memcpy(t->csr_colidx + alexnet_nz_offset(l), c[l].col_idx,
			       (size_t)c[l].nnz * sizeof(uint32_t));
			memcpy(t->csr_val + alexnet_nz_offset(l), c[l].val, (size_t)c[l].nnz * sizeof(float));
			memcpy(t->bias + alexnet_bias_offset(l), w->b[l],
			       (size_t)alexnet_layers[l].cout * sizeof(float));
		}
	}
	alexnet_io_fill_images(s, seq, t->image);
	return 1;
}

static int sparse_check(void *state, uint64_t seq, const void *task, FILE *out, char *err,
			size_t errlen)
{
	const struct alexnet_sparse_task *t = task;
	return alexnet_io_check(state, seq, t->logits, t->pred, out, err, errlen);
}

static void sparse_close(void *state, FILE *out)
{
	alexnet_io_close(state, out);
}

const struct btrt_app_io alexnet_sparse_io = {
	.open = sparse_open,
	.load = sparse_load,
	.check = sparse_check,
	.close = sparse_close,
	.prepare = alexnet_io_prepare,
};
