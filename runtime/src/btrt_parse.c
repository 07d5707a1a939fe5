/* Checked number parsing (btrt.h): the options of the generated programs
 * and the runtime's environment variables. */
#include "btrt.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* Is s a number's text at all: non-empty, no leading blank (strtol and
 * strtod skip those silently). */
static int starts_number(const char *s)
{
	return s && *s && !isspace((unsigned char)*s);
}

int btrt_parse_long(const char *what, const char *s, long min, long max, long *out,
		    struct btrt_error *err)
{
	if (!starts_number(s))
		return btrt_error_set(err, BTRT_E_INVAL, 0, "%s: '%s' is not an integer", what,
				      s ? s : "");
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "%s: '%s' is not an integer", what, s);
	if (errno == ERANGE || v < min || v > max)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "%s: '%s' is out of range %ld..%ld",
				      what, s, min, max);
	*out = v;
	return 0;
}

int btrt_parse_double(const char *what, const char *s, double min, double max, double *out,
		      struct btrt_error *err)
{
	/* strtod also reads "inf", "nan" and "0x1p3": none is an option's number */
	int plain = starts_number(s);
	for (const char *c = s; plain && *c; c++)
		plain = isdigit((unsigned char)*c) || *c == '.' || *c == 'e' || *c == 'E' ||
			*c == '+' || *c == '-';
	char *end = NULL;
	double v = 0;
	if (plain)
		v = strtod(s, &end); /* an overflow is HUGE_VAL, an underflow about 0 */
	if (!plain || end == s || *end)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "%s: '%s' is not a number", what,
				      s ? s : "");
	if (!isfinite(v) || v < min || v > max)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "%s: '%s' is out of range %g..%g",
				      what, s, min, max);
	*out = v;
	return 0;
}
