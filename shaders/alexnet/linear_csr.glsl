// Linear layer 1024 -> 10, weights in CSR (row = output, column = input):
// only the stored non-zeros are visited. One workgroup of 64 invocations
// per (image, output), each taking every 64th non-zero of the row, then a
// tree reduction in shared memory. The including wrapper defines
// IN_BINDING, OUT_BINDING, ROWPTR_BINDING, COLIDX_BINDING, VAL_BINDING,
// B_BINDING, and ROW_OFF, NZ_OFF, BIAS_OFF as in conv_csr.glsl.
#define NIN 1024
#define NOUT 10
#define WG 64
layout(local_size_x = WG) in;
layout(std430, set = 0, binding = IN_BINDING) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = OUT_BINDING) writeonly buffer Out { float y[]; };
layout(std430, set = 0, binding = ROWPTR_BINDING) readonly buffer RowPtr { uint row_ptr[]; };
layout(std430, set = 0, binding = COLIDX_BINDING) readonly buffer ColIdx { uint col_idx[]; };
layout(std430, set = 0, binding = VAL_BINDING) readonly buffer Val { float val[]; };
layout(std430, set = 0, binding = B_BINDING) readonly buffer Bias { float bias[]; };
layout(push_constant) uniform Push { uint batch; } pc;

shared float part[WG];

void main()
{
	uint item = gl_WorkGroupID.x, lane = gl_LocalInvocationID.x;
	uint o = item % NOUT, n = item / NOUT;
	float acc = 0.0;
	if (item < pc.batch * NOUT) {
		uint end = NZ_OFF + row_ptr[ROW_OFF + o + 1];
		for (uint j = NZ_OFF + row_ptr[ROW_OFF + o] + lane; j < end; j += WG)
			acc += val[j] * x[n * NIN + col_idx[j]];
	}
	part[lane] = acc;
	barrier();
	for (uint s = WG / 2; s > 0; s /= 2) {
		if (lane < s)
			part[lane] += part[lane + s];
		barrier();
	}
	if (lane == 0 && item < pc.batch * NOUT)
		y[item] = part[0] + bias[BIAS_OFF + o];
}
