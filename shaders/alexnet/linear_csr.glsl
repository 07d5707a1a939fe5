// Linear layer 1024 -> 10, weights in CSR (row = output, column = input):
// only the stored non-zeros are visited. One invocation per (image, output).
// The including wrapper defines IN_BINDING, OUT_BINDING, ROWPTR_BINDING,
// COLIDX_BINDING, VAL_BINDING, B_BINDING, and ROW_OFF, NZ_OFF, BIAS_OFF as
// in conv_csr.glsl.
#define NIN 1024
#define NOUT 10
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = IN_BINDING) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = OUT_BINDING) writeonly buffer Out { float y[]; };
layout(std430, set = 0, binding = ROWPTR_BINDING) readonly buffer RowPtr { uint row_ptr[]; };
layout(std430, set = 0, binding = COLIDX_BINDING) readonly buffer ColIdx { uint col_idx[]; };
layout(std430, set = 0, binding = VAL_BINDING) readonly buffer Val { float val[]; };
layout(std430, set = 0, binding = B_BINDING) readonly buffer Bias { float bias[]; };
layout(push_constant) uniform Push { uint batch; } pc;

void main()
{
	uint gid = gl_GlobalInvocationID.x;
	if (gid >= pc.batch * NOUT)
		return;
	uint o = gid % NOUT, n = gid / NOUT;
	float acc = 0.0;
	uint end = NZ_OFF + row_ptr[ROW_OFF + o + 1];
	for (uint j = NZ_OFF + row_ptr[ROW_OFF + o]; j < end; j++)
		acc += val[j] * x[n * NIN + col_idx[j]];
	y[gid] = acc + bias[BIAS_OFF + o];
}
