/* The job's directory: its name (build/btc/APP-DEV unless given), its
 * claim for one btc before anything is written in it, and the sweep of
 * what an earlier job left (docs/conventions.md, "Writing files"). */
#ifndef BTC_DRIVER_CLAIM_H
#define BTC_DRIVER_CLAIM_H

#include <stdbool.h>

#include "front/app.h"
#include "front/device.h"
#include "util/diag.h"

/* Default project directory "build/btc/APP-DEV" (caller frees); NULL when
 * the app or device name cannot be part of a file name (driver/files.h). */
char *btc_job_default_dir(const struct btc_app *app, const struct btc_device *dev);

/* The project directory: out_dir when not NULL, else the default; NULL
 * (reported) when the app or device name cannot be part of a file name
 * (checked either way: the names become file names inside the project). */
char *btc_job_dir(const char *out_dir, const struct btc_app *app, const struct btc_device *dev,
		  struct btc_diag *d);

/* Claims project directory dir for this btc before anything is written
 * in it: checked (btc_output_dir_check), created, locked (btc_dir_lock:
 * "another btc (pid N) is using DIR" when held), and the temporary files
 * of dead btc processes removed. Reports and returns false. */
bool btc_job_dir_claim(const char *dir, struct btc_diag *d);

/* Removes what an earlier job left in dir that this one makes anew
 * (trace.json, timeline.svg, fit.svg, profile.svg, run.json), so that an
 * interrupted job leaves nothing to be taken for its own. */
void btc_job_dir_sweep(const char *dir);

#endif
