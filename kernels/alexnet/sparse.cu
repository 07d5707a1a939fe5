/* CUDA launchers of alexnet_sparse (apps/alexnet-sparse.yaml): thin
   wrappers over the shared operators of ops.cu (cuda_ops.h); convolutions and the
   linear layer walk the CSR weights and skip the pruned zeros. */
extern "C" {
#include "alexnet_sparse_task.h"
#include "net.h"
}
#include "cuda_ops.h"

#define B(t) ((int)(t)->params->batch)
/* Layer l's CSR arrays and bias within the shared weight buffers. */
#define CSR(t, l)                                                          \
	(t)->csr_rowptr + alexnet_row_offset(l), (t)->csr_colidx + alexnet_nz_offset(l), \
		(t)->csr_val + alexnet_nz_offset(l), (t)->bias + alexnet_bias_offset(l)

extern "C" int alexnet_sparse_conv1_cuda(struct alexnet_sparse_task *t, void *stream)
{
	return alexnet_cuda_conv_csr(t->image, t->conv1_out, CSR(t, 0), B(t), 3, 16, 32, stream);
}

extern "C" int alexnet_sparse_pool1_cuda(struct alexnet_sparse_task *t, void *stream)
{
	return alexnet_cuda_pool(t->conv1_out, t->pool1_out, B(t), 16, 32, stream);
}

extern "C" int alexnet_sparse_conv2_cuda(struct alexnet_sparse_task *t, void *stream)
{
	return alexnet_cuda_conv_csr(t->pool1_out, t->conv2_out, CSR(t, 1), B(t), 16, 32, 16, stream);
}

extern "C" int alexnet_sparse_pool2_cuda(struct alexnet_sparse_task *t, void *stream)
{
	return alexnet_cuda_pool(t->conv2_out, t->pool2_out, B(t), 32, 16, stream);
}

extern "C" int alexnet_sparse_conv3_cuda(struct alexnet_sparse_task *t, void *stream)
{
	return alexnet_cuda_conv_csr(t->pool2_out, t->conv3_out, CSR(t, 2), B(t), 32, 64, 8, stream);
}

extern "C" int alexnet_sparse_conv4_cuda(struct alexnet_sparse_task *t, void *stream)
{
	return alexnet_cuda_conv_csr(t->conv3_out, t->conv4_out, CSR(t, 3), B(t), 64, 64, 8, stream);
}

extern "C" int alexnet_sparse_conv5_cuda(struct alexnet_sparse_task *t, void *stream)
{
	return alexnet_cuda_conv_csr(t->conv4_out, t->conv5_out, CSR(t, 4), B(t), 64, 64, 8, stream);
}

extern "C" int alexnet_sparse_pool3_cuda(struct alexnet_sparse_task *t, void *stream)
{
	return alexnet_cuda_pool(t->conv5_out, t->pool3_out, B(t), 64, 8, stream);
}

extern "C" int alexnet_sparse_linear_cuda(struct alexnet_sparse_task *t, void *stream)
{
	int rc = alexnet_cuda_linear_csr(t->pool3_out, t->logits, CSR(t, 5), B(t), 1024, 10, stream);
	return rc ? rc : alexnet_cuda_argmax(t->logits, t->pred, B(t), 10, stream);
}
