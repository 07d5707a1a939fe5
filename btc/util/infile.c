/* Regular input files only (infile.h). */
#include "util/infile.h"

#include <btrt_fsafe.h> /* btrt_file_kind: the one wording for what a path is */

#include "util/diag.h"

#include <errno.h>
#include <fcntl.h>
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

FILE *btc_open_input(const char *path, const char *mode, struct btc_diag *d)
{
	const char *kind;
	FILE *f = btc_fopen_regular(path, mode, &kind);
	if (f)
		return f;
	if (kind)
		btc_error(d, (struct btc_loc){path, 0, 0}, "is %s, not a regular file", kind);
	else
		btc_error(d, (struct btc_loc){path, 0, 0}, "cannot open: %s", strerror(errno));
	return NULL;
}
