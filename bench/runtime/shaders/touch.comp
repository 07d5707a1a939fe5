#version 450
// One tiny dispatch: measures the runtime's per-task cost of a Vulkan chunk.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Push { uint n; } pc;
void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < pc.n)
		data[i] += 1u;
}
