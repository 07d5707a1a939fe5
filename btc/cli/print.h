/* `btc check`: the model as text (app, device, profiling table). */
#ifndef BTC_CLI_PRINT_H
#define BTC_CLI_PRINT_H

#include <stdio.h>

#include "front/app.h"
#include "front/device.h"
#include "front/table.h"

/* Params, buffers (the TaskObject layout, KiB) and stages with their
 * kernels, reads and writes. */
void btc_cli_print_app(const struct btc_app *app, FILE *out);
/* The PUs: backend, cores or GPU. */
void btc_cli_print_device(const struct btc_device *dev, FILE *out);
/* Every mode of the table: stage x PU, ms; '-' where there is no kernel
 * or no time. */
void btc_cli_print_table(const struct btc_table *t, const struct btc_app *app,
			 const struct btc_device *dev, FILE *out);

#endif
