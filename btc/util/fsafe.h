/* Safe output (docs/conventions.md, "Writing files"): every file btc
 * writes goes through btc_write_file_atomic; output paths are checked
 * before the long phases (btc_output_check); an output or cache directory
 * is held by one btc at a time (btc_dir_lock); temporary files of dead
 * processes are swept (btc_remove_stale_tmp).
 *
 * The contract, to be mirrored by the generated program's writers (btrt):
 *  - the bytes go to a temporary file PATH.tmp.PID in the same directory,
 *    created with O_CREAT | O_EXCL | O_NOFOLLOW (mode 0644 less umask),
 *    then renamed over PATH: readers see the old file or the whole new one;
 *  - PATH is replaced only when it is absent or a regular file: a symbolic
 *    link, directory, character or block device, FIFO or socket is refused
 *    with an error naming it, and nothing is written through a link;
 *  - any write, fsync or close error (ENOSPC, EIO, EFBIG ...) is reported
 *    with PATH and strerror, the temporary file is removed and the old
 *    PATH is left as it was; the caller must then exit non-zero. */
#ifndef BTC_FSAFE_H
#define BTC_FSAFE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/diag.h"

enum {
	/* Leave PATH untouched when it already holds exactly these bytes
	 * (keeps build systems from rebuilding). */
	BTC_WRITE_KEEP_SAME = 1,
	/* fsync the file before the rename and the directory after it. */
	BTC_WRITE_SYNC = 2,
};

/* Writes buf[len] to path by the contract above; flags: BTC_WRITE_*.
 * Returns false after reporting the error to d (location: path). */
bool btc_write_file_atomic(const char *path, const void *buf, size_t len, unsigned flags,
			   struct btc_diag *d);

struct cJSON;
/* Writes the JSON tree root (a report) to path: cJSON's formatted print
 * and a newline, by btc_write_file_atomic with flags (BTC_WRITE_*). Takes
 * root and deletes it. Returns false after reporting the error to d
 * (location: path); out of memory is btc_panic's, as btc_x* allocators'. */
bool btc_write_json(const char *path, struct cJSON *root, unsigned flags, struct btc_diag *d);

/* May btc create or replace the file path? It must be absent or a regular
 * file (not a link, device, FIFO, socket or directory), and its directory
 * must exist (or be creatable: the nearest existing ancestor) and be
 * writable. what names the option ("--report"). Reports and returns false
 * otherwise. For use before long phases, so that a bad output fails in
 * seconds, not after the profile. */
bool btc_output_check(const char *what, const char *path, struct btc_diag *d);

/* btc_output_check for a directory btc will create or fill (-o, --cache):
 * absent (with a writable nearest existing ancestor) or a writable
 * directory (the name the user gives may be a link to one). */
bool btc_output_dir_check(const char *what, const char *dir, struct btc_diag *d);

/* Removes the files of directory dir named *.tmp.PID or *.tmp.PID.EXT (btc's temporary
 * files, and the generated program's) whose process PID no longer exists
 * (kill(PID, 0) fails with ESRCH). Regular files only; not recursive.
 * Returns how many went. */
int btc_remove_stale_tmp(const char *dir);

/* Takes the lock of directory dir (an flock(2) on dir/.btc.lock, which
 * holds the holder's pid, emptied at exit), held until btc exits. wait: block until the
 * other btc is done (printing that it waits) instead of failing. A
 * directory this process already holds is fine. When another btc holds
 * it and !wait: error "another btc (pid N) is using DIR", false. */
bool btc_dir_lock(const char *dir, bool wait, struct btc_diag *d);

/* Releases this process's lock of dir (btc_dir_lock), and removes the
 * lock file when this process created it: for a run refused before it
 * wrote anything there (the user's own files in -o, no --force), which
 * must leave no artefact behind. A directory not held: nothing. */
void btc_dir_unlock(const char *dir);

#endif
