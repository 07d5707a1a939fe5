/* OpenMP CPU kernels of alexnet_dense (apps/alexnet-dense.yaml): thin
   wrappers over the shared operators of cpu_ops.c. */
#include "alexnet_dense_task.h"
#include "cpu_ops.h"

#define B(t) ((int)(t)->params->batch)

int alexnet_dense_conv1_cpu(struct alexnet_dense_task *t)
{
	alexnet_conv_dense_omp(t->image, t->conv1_out, t->conv1_w, t->conv1_b, B(t), 3, 16, 32);
	return 0;
}

int alexnet_dense_pool1_cpu(struct alexnet_dense_task *t)
{
	alexnet_pool_omp(t->conv1_out, t->pool1_out, B(t), 16, 32);
	return 0;
}

int alexnet_dense_conv2_cpu(struct alexnet_dense_task *t)
{
	alexnet_conv_dense_omp(t->pool1_out, t->conv2_out, t->conv2_w, t->conv2_b, B(t), 16, 32, 16);
	return 0;
}

int alexnet_dense_pool2_cpu(struct alexnet_dense_task *t)
{
	alexnet_pool_omp(t->conv2_out, t->pool2_out, B(t), 32, 16);
	return 0;
}

int alexnet_dense_conv3_cpu(struct alexnet_dense_task *t)
{
	alexnet_conv_dense_omp(t->pool2_out, t->conv3_out, t->conv3_w, t->conv3_b, B(t), 32, 64, 8);
	return 0;
}

int alexnet_dense_conv4_cpu(struct alexnet_dense_task *t)
{
	alexnet_conv_dense_omp(t->conv3_out, t->conv4_out, t->conv4_w, t->conv4_b, B(t), 64, 64, 8);
	return 0;
}

int alexnet_dense_conv5_cpu(struct alexnet_dense_task *t)
{
	alexnet_conv_dense_omp(t->conv4_out, t->conv5_out, t->conv5_w, t->conv5_b, B(t), 64, 64, 8);
	return 0;
}

int alexnet_dense_pool3_cpu(struct alexnet_dense_task *t)
{
	alexnet_pool_omp(t->conv5_out, t->pool3_out, B(t), 64, 8);
	return 0;
}

int alexnet_dense_linear_cpu(struct alexnet_dense_task *t)
{
	alexnet_linear_dense_omp(t->pool3_out, t->logits, t->linear_w, t->linear_b, B(t), 1024, 10);
	alexnet_argmax_rows(t->logits, t->pred, B(t), 10);
	return 0;
}
