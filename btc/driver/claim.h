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

/* Makes the project of a `btc gen` (one app or several) in dir
 * (docs/conventions.md, "Writing files"): dir's trailing '/' are cut (in
 * place, so that the caller names it so too). A new dir is published
 * whole: make(GEN_DIR, arg) writes into the sibling DIR.tmp.PID, claimed
 * (btc_job_dir_claim), which is then renamed to dir ("the directory
 * appeared meanwhile (another btc?)" when a second btc made dir since);
 * when the claim, make or the rename fails the sibling is removed, so
 * neither dir nor a half-made sibling is left. An existing dir is claimed
 * (locked) and make writes into it in place. make reports its errors to
 * d and returns false. Returns true when dir holds the whole project,
 * false after diagnostics. */
bool btc_job_dir_make(char *dir, bool (*make)(const char *dir, void *arg), void *arg,
		      struct btc_diag *d);

/* Removes what an earlier job left in dir that this one makes anew
 * (trace.json, timeline.svg, fit.svg, profile.svg, run.json), so that an
 * interrupted job leaves nothing to be taken for its own. */
void btc_job_dir_sweep(const char *dir);

#endif
