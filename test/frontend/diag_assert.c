/* diag_assert.c: the front-end suites' check of a first diagnostic. */
#include <stdio.h>
#include <string.h>

#include "suites.h"

void assert_first_error(const struct btc_diag *d, const char *name,
			const char *expect)
{
	if (d->errors == 0 || strcmp(d->first, expect) != 0)
		fprintf(stderr, "\n  case %s:\n    expected: %s\n    got:      %s (%d errors)\n",
			name, expect, d->errors ? d->first : "(no error)", d->errors);
	CU_ASSERT(d->errors > 0);
	CU_ASSERT_STRING_EQUAL(d->first, expect);
}
