/* The device loader (front/device.c): any YAML gives a valid device or
 * errors; a valid device written back as YAML (btc device) reads back to
 * the same PUs, whatever its strings hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/device.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_device *dev = btc_device_load("fuzz.yaml", NULL, text, &d);
	if (!dev != (d.errors > 0))
		abort();
	if (dev) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		btc_device_write_yaml(dev, f);
		fclose(f);
		struct btc_device *again = btc_device_load("again.yaml", NULL, out, &d);
		if (!again || again->n_pus != dev->n_pus || strcmp(again->name, dev->name))
			abort(); /* the written YAML must read back */
		for (int i = 0; i < dev->n_pus; i++)
			if (strcmp(again->pus[i].name, dev->pus[i].name) ||
			    (dev->pus[i].gpu_name &&
			     strcmp(again->pus[i].gpu_name, dev->pus[i].gpu_name)))
				abort();
		btc_device_free(again);
		free(out);
	}
	btc_device_free(dev);
	free(text);
	return 0;
}
