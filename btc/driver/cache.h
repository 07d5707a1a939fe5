/* The profiling-table cache: which file holds the table for an (app,
 * device, kernel sources) triple. The key hashes contents, never paths, so
 * the same inputs find the same table from any directory. */
#ifndef BTC_DRIVER_CACHE_H
#define BTC_DRIVER_CACHE_H

#include <stdint.h>

#include "front/app.h"
#include "front/device.h"
#include "util/diag.h"

/* FNV-1a over everything that changes the timings: btc's version, the app
 * YAML, its params, kernel sources and include directories, shaders, the
 * runtime and profiler sources, and the whole device description. Files
 * count by name (last component) and contents. */
uint64_t btc_cache_key(const struct btc_app *app, const struct btc_device *dev);

/* "CACHE_DIR/APP-DEV-KEY.csv" (caller frees), or NULL (reported) when the
 * app or device name cannot be part of a file name. */
char *btc_cache_table_path(const char *cache_dir, const struct btc_app *app,
			   const struct btc_device *dev, struct btc_diag *d);

#endif
