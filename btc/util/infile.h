/* Opening btc's own input files (apps, devices, tables, kernel sources):
 * regular files only. A FIFO, socket, device or directory given as one
 * would block btc in open() or read() forever (a FIFO with no writer, a
 * copy of /dev/zero) or be read twice differently (a source is hashed,
 * then compiled), so it is refused at once, named (issue 26, the hostile
 * sweep: docs/testing.md). */
#ifndef BTC_INFILE_H
#define BTC_INFILE_H

#include <stdio.h>

/* Opens path (a symbolic link to a regular file is followed) for reading
 * ("r" or "rb"; the stream is close-on-exec). The open never blocks: it is
 * O_NONBLOCK, cleared once fstat says the file is regular. Returns the
 * stream (caller fcloses), or NULL with errno set: from open(2) (ENOENT,
 * EACCES, ...), or EINVAL when the path is not a regular file, *kind (when
 * kind is not NULL) then naming what it is ("a FIFO", "a directory", ...,
 * btrt_file_kind's wording); *kind is NULL on any other error. */
FILE *btc_fopen_regular(const char *path, const char *mode, const char **kind);

#endif
