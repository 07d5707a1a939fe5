/* The profiling table reader (front/table.c), for the octree app on the
 * Pixel 7a (the seeds are its tables in data/profiles/): any text gives a
 * complete table or errors; a table written back reads back. */
#include <stdio.h>
#include <stdlib.h>

#include "btc_config.h"
#include "front/table.h"
#include "fuzz.h"

static struct btc_app *app;
static struct btc_device *dev;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	app = btc_app_load(BTC_SOURCE_ROOT "/apps/octree.yaml", NULL, NULL, 0, &d);
	dev = btc_device_load("pixel7a", BTC_SOURCE_ROOT "/devices", NULL, &d);
	if (!app || !dev)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!app)
		LLVMFuzzerInitialize(NULL, NULL);
	char *text = fuzz_text(data, size);
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	enum btc_mode mode = size & 1 ? BTC_MODE_INTERFERENCE : BTC_MODE_ISOLATED;
	struct btc_table *t = btc_table_load("fuzz.csv", text, app, dev, mode, &d);
	if (!t != (d.errors > 0))
		abort();
	if (t) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		btc_table_write(t, app, dev, f);
		fclose(f);
		struct btc_table *again = btc_table_load("again.csv", out, app, dev, mode, &d);
		if (!again)
			abort();
		btc_table_free(again);
		free(out);
	}
	btc_table_free(t);
	free(text);
	return 0;
}
