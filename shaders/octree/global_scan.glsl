// global_scan.glsl: one workgroup scans scratch[base .. base+count)
// in place (exclusive) and returns the total (in every invocation).
// Needs `scratch` (binding vk_scratch) and common.glsl.
uint global_scan(uint base, uint count)
{
	uint t = gl_LocalInvocationID.x;
	uint per = (count + WG - 1u) / WG;
	uint lo = min(count, t * per), hi = min(count, lo + per);
	uint sum = 0u;
	for (uint k = lo; k < hi; k++)
		sum += scratch[base + k];
	uint acc = wg_scan(sum);
	for (uint k = lo; k < hi; k++) {
		uint v = scratch[base + k];
		scratch[base + k] = acc;
		acc += v;
	}
	return s_total;
}
