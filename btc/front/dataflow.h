/* Checks of an app's data flow between stages (`btc check`). */
#ifndef BTC_DATAFLOW_H
#define BTC_DATAFLOW_H

#include "front/app.h"
#include "util/diag.h"

/* Warns, at the stage's YAML line, for each buffer a stage reads that no
 * earlier stage writes but a later stage does: within one task the later
 * write comes after this read, so the stage reads what io.load put there
 * or a stale value of an earlier task in that TaskObject slot (stages
 * out of order, or a buffer missing from an earlier stage's `writes`).
 * A buffer no stage writes is the io's (input per task, or weights filled
 * once) and is not warned about. Returns the number of warnings. */
int btc_app_check_dataflow(const struct btc_app *app, struct btc_diag *d);

#endif
