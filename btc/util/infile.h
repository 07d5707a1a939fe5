/* Opening btc's own input files (apps, devices, tables, kernel sources,
 * the JSON reports and traces it reads back): regular files only. A FIFO, socket, device or directory given as one
 * would block btc in open() or read() forever (a FIFO with no writer, a
 * copy of /dev/zero) or be read twice differently (a source is hashed,
 * then compiled), so it is refused at once, named (issue 26, the hostile
 * sweep: docs/testing.md). */
#ifndef BTC_INFILE_H
#define BTC_INFILE_H

#include <stddef.h>
#include <stdio.h>

struct btc_diag;
struct cJSON;

/* Opens path (a symbolic link to a regular file is followed) for reading
 * ("r" or "rb"; the stream is close-on-exec). The open never blocks: it is
 * O_NONBLOCK, cleared once fstat says the file is regular. Returns the
 * stream (caller fcloses), or NULL with errno set: from open(2) (ENOENT,
 * EACCES, ...), or EINVAL when the path is not a regular file, *kind (when
 * kind is not NULL) then naming what it is ("a FIFO", "a directory", ...,
 * btrt_file_kind's wording); *kind is NULL on any other error. */
FILE *btc_fopen_regular(const char *path, const char *mode, const char **kind);

/* Opens one of btc's input files (an app, a device, a profiling table) as
 * btc_fopen_regular does, reporting a failure through d at `path` (no line):
 * "is a FIFO, not a regular file" when it is not a regular file, else
 * "cannot open: REASON" (strerror of open's errno). mode is "r" or "rb".
 * Returns the stream (caller fcloses) or NULL after one error in d. */
FILE *btc_open_input(const char *path, const char *mode, struct btc_diag *d);

/* The JSON tree of the whole file at path (a report, a trace, the
 * program's --failure file): read by btc_read_file (regular files only),
 * parsed by btc_parse_json. Returns the tree (free with cJSON_Delete), or
 * NULL with errno set: from reading (ENOENT, EACCES, EIO, ...; EINVAL when
 * path is not a regular file) or EBADMSG when the text is not JSON. When d
 * is not NULL the failure is also reported at path, after "WHAT: " when
 * what is not NULL ("not a btc report (JSON)"): "is a FIFO, not a regular
 * file", "cannot read: REASON", or btc_parse_json's error; with d NULL it
 * is silent (a file that may rightly be absent). */
struct cJSON *btc_read_json(const char *path, const char *what, struct btc_diag *d);

/* Parses text[0..len) (a file's contents, read from path) as JSON; what
 * follows the first value is ignored, as cJSON_Parse does. Returns the tree
 * (free with cJSON_Delete), or NULL with errno EBADMSG, then reported to d
 * when d is not NULL: "path:LINE:COL: error: [WHAT: ]not valid JSON" at the
 * byte where cJSON stopped (1-based; a tab counts one column), or "path:
 * error: [WHAT: ]empty, not JSON" for a text of white space only. */
struct cJSON *btc_parse_json(const char *path, const char *text, size_t len, const char *what,
			     struct btc_diag *d);

#endif
