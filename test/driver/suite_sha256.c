/* util/sha256: the FIPS 180-2 / NIST test vectors, a split update, and the
 * file identity used by provenance lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "util/sha256.h"

static void hex_of(const char *text, size_t n, const char *expect)
{
	char hex[65];
	btc_sha256_hex(text, n, hex);
	CU_ASSERT_STRING_EQUAL(hex, expect);
}

static void test_vectors(void)
{
	hex_of("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	hex_of("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	hex_of(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	const char *four = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
			   "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	hex_of(four, strlen(four), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_million_a(void)
{
	/* One million 'a', fed in uneven pieces: block boundaries anywhere. */
	struct btc_sha256 s;
	btc_sha256_init(&s);
	char buf[997];
	memset(buf, 'a', sizeof(buf));
	size_t left = 1000000;
	while (left) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);
		btc_sha256_update(&s, buf, n);
		left -= n;
	}
	unsigned char dg[32];
	btc_sha256_final(&s, dg);
	char hex[65];
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", dg[i]);
	CU_ASSERT_STRING_EQUAL(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_file_identity(void)
{
	char dir[] = "/tmp/btc-sha-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof(path), "%s/t\"x.csv", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("abc", f);
	fclose(f);
	char *id = btc_sha256_file_identity(path);
	CU_ASSERT_STRING_EQUAL(id, "file: \"t\\\"x.csv\", sha256: "
			       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	free(id);
	unlink(path);
	rmdir(dir);
	CU_ASSERT_PTR_NULL(btc_sha256_file_identity("/nonexistent/x.csv"));
}

int register_sha256_suite(void)
{
	CU_pSuite s = CU_add_suite("sha256", NULL, NULL);
	return !s || !CU_add_test(s, "FIPS vectors", test_vectors) ||
	       !CU_add_test(s, "one million a", test_million_a) ||
	       !CU_add_test(s, "file identity", test_file_identity);
}
