#include "util/out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsafe.h"
#include "util/infile.h"

void btc_out_init(struct btc_out *o)
{
	memset(o, 0, sizeof(*o));
	o->cap = 4096;
	o->buf = btc_xmalloc(o->cap);
	o->buf[0] = '\0';
}

void btc_out_free(struct btc_out *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

static void reserve(struct btc_out *o, size_t more)
{
	if (o->len + more + 1 <= o->cap)
		return;
	while (o->len + more + 1 > o->cap)
		o->cap *= 2;
	o->buf = btc_xrealloc(o->buf, o->cap);
}

static void vappend(struct btc_out *o, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		btc_panic("bad format '%s'", fmt);
	reserve(o, (size_t)n);
	vsnprintf(o->buf + o->len, (size_t)n + 1, fmt, ap);
	o->len += (size_t)n;
}

void btc_outf(struct btc_out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vappend(o, fmt, ap);
	va_end(ap);
}

void btc_outl(struct btc_out *o, const char *fmt, ...)
{
	va_list ap;
	reserve(o, (size_t)o->indent);
	for (int i = 0; i < o->indent; i++)
		o->buf[o->len++] = '\t';
	o->buf[o->len] = '\0';
	va_start(ap, fmt);
	vappend(o, fmt, ap);
	va_end(ap);
	btc_out_puts(o, "\n");
}

void btc_out_puts(struct btc_out *o, const char *s)
{
	size_t n = strlen(s);
	reserve(o, n);
	memcpy(o->buf + o->len, s, n + 1);
	o->len += n;
}

void btc_out_nl(struct btc_out *o)
{
	btc_out_puts(o, "\n");
}

char *btc_read_file(const char *path, size_t *len)
{
	FILE *f = btc_fopen_regular(path, "rb", NULL);
	if (!f)
		return NULL;
	size_t cap = 8192, n = 0;
	char *buf = btc_xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0) {
			cap *= 2;
			buf = btc_xrealloc(buf, cap);
		}
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

bool btc_out_write_file(const struct btc_out *o, const char *path, struct btc_diag *d)
{
	return btc_write_file_atomic(path, o->buf, o->len, BTC_WRITE_KEEP_SAME, d);
}

bool btc_mkdirs(const char *path, struct btc_diag *d)
{
	char *p = btc_xstrdup(path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			btc_error(d, (struct btc_loc){p, 0, 0}, "cannot create directory: %s",
				  strerror(errno));
			free(p);
			return false;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return true;
}
