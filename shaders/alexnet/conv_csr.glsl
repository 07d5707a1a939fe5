// 3x3 convolution, stride 1, padding 1, + ReLU, weights in CSR (row =
// output channel, column = ic * 9 + ky * 3 + kx): only the stored non-zeros
// are visited. One invocation per output element (n, oc, y, x), x fastest,
// so a subgroup walks one row in step.
// The including wrapper defines IN_BINDING, OUT_BINDING, ROWPTR_BINDING,
// COLIDX_BINDING, VAL_BINDING, B_BINDING, CIN, COUT and SIDE, and the
// layer's offsets in the shared weight buffers: ROW_OFF (row pointers,
// relative to NZ_OFF), NZ_OFF (column indices and values), BIAS_OFF.
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = IN_BINDING) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = OUT_BINDING) writeonly buffer Out { float y[]; };
layout(std430, set = 0, binding = ROWPTR_BINDING) readonly buffer RowPtr { uint row_ptr[]; };
layout(std430, set = 0, binding = COLIDX_BINDING) readonly buffer ColIdx { uint col_idx[]; };
layout(std430, set = 0, binding = VAL_BINDING) readonly buffer Val { float val[]; };
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
	float acc = bias[BIAS_OFF + oc];
	uint end = NZ_OFF + row_ptr[ROW_OFF + oc + 1];
	for (uint j = NZ_OFF + row_ptr[ROW_OFF + oc]; j < end; j++) {
		uint c = col_idx[j], ic = c / 9, k = c % 9;
		int iy = oy + int(k / 3) - 1, ix = ox + int(k % 3) - 1;
		if (iy < 0 || iy >= SIDE || ix < 0 || ix >= SIDE)
			continue;
		acc += val[j] * x[(n * CIN + ic) * P + uint(iy * SIDE + ix)];
	}
	y[gid] = max(acc, 0.0);
}
