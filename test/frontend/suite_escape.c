/* util/escape: every string quoted for C, meson or YAML reads back as the
 * same bytes (C: compiled and run; YAML: parsed by btc's own loader). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/yamldoc.h"
#include "suites.h"
#include "util/escape.h"

static const char *const hostile[] = {
	"plain",
	"NVIDIA H100 80GB HBM3",
	"a \"quoted\" \\ string",
	"x\" + 0 * system(\"touch /tmp/PWNED\") + 0 * sizeof \"",
	"trigraph ?\?= ?\?/ ?\?'",
	"tab\tnewline\ncr\r bell\a del\x7f",
	"octal \001" "7 digit after escape",
	"utf-8: Mali\xe2\x84\xa2 G710",
	"C1 control \xc2\x86 NEL \xc2\x85 LS \xe2\x80\xa8 BOM \xef\xbb\xbf U+FFFE \xef\xbf\xbe",
	"Zen 4: \xc2\x86_64\npus:\n  - {nam", /* fuzz_device found this one */
	"comment */ /* inside",
	"it's: a # yaml {problem}, [x]",
	"- leading dash",
	"trailing space ",
	"null",
	"~",
	"",
};
#define N_HOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static void test_c_literals(void)
{
	char *ab = btc_c_string_literal("ab");
	CU_ASSERT_STRING_EQUAL(ab, "\"ab\"");
	free(ab);
	char dir[] = "/tmp/btc-escape-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char *src = btc_xasprintf("%s/t.c", dir), *exe = btc_xasprintf("%s/t", dir);
	FILE *f = fopen(src, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("#include <stdio.h>\nstatic const char *const s[] = {\n", f);
	for (size_t i = 0; i < N_HOSTILE; i++) {
		char *lit = btc_c_string_literal(hostile[i]);
		char *com = btc_c_comment(hostile[i]);
		fprintf(f, "\t%s, /* %s */\n", lit, com);
		free(lit);
		free(com);
	}
	fputs("};\nint main(void)\n{\n\tfor (unsigned i = 0; i < sizeof(s) / sizeof(s[0]); i++) {\n"
	      "\t\tfor (const char *p = s[i]; *p; p++)\n\t\t\tprintf(\"%02x\", (unsigned char)*p);\n"
	      "\t\tputchar('\\n');\n\t}\n\treturn 0;\n}\n", f);
	fclose(f);
	char *cmd = btc_xasprintf("cc -std=c11 -Wall -Wextra -Werror -trigraphs -o %s %s", exe, src);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	free(cmd);
	FILE *p = popen(exe, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	char line[1024];
	for (size_t i = 0; i < N_HOSTILE; i++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof(line), p));
		line[strcspn(line, "\n")] = '\0';
		char want[1024] = "";
		for (const char *c = hostile[i]; *c; c++)
			sprintf(want + strlen(want), "%02x", (unsigned char)*c);
		if (strcmp(line, want))
			fprintf(stderr, "\n    literal %zu: got %s, want %s\n", i, line, want);
		CU_ASSERT_STRING_EQUAL(line, want);
	}
	CU_ASSERT_EQUAL(pclose(p), 0);
	cmd = btc_xasprintf("rm -rf %s", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	free(cmd);
	free(src);
	free(exe);
}

static void test_comment_and_meson(void)
{
	char *c = btc_c_comment("a */ b /* c \\\nd");
	CU_ASSERT_STRING_EQUAL(c, "a * / b / * c /?d");
	free(c);
	char *m = btc_meson_string("it's a \\ path\n");
	CU_ASSERT_STRING_EQUAL(m, "'it\\'s a \\\\ path\\n'");
	free(m);
	m = btc_meson_string("app/x\x01y");
	CU_ASSERT_STRING_EQUAL(m, "'app/x\\x01y'");
	free(m);
}

static void test_yaml_scalars(void)
{
	char *q = btc_yaml_scalar("Cortex-A55");
	CU_ASSERT_STRING_EQUAL(q, "Cortex-A55"); /* plain when safe */
	free(q);
	for (size_t i = 0; i < N_HOSTILE; i++) {
		q = btc_yaml_scalar(hostile[i]);
		char *doc = btc_xasprintf("key: %s\n", q);
		struct btc_yaml y;
		struct btc_diag d;
		btc_diag_init(&d, stderr);
		CU_ASSERT_TRUE_FATAL(btc_yaml_load(&y, "t.yaml", doc, &d));
		yaml_node_t *root = btc_yaml_root(&y);
		CU_ASSERT_EQUAL_FATAL(root->type, YAML_MAPPING_NODE);
		yaml_node_t *v = yaml_document_get_node(&y.doc, root->data.mapping.pairs.start->value);
		CU_ASSERT_EQUAL_FATAL(v->type, YAML_SCALAR_NODE);
		if (strcmp((const char *)v->data.scalar.value, hostile[i]))
			fprintf(stderr, "\n    yaml %zu: %s read back as '%s'\n", i, q,
				(const char *)v->data.scalar.value);
		CU_ASSERT_STRING_EQUAL((const char *)v->data.scalar.value, hostile[i]);
		btc_yaml_free(&y);
		free(doc);
		free(q);
	}
}

int register_escape_suite(void)
{
	CU_pSuite s = CU_add_suite("escape", NULL, NULL);
	return !s || !CU_add_test(s, "C string literals", test_c_literals) ||
	       !CU_add_test(s, "comments and meson strings", test_comment_and_meson) ||
	       !CU_add_test(s, "YAML scalars", test_yaml_scalars);
}
