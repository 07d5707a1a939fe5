/* The profiling-table cache: which file holds the table for an (app,
 * device, kernel sources) triple. The key hashes contents, never paths, so
 * the same inputs find the same table from any directory. */
#ifndef BTC_DRIVER_CACHE_H
#define BTC_DRIVER_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "front/app.h"
#include "front/device.h"
#include "front/table.h"
#include "util/diag.h"

/* FNV-1a over everything that changes the timings: btc's version, the app
 * YAML, its params, kernel sources and include directories, shaders, the
 * runtime and profiler sources, and the whole device description. Files
 * count by name (last component) and contents. */
uint64_t btc_cache_key(const struct btc_app *app, const struct btc_device *dev);

/* The cache directory when --cache gives none. */
#define BTC_CACHE_DEFAULT_DIR "build/btc/cache"

/* "CACHE_DIR/APP-DEV-KEY.csv" (caller frees), or NULL (reported) when the
 * app or device name cannot be part of a file name. */
char *btc_cache_table_path(const char *cache_dir, const struct btc_app *app,
			   const struct btc_device *dev, struct btc_diag *d);

/* The table mode that fitted a main job's measurements best (report
 * fit.mode, cross-validated), kept beside a cached table as
 * "TABLE.fit-mode" (one line: the mode's name) so that the next main job
 * on the same table ranks its merged candidates by it (docs/scheduler.md,
 * "Candidates from several tables"). read: false when there is none or
 * it does not name a mode. write: atomic; a failure is a warning (the
 * ranking falls back to the default), never an error. */
bool btc_cache_fit_mode_read(const char *table_path, enum btc_mode *m);
void btc_cache_fit_mode_write(const char *table_path, const char *mode, struct btc_diag *d);

#endif
