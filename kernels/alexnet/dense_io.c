/* alexnet_dense_io: CIFAR-10 images in, logits checked (io_common.h). */
#include "alexnet_dense_task.h"
#include "io_common.h"

#include <string.h>

static void *dense_open(const char *path, const void *params, char *err, size_t errlen)
{
	const struct alexnet_dense_params *p = params;
	return alexnet_io_open("alexnet_dense", path, NULL, p->batch, -1, err, errlen);
}

static int dense_load(void *state, uint64_t seq, void *task, char *err, size_t errlen)
{
	struct alexnet_io *s = state;
	struct alexnet_dense_task *t = task;
	int fill = alexnet_io_claim_slot(s, t->base.slot, t->conv1_w);
	if (fill < 0) {
		snprintf(err, errlen, "alexnet_dense: out of memory");
		return -1;
	}
	if (fill) {
		const struct alexnet_weights *w = alexnet_io_weights(s);
		float *dw[ALEXNET_N_LAYERS] = {t->conv1_w, t->conv2_w, t->conv3_w,
					       t->conv4_w, t->conv5_w, t->linear_w};
		float *db[ALEXNET_N_LAYERS] = {t->conv1_b, t->conv2_b, t->conv3_b,
					       t->conv4_b, t->conv5_b, t->linear_b};
		for (int l = 0; l < ALEXNET_N_LAYERS; l++) {
			memcpy(dw[l], w->w[l], alexnet_weight_count(l) * sizeof(float));
			memcpy(db[l], w->b[l], (size_t)alexnet_layers[l].cout * sizeof(float));
		}
	}
	alexnet_io_fill_images(s, seq, t->image);
	return 1;
}

static int dense_check(void *state, uint64_t seq, const void *task, FILE *out, char *err,
		       size_t errlen)
{
	const struct alexnet_dense_task *t = task;
	return alexnet_io_check(state, seq, t->logits, t->pred, out, err, errlen);
}

static void dense_close(void *state, FILE *out)
{
	alexnet_io_close(state, out);
}

const struct btrt_app_io alexnet_dense_io = {
	.open = dense_open,
	.load = dense_load,
	.check = dense_check,
	.close = dense_close,
	.prepare = alexnet_io_prepare,
};
