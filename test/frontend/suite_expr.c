#include <stdlib.h>
#include <string.h>

#include "front/expr.h"
#include "suites.h"

static bool lookup(void *env, const char *name, int64_t *v)
{
	(void)env;
	if (!strcmp(name, "n")) {
		*v = 1000;
		return true;
	}
	if (!strcmp(name, "k")) {
		*v = 7;
		return true;
	}
	return false;
}

static int64_t eval_ok(const char *text)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_expr *e = btc_expr_parse(text, (struct btc_loc){"t", 1, 1}, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	int64_t v = -12345;
	CU_ASSERT(btc_expr_eval(e, lookup, NULL, &v, &d));
	CU_ASSERT_EQUAL(d.errors, 0);
	btc_expr_free(e);
	return v;
}

static void test_values(void)
{
	CU_ASSERT_EQUAL(eval_ok("1 + 2 * 3"), 7);
	CU_ASSERT_EQUAL(eval_ok("(1 + 2) * 3"), 9);
	CU_ASSERT_EQUAL(eval_ok("n / k"), 142);
	CU_ASSERT_EQUAL(eval_ok("n % k"), 6);
	CU_ASSERT_EQUAL(eval_ok("ceil_div(n, k)"), 143);
	CU_ASSERT_EQUAL(eval_ok("ceil_div(n, 8)"), 125);
	CU_ASSERT_EQUAL(eval_ok("ceil_div(-7, 2)"), -3);
	CU_ASSERT_EQUAL(eval_ok("min(n, k) + max(n, k)"), 1007);
	CU_ASSERT_EQUAL(eval_ok("-n + 3"), -997);
	CU_ASSERT_EQUAL(eval_ok("--k"), 7);
	CU_ASSERT_EQUAL(eval_ok("10 - 4 - 3"), 3);
	CU_ASSERT_EQUAL(eval_ok("100 / 10 / 5"), 2);
	CU_ASSERT_EQUAL(eval_ok("  n*4  "), 4000);
}

static const struct bad_case bad[] = {
	{"empty", "", "t:1:5: error: unexpected end of expression"},
	{"trailing op", "n *", "t:1:8: error: unexpected end of expression"},
	{"bad char", "n # 2", "t:1:7: error: unexpected '#' after expression"},
	{"unclosed", "(n + 1", "t:1:11: error: expected ')'"},
	{"unknown fn", "sqrt(n)", "t:1:5: error: unknown function 'sqrt' (expected ceil_div, min or max)"},
	{"one arg", "min(n)", "t:1:10: error: expected ',' in call"},
	{"bad separator", "min(n; 2)", "t:1:10: error: expected ',' in call"},
	{"cut call", "min(n", "t:1:10: error: unexpected end of expression in call (quote expressions that contain ',' inside [ ] or { })"},
	{"junk after", "n 2", "t:1:7: error: unexpected '2' after expression"},
	{"undefined", "n + m", "t:1:9: error: undefined name 'm' in expression"},
	{"div zero", "n / (k - 7)", "t:1:7: error: division by zero in expression"},
	{"mod zero", "n % 0", "t:1:7: error: division by zero in expression"},
	{"ceil zero", "ceil_div(n, 0)", "t:1:5: error: division by zero in expression"},
	{"overflow mul", "n * 9223372036854775807", "t:1:7: error: integer overflow in expression"},
	{"overflow add", "9223372036854775807 + 1", "t:1:25: error: integer overflow in expression"},
	{"literal range", "99999999999999999999", "t:1:5: error: integer literal out of range"},
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct btc_diag d;
		btc_diag_init(&d, NULL);
		/* The expression starts at column 5 of line 1. */
		struct btc_expr *e = btc_expr_parse(bad[i].text, (struct btc_loc){"t", 1, 5}, &d);
		if (e) {
			int64_t v;
			CU_ASSERT_FALSE(btc_expr_eval(e, lookup, NULL, &v, &d));
			btc_expr_free(e);
		}
		assert_first_error(&d, bad[i].name, bad[i].expect);
	}
}

static void test_to_c(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_expr *e = btc_expr_parse("ceil_div(n * 4, 256) + -i",
					    (struct btc_loc){"t", 1, 1}, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	const char *const locals[] = {"i", NULL};
	char *c = btc_expr_to_c(e, "p->", locals);
	CU_ASSERT_STRING_EQUAL(c, "(BTRT_CEIL_DIV((p->n * INT64_C(4)), INT64_C(256)) + (-i))");
	free(c);
	btc_expr_free(e);
}

/* Builds a string of `n` copies of `unit` between `head` and `tail`. */
static char *repeat(const char *head, const char *unit, size_t n,
		    const char *mid, const char *tail, const char *unit2)
{
	size_t len = strlen(head) + n * (strlen(unit) + strlen(unit2)) +
		     strlen(mid) + strlen(tail) + 1;
	char *s = malloc(len), *p = s;
	p = stpcpy(p, head);
	for (size_t i = 0; i < n; i++)
		p = stpcpy(p, unit);
	p = stpcpy(p, mid);
	for (size_t i = 0; i < n; i++)
		p = stpcpy(p, unit2);
	stpcpy(p, tail);
	return s;
}

static void expect_parse_error(char *text, const char *name, const char *expect)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_expr *e = btc_expr_parse(text, (struct btc_loc){"t", 1, 1}, &d);
	CU_ASSERT_PTR_NULL(e);
	btc_expr_free(e);
	assert_first_error(&d, name, expect);
	CU_ASSERT_EQUAL(d.errors, 1);
	free(text);
}

/* Hostile sizes end in a clear error, never in a stack overflow: depth and
 * length are bounded (BTC_EXPR_MAX_DEPTH, BTC_EXPR_MAX_TEXT). */
static void test_limits(void)
{
	/* Within the limits: 200 parentheses, 200 minus signs, 255 terms. */
	char *s = repeat("", "(", 200, "n", "", ")");
	CU_ASSERT_EQUAL(eval_ok(s), 1000);
	free(s);
	s = repeat("", "--", 100, "k", "", "");
	CU_ASSERT_EQUAL(eval_ok(s), 7);
	free(s);
	s = repeat("1", "+1", 255, "", "", "");
	CU_ASSERT_EQUAL(eval_ok(s), 256);
	free(s);

	/* Past them: each case is as large as the 64 KiB text limit allows,
	 * or larger. */
	expect_parse_error(repeat("", "(", 60000, "1", "", ")"), "60000 parentheses",
			   "t:1:1: error: expression too long (120001 bytes; at most 65536)");
	expect_parse_error(repeat("", "(", 30000, "1", "", ")"), "30000 parentheses",
			   "t:1:257: error: expression nested too deeply (more than 256 levels)");
	expect_parse_error(repeat("", "-", 1000000, "1", "", ""), "a million minus signs",
			   "t:1:1: error: expression too long (1000001 bytes; at most 65536)");
	expect_parse_error(repeat("", "-", 65000, "1", "", ""), "65000 minus signs",
			   "t:1:257: error: expression nested too deeply (more than 256 levels)");
	expect_parse_error(repeat("1", "+1", 2000000, "", "", ""), "2 million terms",
			   "t:1:1: error: expression too long (4000001 bytes; at most 65536)");
	expect_parse_error(repeat("1", "+1", 32000, "", "", ""), "32000 terms",
			   "t:1:512: error: expression nested too deeply (more than 256 levels)");
	expect_parse_error(repeat("", "min(1, ", 8000, "1", "", ")"), "8000 calls",
			   "t:1:1793: error: expression nested too deeply (more than 256 levels)");
}

int register_expr_suite(void)
{
	CU_pSuite s = CU_add_suite("expr", NULL, NULL);
	return !s || !CU_add_test(s, "values", test_values) ||
	       !CU_add_test(s, "bad expressions", test_bad) ||
	       !CU_add_test(s, "render as C", test_to_c) ||
	       !CU_add_test(s, "depth and length limits", test_limits);
}
