/* CUDA launchers of alexnet_dense (apps/alexnet-dense.yaml): thin
   wrappers over the shared operators of ops.cu (cuda_ops.h). */
extern "C" {
#include "alexnet_dense_task.h"
}
#include "cuda_ops.h"

#define B(t) ((int)(t)->params->batch)

extern "C" int alexnet_dense_conv1_cuda(struct alexnet_dense_task *t, void *stream)
{
	return alexnet_cuda_conv_dense(t->image, t->conv1_out, t->conv1_w, t->conv1_b, B(t), 3, 16, 32, stream);
}

extern "C" int alexnet_dense_pool1_cuda(struct alexnet_dense_task *t, void *stream)
{
	return alexnet_cuda_pool(t->conv1_out, t->pool1_out, B(t), 16, 32, stream);
}

extern "C" int alexnet_dense_conv2_cuda(struct alexnet_dense_task *t, void *stream)
{
	return alexnet_cuda_conv_dense(t->pool1_out, t->conv2_out, t->conv2_w, t->conv2_b, B(t), 16, 32, 16, stream);
}

extern "C" int alexnet_dense_pool2_cuda(struct alexnet_dense_task *t, void *stream)
{
	return alexnet_cuda_pool(t->conv2_out, t->pool2_out, B(t), 32, 16, stream);
}

extern "C" int alexnet_dense_conv3_cuda(struct alexnet_dense_task *t, void *stream)
{
	return alexnet_cuda_conv_dense(t->pool2_out, t->conv3_out, t->conv3_w, t->conv3_b, B(t), 32, 64, 8, stream);
}

extern "C" int alexnet_dense_conv4_cuda(struct alexnet_dense_task *t, void *stream)
{
	return alexnet_cuda_conv_dense(t->conv3_out, t->conv4_out, t->conv4_w, t->conv4_b, B(t), 64, 64, 8, stream);
}

extern "C" int alexnet_dense_conv5_cuda(struct alexnet_dense_task *t, void *stream)
{
	return alexnet_cuda_conv_dense(t->conv4_out, t->conv5_out, t->conv5_w, t->conv5_b, B(t), 64, 64, 8, stream);
}

extern "C" int alexnet_dense_pool3_cuda(struct alexnet_dense_task *t, void *stream)
{
	return alexnet_cuda_pool(t->conv5_out, t->pool3_out, B(t), 64, 8, stream);
}

extern "C" int alexnet_dense_linear_cuda(struct alexnet_dense_task *t, void *stream)
{
	int rc = alexnet_cuda_linear_dense(t->pool3_out, t->logits, t->linear_w, t->linear_b, B(t), 1024, 10, stream);
	return rc ? rc : alexnet_cuda_argmax(t->logits, t->pred, B(t), 10, stream);
}
