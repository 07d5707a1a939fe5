#include "util/escape.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/diag.h"

/* Each input byte becomes at most 4 output bytes, plus quotes and NUL. */
static char *alloc_for(const char *s)
{
	return btc_xmalloc(strlen(s) * 4 + 3);
}

char *btc_c_string_literal(const char *s)
{
	char *out = alloc_for(s), *p = out;
	*p++ = '"';
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '"':
			p += sprintf(p, "\\\"");
			break;
		case '\\':
			p += sprintf(p, "\\\\");
			break;
		case '?':
			p += sprintf(p, "\\?");
			break;
		case '\n':
			p += sprintf(p, "\\n");
			break;
		case '\t':
			p += sprintf(p, "\\t");
			break;
		default:
			if (*c < 0x20 || *c >= 0x7f)
				p += sprintf(p, "\\%03o", *c);
			else
				*p++ = (char)*c;
		}
	}
	*p++ = '"';
	*p = '\0';
	return out;
}

char *btc_c_comment(const char *s)
{
	char *out = alloc_for(s), *p = out;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c >= 0x7f)
			*p++ = '?';
		else if (*c == '\\')
			*p++ = '/';
		else if ((*c == '/' && p > out && p[-1] == '*') ||
			 (*c == '*' && p > out && p[-1] == '/')) {
			*p++ = ' ';
			*p++ = (char)*c;
		} else
			*p++ = (char)*c;
	}
	*p = '\0';
	return out;
}

char *btc_meson_string(const char *s)
{
	char *out = alloc_for(s), *p = out;
	*p++ = '\'';
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '\\' || *c == '\'') {
			*p++ = '\\';
			*p++ = (char)*c;
		} else if (*c == '\n')
			p += sprintf(p, "\\n");
		else if (*c < 0x20 || *c == 0x7f)
			p += sprintf(p, "\\x%02x", *c);
		else
			*p++ = (char)*c;
	}
	*p++ = '\'';
	*p = '\0';
	return out;
}

/* Plain scalars btc writes: letters, digits and "_./+()-" with inner
 * single spaces, starting with a letter, a digit, '_' or '/', not
 * looking like anything but a string to a YAML 1.1 reader we care about
 * (btc reads every scalar as a string, so "true" and "12" are safe). */
static bool plain_ok(const char *s)
{
	if (!*s || s[0] == '-' || s[0] == '.' || s[0] == '(' || s[0] == ')' || s[0] == '+' ||
	    s[0] == ' ')
		return false;
	if (!strcmp(s, "~") || !strcasecmp(s, "null"))
		return false;
	size_t n = strlen(s);
	if (s[n - 1] == ' ')
		return false;
	for (const char *c = s; *c; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || strchr("_./+()-", *c) ||
			  (*c == ' ' && c[1] != ' ');
		if (!ok)
			return false;
	}
	return true;
}

/* The code point of the UTF-8 sequence at s and its length in *len, or -1
 * (with *len = 1) where s holds no well-formed, shortest-form sequence. */
static long utf8_decode(const unsigned char *s, int *len)
{
	*len = 1;
	if (s[0] < 0x80)
		return s[0];
	int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	if (!n || s[0] >= 0xf8)
		return -1;
	long cp = s[0] & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	static const long least[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = n;
	return cp;
}

/* YAML 1.1's printable set, which libyaml's reader enforces on its input. */
static bool yaml_printable(long cp)
{
	return cp == 0x09 || cp == 0x0a || cp == 0x0d || (cp >= 0x20 && cp <= 0x7e) ||
	       cp == 0x85 || (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) ||
	       (cp >= 0x10000 && cp <= 0x10ffff);
}

/* Printable, but a line break (folded inside a quoted scalar) or a BOM. */
static bool yaml_break_or_bom(long cp)
{
	return cp == 0x0d || cp == 0x85 || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff;
}

char *btc_yaml_scalar(const char *s)
{
	if (plain_ok(s))
		return btc_xstrdup(s);
	/* Worst case: each byte as \xHH (4 bytes), or a 2-byte sequence as
	 * \uHHHH (3 per byte); 4-byte ones are printable and pass through. */
	char *out = alloc_for(s), *p = out;
	*p++ = '"';
	for (const unsigned char *c = (const unsigned char *)s; *c;) {
		int len;
		long cp = utf8_decode(c, &len);
		if (cp == '"' || cp == '\\') {
			*p++ = '\\';
			*p++ = (char)cp;
		} else if (cp == '\n')
			p += sprintf(p, "\\n");
		else if (cp == '\t')
			p += sprintf(p, "\\t");
		else if (cp < 0) /* not UTF-8: the byte as U+00HH */
			p += sprintf(p, "\\x%02x", *c);
		else if (!yaml_printable(cp) || yaml_break_or_bom(cp))
			p += cp < 0x100 ? sprintf(p, "\\x%02lx", cp) : sprintf(p, "\\u%04lx", cp);
		else {
			memcpy(p, c, (size_t)len);
			p += len;
		}
		c += len;
	}
	*p++ = '"';
	*p = '\0';
	return out;
}
