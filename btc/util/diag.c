#include "util/diag.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_text[] = {
#define BTC_X_TEXT(code, text) [code] = text,
	BTC_STATUS_LIST(BTC_X_TEXT)
#undef BTC_X_TEXT
};

const char *btc_strerror(enum btc_status status)
{
	if ((unsigned)status >= BTC_STATUS_COUNT)
		return "unknown status";
	return status_text[status];
}

void btc_diag_init(struct btc_diag *d, FILE *stream)
{
	memset(d, 0, sizeof(*d));
	d->stream = stream;
}

static void report(struct btc_diag *d, struct btc_loc loc, const char *kind, const char *fmt,
		   va_list ap)
{
	char msg[400], line[sizeof(d->last)];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (loc.file && loc.line > 0 && loc.col > 0)
		snprintf(line, sizeof(line), "%s:%d:%d: %s: %s", loc.file, loc.line, loc.col, kind,
			 msg);
	else if (loc.file && loc.line > 0)
		snprintf(line, sizeof(line), "%s:%d: %s: %s", loc.file, loc.line, kind, msg);
	else if (loc.file)
		snprintf(line, sizeof(line), "%s: %s: %s", loc.file, kind, msg);
	else
		snprintf(line, sizeof(line), "%s: %s", kind, msg);
	bool is_note = !strcmp(kind, "note");
	if (!is_note) { /* a note keeps first and last as they are */
		memcpy(d->last, line, sizeof(d->last));
		if (d->errors + d->warnings == 1)
			memcpy(d->first, line, sizeof(d->first));
	}
	if (!strcmp(kind, "error") && !loc.file) {
		d->hiding = 0; /* errors of no file (options) are few: never capped */
	} else if (!strcmp(kind, "error")) {
		if (strncmp(loc.file, d->cap_file, sizeof(d->cap_file) - 1)) {
			btc_diag_flush(d);
			snprintf(d->cap_file, sizeof(d->cap_file), "%s", loc.file);
		}
		d->hiding = ++d->cap_count > BTC_DIAG_MAX_PER_FILE;
		d->cap_hidden += d->hiding;
	} else if (!is_note) {
		d->hiding = 0;
	}
	if (d->stream && !d->hiding)
		fprintf(d->stream, "%s\n", line);
}

void btc_diag_flush(struct btc_diag *d)
{
	if (d->cap_hidden && d->stream) {
		fprintf(d->stream, "%s: ... and %d more error%s\n", d->cap_file, d->cap_hidden,
			d->cap_hidden == 1 ? "" : "s");
	}
	d->cap_file[0] = '\0';
	d->cap_count = d->cap_hidden = d->hiding = 0;
}

void btc_verror(struct btc_diag *d, struct btc_loc loc, const char *fmt, va_list ap)
{
	d->errors++;
	report(d, loc, "error", fmt, ap);
}

void btc_error(struct btc_diag *d, struct btc_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	btc_verror(d, loc, fmt, ap);
	va_end(ap);
}

void btc_warning(struct btc_diag *d, struct btc_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	d->warnings++;
	report(d, loc, "warning", fmt, ap);
	va_end(ap);
}

void btc_note(struct btc_diag *d, struct btc_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(d, loc, "note", fmt, ap);
	va_end(ap);
}

_Noreturn void btc_panic_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "btc: internal error at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *btc_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		btc_panic("out of memory (%zu bytes)", n);
	return p;
}

void *btc_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		btc_panic("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *btc_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		btc_panic("out of memory (%zu bytes)", n);
	return p;
}

char *btc_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(btc_xmalloc(n), s, n);
}

char *btc_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		btc_panic("bad format");
	char *s = btc_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}
