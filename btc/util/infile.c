/* Regular input files only (infile.h). */
#include "util/infile.h"

#include <btrt_fsafe.h> /* btrt_file_kind: the one wording for what a path is */

#include "util/diag.h"
#include "util/out.h" /* btc_read_file */

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *btc_fopen_regular(const char *path, const char *mode, const char **kind)
{
	if (kind)
		*kind = NULL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		int e = errno; /* a socket: ENXIO; name it */
		if (kind && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			*kind = btrt_file_kind(st.st_mode);
			e = EINVAL;
		}
		errno = e;
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		if (kind)
			*kind = btrt_file_kind(st.st_mode);
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	FILE *f = fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ? NULL : fdopen(fd, mode);
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

/* Reports that path could not be opened or read ("open", "read"; errno
 * err), after "WHAT: " when what is not NULL: "is KIND, not a regular file"
 * when kind is not NULL, else "cannot VERB: REASON". */
static void report_unreadable(const char *path, const char *what, const char *kind,
			      const char *verb, int err, struct btc_diag *d)
{
	const char *sep = what ? ": " : "";
	what = what ? what : "";
	if (kind)
		btc_error(d, (struct btc_loc){path, 0, 0}, "%s%sis %s, not a regular file", what,
			  sep, kind);
	else
		btc_error(d, (struct btc_loc){path, 0, 0}, "%s%scannot %s: %s", what, sep, verb,
			  strerror(err));
}

FILE *btc_open_input(const char *path, const char *mode, struct btc_diag *d)
{
	const char *kind;
	FILE *f = btc_fopen_regular(path, mode, &kind);
	if (!f)
		report_unreadable(path, NULL, kind, "open", errno, d);
	return f;
}

cJSON *btc_read_json(const char *path, const char *what, struct btc_diag *d)
{
	size_t len = 0;
	char *text = btc_read_file(path, &len);
	if (!text) {
		int err = errno;
		struct stat st;
		if (d)
			report_unreadable(path, what,
					  err == EINVAL && stat(path, &st) == 0 &&
							  !S_ISREG(st.st_mode)
						  ? btrt_file_kind(st.st_mode)
						  : NULL,
					  "read", err, d);
		errno = err;
		return NULL;
	}
	cJSON *j = btc_parse_json(path, text, len, what, d);
	free(text);
	if (!j)
		errno = EBADMSG;
	return j;
}

cJSON *btc_parse_json(const char *path, const char *text, size_t len, const char *what,
		      struct btc_diag *d)
{
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (j)
		return j;
	if (d) {
		const char *sep = what ? ": " : "";
		what = what ? what : "";
		size_t blank = 0;
		while (blank < len && strchr(" \t\r\n", text[blank]) && text[blank])
			blank++;
		struct btc_loc at = {path, 1, 1};
		if (!end || end < text || end > text + len)
			end = text;
		for (const char *c = text; c < end; c++) {
			at.col = *c == '\n' ? 1 : at.col + 1;
			at.line += *c == '\n';
		}
		if (blank == len)
			btc_error(d, (struct btc_loc){path, 0, 0}, "%s%sempty, not JSON", what, sep);
		else
			btc_error(d, at, "%s%snot valid JSON", what, sep);
	}
	errno = EBADMSG;
	return NULL;
}
