/* The driver's file-system safety: btc writes and deletes only under the
 * output and cache directories. File names are built from checked names
 * only, and a directory is removed in-process, confined to its root. */
#ifndef BTC_DRIVER_FILES_H
#define BTC_DRIVER_FILES_H

#include <stdbool.h>

#include "util/diag.h"

/* Is name usable as one component of a file name: not empty, no '/', no
 * "..", not starting with '.' or '-', printable ASCII without spaces?
 * `what` names it in the error ("device name"). Reports and returns false
 * otherwise. */
bool btc_files_check_name(const char *what, const char *name, struct btc_diag *d);

/* Removes root/sub (a path relative to root without ".." components, e.g.
 * "build") and everything under it, in-process, never following symbolic
 * links. Refuses (reports, returns false) unless the directory resolves
 * strictly under the resolved root. A missing root/sub is success. */
bool btc_files_remove_under(const char *root, const char *sub, struct btc_diag *d);

#endif
