/* The expression parser (front/expr.c): any text gives a tree or one clear
 * error; a tree evaluates, renders as C and frees without a crash, and the
 * depth limit keeps every walk's recursion bounded. */
#include <stdlib.h>
#include <string.h>

#include "front/expr.h"
#include "fuzz.h"

static bool lookup(void *env, const char *name, int64_t *v)
{
	(void)env;
	if (!strcmp(name, "n"))
		*v = 1000;
	else if (!strcmp(name, "k"))
		*v = -7;
	else if (!strcmp(name, "i"))
		*v = 3;
	else
		return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_expr *e = btc_expr_parse(text, (struct btc_loc){"f", 1, 1}, &d);
	if (!e) {
		if (d.errors != 1)
			abort(); /* a failed parse reports exactly one error */
	} else {
		if (d.errors)
			abort();
		int64_t v;
		btc_expr_eval(e, lookup, NULL, &v, &d);
		btc_expr_check_names(e, lookup, NULL, &d);
		const char *const locals[] = {"i", NULL};
		free(btc_expr_to_c(e, "p->", locals));
		if (strcmp(btc_expr_text(e), text))
			abort();
		btc_expr_free(e);
	}
	free(text);
	return 0;
}
