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

char *btc_yaml_scalar(const char *s)
{
	if (plain_ok(s))
		return btc_xstrdup(s);
	char *out = alloc_for(s), *p = out;
	*p++ = '"';
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\') {
			*p++ = '\\';
			*p++ = (char)*c;
		} else if (*c == '\n')
			p += sprintf(p, "\\n");
		else if (*c == '\t')
			p += sprintf(p, "\\t");
		else if (*c < 0x20 || *c == 0x7f)
			p += sprintf(p, "\\x%02x", *c);
		else
			*p++ = (char)*c;
	}
	*p++ = '"';
	*p = '\0';
	return out;
}
