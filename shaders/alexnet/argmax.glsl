// pred[n] = index of the largest of logits[n][0..9] (first on ties).
// The including wrapper defines IN_BINDING (logits) and OUT_BINDING (pred).
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = IN_BINDING) readonly buffer In { float logits[]; };
layout(std430, set = 0, binding = OUT_BINDING) writeonly buffer Out { int pred[]; };
layout(push_constant) uniform Push { uint batch; } pc;

void main()
{
	uint n = gl_GlobalInvocationID.x;
	if (n >= pc.batch)
		return;
	int best = 0;
	for (int k = 1; k < 10; k++)
		if (logits[n * 10 + k] > logits[n * 10 + best])
			best = k;
	pred[n] = best;
}
