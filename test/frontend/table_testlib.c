/* The profiling-table suites' shared helpers (table_testlib.h). */
#include <stdio.h>
#include <stdlib.h>

#include "table_testlib.h"

const char demo3_app_text[] =
	"app: demo3\n"
	"buffers:\n  - {name: x, type: f32, count: 16}\n"
	"stages:\n"
	"  - {name: a, cpu: a_cpu, vulkan: [{shader: noop.comp, groups: [1]}]}\n"
	"  - {name: b, cpu: b_cpu, vulkan: [{shader: noop.comp, groups: [1]}]}\n"
	"  - {name: c, cpu: c_cpu, vulkan: [{shader: noop.comp, groups: [1]}]}\n";

int table_fixture_load(const char *app_path, const char *app_text, const char *dev_text,
		       struct btc_app **app, struct btc_device **dev)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	*app = btc_app_load(app_path, app_text, NULL, 0, &d);
	*dev = btc_device_load("dev.yaml", NULL, dev_text, &d);
	return !*app || !*dev;
}

char *table_text(const struct btc_table *t, const struct btc_app *app, const struct btc_device *dev)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	btc_table_write(t, app, dev, f);
	fclose(f);
	return text;
}

struct btc_table *table_round_trip(struct btc_table *t, const struct btc_app *app,
				   const struct btc_device *dev, enum btc_mode mode,
				   struct btc_diag *d, char **text)
{
	char *s = table_text(t, app, dev);
	btc_table_free(t);
	t = btc_table_load("t2.csv", s, app, dev, mode, d);
	if (text)
		*text = s;
	else
		free(s);
	return t;
}

void check_bad_tables(const struct bad_case *bad, size_t n, const struct btc_app *app,
		      const struct btc_device *dev)
{
	for (size_t i = 0; i < n; i++) {
		struct btc_diag d;
		btc_diag_init(&d, NULL);
		struct btc_table *t = btc_table_load("t.csv", bad[i].text, app, dev,
						     BTC_MODE_ISOLATED, &d);
		CU_ASSERT_PTR_NULL(t);
		btc_table_free(t);
		assert_first_error(&d, bad[i].name, bad[i].expect);
	}
}
