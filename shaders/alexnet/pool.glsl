// 2x2 max-pool, stride 2. One invocation per output element.
// The including wrapper defines IN_BINDING, OUT_BINDING, C and SIDE (input side).
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = IN_BINDING) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = OUT_BINDING) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Push { uint batch; } pc;

void main()
{
	const uint OS = SIDE / 2;
	uint gid = gl_GlobalInvocationID.x;
	if (gid >= pc.batch * C * OS * OS)
		return;
	uint ox = gid % OS, oy = (gid / OS) % OS, plane = gid / (OS * OS);
	uint i = plane * SIDE * SIDE + 2 * oy * SIDE + 2 * ox;
	y[gid] = max(max(x[i], x[i + 1]), max(x[i + SIDE], x[i + SIDE + 1]));
}
