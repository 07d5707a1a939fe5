#include "util/num.h"

#include <string.h>

bool btc_parse_int_n(const char *s, int n, long lo, long hi, long *out)
{
	int i = 0;
	bool neg = false;
	if (n > 0 && s[0] == '-' && lo < 0) {
		neg = true;
		i = 1;
	}
	if (i == n)
		return false;
	/* accumulate as a negative number: covers LONG_MIN as well */
	long v = 0;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		int digit = s[i] - '0';
		if (v < (-__LONG_MAX__ - 1 + digit) / 10)
			return false; /* overflow */
		v = v * 10 - digit;
	}
	if (!neg) {
		if (v == -__LONG_MAX__ - 1)
			return false;
		v = -v;
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool btc_parse_int(const char *s, long lo, long hi, long *out)
{
	size_t n = strlen(s);
	if (n > 64)
		return false;
	return btc_parse_int_n(s, (int)n, lo, hi, out);
}

bool btc_is_decimal(const char *s)
{
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	int digits = 0;
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, digits++;
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}
