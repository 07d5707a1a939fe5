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

int btc_str_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 100;
	int row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}
