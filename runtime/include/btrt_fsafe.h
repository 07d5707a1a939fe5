/* Safe output files of the generated program and profiler (--report,
 * --trace, --failure, the profiler's -o table; docs/runtime.md, "Output
 * files"). The contract is btc's (btc/util/fsafe.h, docs/conventions.md
 * "Writing files"):
 *  - the bytes go to a temporary file PATH.tmp.PID in the same directory,
 *    created with O_CREAT | O_EXCL | O_NOFOLLOW (mode 0644 less umask),
 *    then renamed over PATH: readers see the old file or the whole new one,
 *    never a partial or 0-byte one;
 *  - PATH is replaced only when it is absent or a regular file: a symbolic
 *    link, directory, character or block device, FIFO or socket is refused
 *    with an error naming it, and nothing is written through a link;
 *  - any write, flush or close error (ENOSPC, EIO, EFBIG ...) is reported
 *    with PATH and strerror, the temporary file is removed and the old
 *    PATH is left as it was; the caller must then exit non-zero. */
#ifndef BTRT_FSAFE_H
#define BTRT_FSAFE_H

#include <stdio.h>
#include <sys/stat.h>

#include "btrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An output file being written: f is a memory stream (NULL once closed)
 * whose bytes btrt_ofile_close writes to the temporary file with write(2),
 * so that the first error's errno is the one reported. Owned by the
 * caller; released by btrt_ofile_publish, btrt_ofile_commit or
 * btrt_ofile_discard. */
struct btrt_ofile {
	FILE *f;
	char *path; /* the final path (a copy) */
	char *tmp;  /* PATH.tmp.PID, or NULL once renamed or removed */
	int fd;     /* the temporary file, open until btrt_ofile_close */
	char *buf;  /* f's bytes */
	size_t len;
};

/* May path be created or replaced? Absent or a regular file; what names
 * the option ("--report") in the error. Returns 0, or -1 with err
 * (BTRT_E_INVAL). For use before a run, so that a bad output fails at
 * once instead of after it. */
int btrt_output_check(const char *what, const char *path, struct btrt_error *err);

/* Opens the temporary file of path (after btrt_output_check). Returns 0
 * with o->f open for writing, or -1 with err (BTRT_E_INVAL: path is not
 * replaceable; BTRT_E_SYS: the temporary file cannot be created) and o
 * cleared. */
int btrt_ofile_open(struct btrt_ofile *o, const char *path, struct btrt_error *err);

/* Flushes and closes o->f (o->f becomes NULL). Returns 0, or -1 with err
 * ("cannot write PATH: No space left on device (the file is unchanged)",
 * BTRT_E_SYS, err->code the errno) after removing the temporary file. */
int btrt_ofile_close(struct btrt_ofile *o, struct btrt_error *err);

/* Renames the closed temporary file over o->path (which must still be
 * absent or a regular file) and releases o. Returns 0, or -1 with err
 * (the temporary file removed, o released). */
int btrt_ofile_publish(struct btrt_ofile *o, struct btrt_error *err);

/* btrt_ofile_close, then btrt_ofile_publish. */
int btrt_ofile_commit(struct btrt_ofile *o, struct btrt_error *err);

/* Closes and removes the temporary file, releases o; PATH is unchanged.
 * A zeroed (= { 0 }) or released o is fine. */
void btrt_ofile_discard(struct btrt_ofile *o);

/* Writes buf[len] to path by the contract above. Returns 0, or -1 with
 * err. */
int btrt_write_file_atomic(const char *path, const void *buf, size_t len,
			   struct btrt_error *err);

#ifdef __cplusplus
}
#endif
/* What a file of mode m is, for messages: "a FIFO", "a directory", "a
 * symbolic link", ... ("a regular file" for one). Shared with btc's
 * util/fsafe.c, which keeps the same contract; a static string. */
static inline const char *btrt_file_kind(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return S_ISREG(m) ? "a regular file" : "not a regular file";
}

#endif
