// Linear layer 1024 -> 10, dense weights [10][1024]. One invocation per
// (image, output). The including wrapper defines IN_BINDING, OUT_BINDING,
// W_BINDING, B_BINDING.
#define NIN 1024
#define NOUT 10
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = IN_BINDING) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = OUT_BINDING) writeonly buffer Out { float y[]; };
layout(std430, set = 0, binding = W_BINDING) readonly buffer Weights { float w[]; };
layout(std430, set = 0, binding = B_BINDING) readonly buffer Bias { float bias[]; };
layout(push_constant) uniform Push { uint batch; } pc;

void main()
{
	uint gid = gl_GlobalInvocationID.x;
	if (gid >= pc.batch * NOUT)
		return;
	uint o = gid % NOUT, n = gid / NOUT;
	float acc = 0.0;
	for (uint i = 0; i < NIN; i++)
		acc += w[o * NIN + i] * x[n * NIN + i];
	y[gid] = acc + bias[o];
}
