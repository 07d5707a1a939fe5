/* OpenMP CPU kernels of alexnet_sparse (apps/alexnet-sparse.yaml): thin
   wrappers over the shared operators of cpu_ops.c; convolutions and the
   linear layer walk the CSR weights and skip the pruned zeros. */
#include "alexnet_sparse_task.h"
#include "cpu_ops.h"
#include "net.h"

#define B(t) ((int)(t)->params->batch)
/* Layer l's CSR arrays and bias within the shared weight buffers. */
#define CSR(t, l)                                                          \
	(t)->csr_rowptr + alexnet_row_offset(l), (t)->csr_colidx + alexnet_nz_offset(l), \
		(t)->csr_val + alexnet_nz_offset(l), (t)->bias + alexnet_bias_offset(l)

int alexnet_sparse_conv1_cpu(struct alexnet_sparse_task *t)
{
	alexnet_conv_csr_omp(t->image, t->conv1_out, CSR(t, 0), B(t), 3, 16, 32);
	return 0;
}

int alexnet_sparse_pool1_cpu(struct alexnet_sparse_task *t)
{
	alexnet_pool_omp(t->conv1_out, t->pool1_out, B(t), 16, 32);
	return 0;
}

int alexnet_sparse_conv2_cpu(struct alexnet_sparse_task *t)
{
	alexnet_conv_csr_omp(t->pool1_out, t->conv2_out, CSR(t, 1), B(t), 16, 32, 16);
	return 0;
}

int alexnet_sparse_pool2_cpu(struct alexnet_sparse_task *t)
{
	alexnet_pool_omp(t->conv2_out, t->pool2_out, B(t), 32, 16);
	return 0;
}

int alexnet_sparse_conv3_cpu(struct alexnet_sparse_task *t)
{
	alexnet_conv_csr_omp(t->pool2_out, t->conv3_out, CSR(t, 2), B(t), 32, 64, 8);
	return 0;
}

int alexnet_sparse_conv4_cpu(struct alexnet_sparse_task *t)
{
	alexnet_conv_csr_omp(t->conv3_out, t->conv4_out, CSR(t, 3), B(t), 64, 64, 8);
	return 0;
}

int alexnet_sparse_conv5_cpu(struct alexnet_sparse_task *t)
{
	alexnet_conv_csr_omp(t->conv4_out, t->conv5_out, CSR(t, 4), B(t), 64, 64, 8);
	return 0;
}

int alexnet_sparse_pool3_cpu(struct alexnet_sparse_task *t)
{
	alexnet_pool_omp(t->conv5_out, t->pool3_out, B(t), 64, 8);
	return 0;
}

int alexnet_sparse_linear_cpu(struct alexnet_sparse_task *t)
{
	alexnet_linear_csr_omp(t->pool3_out, t->logits, CSR(t, 5), B(t), 1024, 10);
	alexnet_argmax_rows(t->logits, t->pred, B(t), 10);
	return 0;
}
