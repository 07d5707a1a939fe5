/* Where a reference-layout table comes from: that layout numbers stages
 * and names neither app nor stages, so the repository's folder convention
 * (data/profiles/DEVICE/APP/MODE.csv) is the only record of its app. */
#ifndef BTC_TABLE_ORIGIN_H
#define BTC_TABLE_ORIGIN_H

#include "front/app.h"
#include "util/diag.h"

/* For a table at PATH under a folder named `profiles` as
 * .../profiles/DEVICE/APPDIR/FILE: reports an error at path when APPDIR
 * (with '-' read as '_') is not app->name, naming both; any other path
 * is not checked (its `# app:` line, when present, is). Returns false
 * after an error. */
bool btc_table_check_ref_origin(const char *path, const struct btc_app *app, struct btc_diag *d);

#endif
