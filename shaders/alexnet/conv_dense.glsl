// 3x3 convolution, stride 1, padding 1, + ReLU, dense OIHW weights.
// One invocation per output element (n, oc, y, x), x fastest.
// The including wrapper defines IN_BINDING, OUT_BINDING, W_BINDING,
// B_BINDING, CIN, COUT and SIDE (input = output side).
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = IN_BINDING) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = OUT_BINDING) writeonly buffer Out { float y[]; };
layout(std430, set = 0, binding = W_BINDING) readonly buffer Weights { float w[]; };
layout(std430, set = 0, binding = B_BINDING) readonly buffer Bias { float bias[]; };
layout(push_constant) uniform Push { uint batch; } pc;

void main()
{
	const uint P = SIDE * SIDE;
	uint gid = gl_GlobalInvocationID.x;
	if (gid >= pc.batch * COUT * P)
		return;
	int ox = int(gid % SIDE), oy = int((gid / SIDE) % SIDE);
	uint oc = (gid / P) % COUT, n = gid / (P * COUT);
	float acc = bias[oc];
	for (uint ic = 0; ic < CIN; ic++) {
		uint wb = (oc * CIN + ic) * 9, xb = (n * CIN + ic) * P;
		for (int ky = 0; ky < 3; ky++) {
			int iy = oy + ky - 1;
			if (iy < 0 || iy >= SIDE)
				continue;
			for (int kx = 0; kx < 3; kx++) {
				int ix = ox + kx - 1;
				if (ix < 0 || ix >= SIDE)
					continue;
				acc += w[wb + uint(ky * 3 + kx)] * x[xb + uint(iy * SIDE + ix)];
			}
		}
	}
	y[gid] = max(acc, 0.0);
}
