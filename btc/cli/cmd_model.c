/* The model commands: `btc check`, `btc devices`, `btc device`,
 * `btc header`. */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/print.h"
#include "front/cores_here.h"
#include "front/dataflow.h"
#include "front/table.h"
#include "gen/gen.h"
#include "gen/shader_check.h"
#include "gen/symbol_check.h"
#include "util/paths.h"

/* ", 2 warnings" (static storage). */
static const char *warnings_text(int n)
{
	static char buf[32];
	snprintf(buf, sizeof(buf), ", %d warning%s", n, n == 1 ? "" : "s");
	return buf;
}

int btc_cmd_check(const struct btc_cli_options *o)
{
	if (o->table && !o->device) {
		fputs("btc: --table needs --device\n", stderr);
		btc_cli_command_usage(BTC_CMD_CHECK, stderr);
		return 2;
	}
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_cli_load_app(o, &d);
	struct btc_device *dev = o->device ? btc_cli_load_device(o->device, o, &d) : NULL;
	struct btc_table *t = NULL;
	if (app && dev && o->table)
		t = btc_table_load(o->table, NULL, app, dev, (enum btc_mode)o->mode, &d);
	if (app)
		btc_cli_print_app(app, stdout);
	if (app)
		btc_gen_check_shaders(app, &d);
	if (app)
		btc_gen_check_symbols(app, &d);
	if (app)
		btc_app_check_dataflow(app, &d);
	if (dev)
		btc_cli_print_device(dev, stdout);
	if (dev)
		btc_device_check_cores_here(dev, false, NULL, 0, &d);
	if (app && dev) {
		for (int s = 0; s < app->n_stages; s++) {
			bool any = false;
			for (int p = 0; p < dev->n_pus; p++)
				any |= btc_stage_has(&app->stages[s], dev->pus[p].kind);
			if (!any)
				btc_error(&d, app->stages[s].loc,
					  "stage '%s' has no kernel for any PU of device '%s'",
					  app->stages[s].name, dev->name);
		}
	}
	if (t)
		btc_cli_print_table(t, app, dev, stdout);
	if (d.errors)
		fprintf(stderr, "btc: %d error%s%s\n", d.errors, d.errors == 1 ? "" : "s",
			d.warnings ? warnings_text(d.warnings) : "");
	else
		printf("ok%s\n", d.warnings ? warnings_text(d.warnings) : "");
	btc_table_free(t);
	btc_device_free(dev);
	btc_app_free(app);
	return d.errors ? 1 : 0;
}

int btc_cmd_devices(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	return btc_device_list(btc_device_dir(), stdout, &d) ? 1 : 0;
}

/* `btc device --format json`: the description (btc_device_to_json) and
 * "service": the service cores of the generated program
 * (btc_gen_service_cores: pu, io_core (the io source's), io_sink_core,
 * gpu_core, chunk_cores: the cores
 * the owning PU's chunks run on), null when no core is given up. */
static void print_device_json(const struct btc_device *dev)
{
	cJSON *j = btc_device_to_json(dev);
	struct btc_gen_service s = btc_gen_service_cores(dev, 1, 1);
	if (s.pu < 0) {
		cJSON_AddNullToObject(j, "service");
	} else {
		cJSON *o = cJSON_AddObjectToObject(j, "service");
		cJSON_AddStringToObject(o, "pu", dev->pus[s.pu].name);
		cJSON_AddNumberToObject(o, "io_core", s.io_core);
		cJSON_AddNumberToObject(o, "io_sink_core", s.io_sink_core);
		cJSON_AddNumberToObject(o, "gpu_core", s.gpu_core);
		const int *pin;
		int n = btc_pu_pinnable(&dev->pus[s.pu], &pin);
		cJSON *a = cJSON_AddArrayToObject(o, "chunk_cores");
		for (int c = 0; c < n; c++)
			if (pin[c] != s.io_core && pin[c] != s.io_sink_core && pin[c] != s.gpu_core)
				cJSON_AddItemToArray(a, cJSON_CreateNumber(pin[c]));
	}
	char *text = cJSON_Print(j);
	puts(text);
	cJSON_free(text);
	cJSON_Delete(j);
}

int btc_cmd_device(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_device *dev = btc_cli_load_device(o->positional[0], o, &d);
	if (!dev)
		return 1;
	if (o->format == 1)
		print_device_json(dev);
	else
		btc_device_write_yaml(dev, stdout);
	btc_device_free(dev);
	return 0;
}

int btc_cmd_header(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	/* Only the YAML: the shaders and sources are written from this output. */
	struct btc_app *app = btc_app_load_layout(o->positional[0], o->defines.v, o->defines.n, &d);
	if (!app)
		return 1;
	struct btc_out out;
	btc_out_init(&out);
	if (o->glsl)
		btc_gen_layout_glsl(&out, app);
	else
		btc_gen_task_header(&out, app);
	bool ok = true;
	if (o->output)
		ok = btc_out_write_file(&out, o->output, &d);
	else
		fputs(out.buf, stdout);
	btc_out_free(&out);
	btc_app_free(app);
	return ok ? 0 : 1;
}
