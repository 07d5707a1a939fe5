/* Error messages of the octree app's readers and reference. */
#ifndef OCTREE_ERRMSG_H
#define OCTREE_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Formats a message into err[errlen] (when err is not NULL) and returns
 * -1, so that callers can `return octree_fail(err, errlen, ...)`. */
static inline int octree_fail(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static inline int octree_fail(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

#endif
