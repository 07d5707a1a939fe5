#include "util/str.h"

#include <ctype.h>
#include <string.h>

#include "util/diag.h"

int btc_str_qsort_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *btc_str_upper(const char *s)
{
	char *u = btc_xstrdup(s);
	for (char *p = u; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return u;
}

bool btc_str_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

const char *btc_base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

char *btc_dir_name(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return btc_xstrdup(".");
	if (s == path)
		return btc_xstrdup("/");
	return btc_xasprintf("%.*s", (int)(s - path), path);
}
