/* The app loader (front/app.c over front/yamldoc.c): any YAML gives a
 * valid app or errors, never a crash, a leak or a partial result. The
 * text is named as if it lived in apps/, so that the seeds' shader and
 * source paths resolve. */
#include <stdlib.h>

#include "btc_config.h"
#include "front/app.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_app *app = btc_app_load(BTC_SOURCE_ROOT "/apps/fuzz.yaml", text,
					   NULL, 0, &d);
	if (!app != (d.errors > 0))
		abort(); /* NULL exactly when an error was reported */
	btc_app_free(app);
	free(text);
	return 0;
}
