/* fuzz_pcd.c: libFuzzer / AFL++ target for the PCD reader (pcd_parse).
 * Any input must give either a cloud whose points are all finite and at
 * most POINTS many, or a clean error message; never a crash, a leak or an
 * out-of-bounds access (run under ASan/UBSan). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcd_cloud c;
	char err[256];
	if (pcd_parse(data, size, 1u << 20, &c, err, sizeof err)) {
		if (!memchr(err, '\0', sizeof err) || err[0] == '\0')
			abort(); /* every failure must say why */
		return 0;
	}
	if (c.n > c.n_declared)
		abort();
	for (uint32_t i = 0; i < c.n * 4; i++)
		if (!isfinite(c.xyzw[i]))
			abort();
	pcd_free(&c);
	return 0;
}
