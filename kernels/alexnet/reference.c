/* Sequential float32 reference of the CIFAR-10 AlexNet: one output element
   at a time, no OpenMP, no blocking. The kernels of every backend are
   checked against it (relative error of the logits at most 1e-4). */
#include "net.h"

#include <stdlib.h>

void alexnet_ref_conv(const float *in, float *out, const float *w, const float *b,
		      int cin, int cout, int side)
{
	for (int oc = 0; oc < cout; oc++)
		for (int y = 0; y < side; y++)
			for (int x = 0; x < side; x++) {
				/* Taps that fall inside the image (zero padding of 1). */
				int ky0 = y == 0, ky1 = y == side - 1 ? 2 : 3;
				int kx0 = x == 0, kx1 = x == side - 1 ? 2 : 3;
				float acc = b[oc];
				for (int ic = 0; ic < cin; ic++) {
					const float *wk = w + (oc * cin + ic) * 9;
					int base = (ic * side + y - 1) * side + x - 1; /* tap (0, 0) */
					for (int ky = ky0; ky < ky1; ky++)
						for (int kx = kx0; kx < kx1; kx++)
							acc += wk[ky * 3 + kx] * in[base + ky * side + kx];
				}
				out[(oc * side + y) * side + x] = acc > 0.0f ? acc : 0.0f;
			}
}

void alexnet_ref_pool(const float *in, float *out, int c, int side)
{
	int os = side / 2;
	for (int ch = 0; ch < c; ch++)
		for (int y = 0; y < os; y++)
			for (int x = 0; x < os; x++) {
				const float *p = in + (ch * side + 2 * y) * side + 2 * x;
				float m = p[0];
				if (p[1] > m) m = p[1];
				if (p[side] > m) m = p[side];
				if (p[side + 1] > m) m = p[side + 1];
				out[(ch * os + y) * os + x] = m;
			}
}

void alexnet_ref_linear(const float *in, float *out, const float *w, const float *b,
			int nin, int nout)
{
	for (int o = 0; o < nout; o++) {
		float acc = b[o];
		for (int i = 0; i < nin; i++)
			acc += w[o * nin + i] * in[i];
		out[o] = acc;
	}
}

int alexnet_argmax(const float *x, int n)
{
	int best = 0;
	for (int i = 1; i < n; i++)
		if (x[i] > x[best])
			best = i;
	return best;
}

void alexnet_ref_forward(const struct alexnet_weights *w, const float *img, float *logits)
{
	/* Largest activation: conv1, 16x32x32. */
	float *a = malloc(16 * 32 * 32 * sizeof(float));
	float *t = malloc(16 * 32 * 32 * sizeof(float));
	if (!a || !t)
		abort();
	alexnet_ref_conv(img, a, w->w[0], w->b[0], 3, 16, 32);
	alexnet_ref_pool(a, t, 16, 32);
	alexnet_ref_conv(t, a, w->w[1], w->b[1], 16, 32, 16);
	alexnet_ref_pool(a, t, 32, 16);
	alexnet_ref_conv(t, a, w->w[2], w->b[2], 32, 64, 8);
	alexnet_ref_conv(a, t, w->w[3], w->b[3], 64, 64, 8);
	alexnet_ref_conv(t, a, w->w[4], w->b[4], 64, 64, 8);
	alexnet_ref_pool(a, t, 64, 8);
	alexnet_ref_linear(t, logits, w->w[5], w->b[5], ALEXNET_FEATURES, ALEXNET_CLASSES);
	free(a);
	free(t);
}
