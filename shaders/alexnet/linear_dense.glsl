// Linear layer 1024 -> 10, dense weights [10][1024]. One workgroup of 64
// invocations per (image, output): each sums 16 products (strided, so
// neighbouring invocations read neighbouring floats), then a tree
// reduction in shared memory. The including wrapper defines IN_BINDING,
// OUT_BINDING, W_BINDING, B_BINDING.
#define NIN 1024
#define NOUT 10
#define WG 64
layout(local_size_x = WG) in;
layout(std430, set = 0, binding = IN_BINDING) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = OUT_BINDING) writeonly buffer Out { float y[]; };
layout(std430, set = 0, binding = W_BINDING) readonly buffer Weights { float w[]; };
layout(std430, set = 0, binding = B_BINDING) readonly buffer Bias { float bias[]; };
layout(push_constant) uniform Push { uint batch; } pc;

shared float part[WG];

void main()
{
	uint item = gl_WorkGroupID.x, lane = gl_LocalInvocationID.x;
	uint o = item % NOUT, n = item / NOUT;
	float acc = 0.0;
	if (item < pc.batch * NOUT)
		for (uint i = lane; i < NIN; i += WG)
			acc += w[o * NIN + i] * x[n * NIN + i];
	part[lane] = acc;
	barrier();
	for (uint s = WG / 2; s > 0; s /= 2) {
		if (lane < s)
			part[lane] += part[lane + s];
		barrier();
	}
	if (lane == 0 && item < pc.batch * NOUT)
		y[item] = part[0] + bias[o];
}
