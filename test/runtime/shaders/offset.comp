#version 450
// Toy stage 'offset' of the btrt runtime tests (see test/runtime/toy.h).
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer A { uint a[]; };
layout(std430, set = 0, binding = 2) buffer B { uint b[]; };
layout(std430, set = 0, binding = 3) buffer Out { uint outp[]; };
layout(std430, set = 0, binding = 4) buffer Meta { uint meta[]; };
layout(push_constant) uniform Push { uint n; uint offset; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i == 0u)
		meta[1] += 1u;
	if (i >= pc.n)
		return;
	b[i] = a[i] + pc.offset;
}
