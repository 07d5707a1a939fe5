/* test_pcd.c: the PCD reader on good and bad input. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btc_config.h"
#include "pcd.h"
#include "suites.h"
#include "testutil.h"

#define PCD_DIR BTC_SOURCE_ROOT "/test/octree/pcd/"

/* the five finite points of the small test files, in file order */
static const float expect[5][3] = {
	{ 0.1f, 0.2f, 0.3f }, { -1.5f, 2.25f, 0.75f }, { 3.0f, -0.5f, 1.0f },
	{ 0.1f, 0.2f, 0.3f }, { 2.5f, 2.5f, -2.0f },
};

static void check_small(const char *file, const char *kind)
{
	struct pcd_cloud c;
	char err[256];
	int rc = pcd_read_file(file, 1000, &c, err, sizeof err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(c.n, 5);
	CU_ASSERT_EQUAL(c.n_declared, 6);
	CU_ASSERT_STRING_EQUAL(c.data_kind, kind);
	for (uint32_t i = 0; i < c.n && i < 5; i++)
		for (int a = 0; a < 3; a++)
			CU_ASSERT_EQUAL(c.xyzw[i * 4 + a], expect[i][a]);
	pcd_free(&c);
}

static void test_ascii(void) { check_small(PCD_DIR "ascii_ok.pcd", "ascii"); }
static void test_binary(void) { check_small(PCD_DIR "binary_ok.pcd", "binary"); }
static void test_compressed(void)
{
	check_small(PCD_DIR "compressed_ok.pcd", "binary_compressed");
}

static void expect_error(const char *file, const char *needle)
{
	struct pcd_cloud c;
	char err[256] = "";
	int rc = pcd_read_file(file, 307200, &c, err, sizeof err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_PTR_NULL(c.xyzw);
	if (!strstr(err, needle)) {
		fprintf(stderr, "\n  %s: error '%s' lacks '%s'\n", file, err, needle);
		CU_FAIL("unexpected error message");
	}
}

static void test_bad(void)
{
	expect_error(PCD_DIR "truncated.pcd", "truncated binary data");
	expect_error(PCD_DIR "wrong_points.pcd", "POINTS 5 does not match WIDTH*HEIGHT 307200");
	expect_error(PCD_DIR "corrupt_lzf.pcd", "corrupt LZF block");
	expect_error(PCD_DIR "unknown_data.pcd", "unknown DATA kind 'binary_lz4'");
	expect_error(PCD_DIR "no_such_file.pcd", "No such file");
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long l;
	*len = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	l = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)l);
	if (buf && fread(buf, 1, (size_t)l, f) != (size_t)l) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)l;
	return buf;
}

/* A real frame cut anywhere, or with its LZF block damaged, must fail
 * cleanly; POINTS above the limit is rejected before allocating. */
static void test_real_damaged(void)
{
	size_t len = 0;
	uint8_t *buf = slurp(btc_test_data("pointclouds/office1.pcd"), &len);
	struct pcd_cloud c;
	char err[256];
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL(pcd_parse(buf, len, 307200, &c, err, sizeof err), 0);
	CU_ASSERT_EQUAL(c.n, 254456);
	pcd_free(&c);
	static const size_t cuts[] = { 0, 10, 100, 199, 220, 230, 4096, 1000000 };
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		CU_ASSERT_EQUAL(pcd_parse(buf, cuts[i], 307200, &c, err, sizeof err), -1);
		CU_ASSERT(err[0] != '\0');
	}
	/* PCL pads the file after the LZF block: cut inside the block */
	const char *data = memmem(buf, len, "DATA binary_compressed\n", 23);
	uint32_t csize;
	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	size_t off = (size_t)(data - (const char *)buf) + 23;
	memcpy(&csize, buf + off, 4);
	CU_ASSERT_EQUAL(pcd_parse(buf, off + 8 + csize - 1, 307200, &c, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "truncated binary_compressed"));
	CU_ASSERT_EQUAL(pcd_parse(buf, len, 1000, &c, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "exceeds the limit"));
	/* damage the middle of the LZF stream */
	for (size_t k = len / 2; k < len / 2 + 64; k++)
		buf[k] ^= 0xff;
	CU_ASSERT_EQUAL(pcd_parse(buf, len, 307200, &c, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "corrupt LZF block"));
	free(buf);
}

static void test_header_errors(void)
{
	static const struct {
		const char *text, *needle;
	} cases[] = {
		{ "FIELDS x y\nSIZE 4 4\nTYPE F F\nWIDTH 1\nPOINTS 1\nDATA ascii\n1 2\n", "no field 'z'" },
		{ "FIELDS x y z\nSIZE 4 4\nTYPE F F F\nWIDTH 1\nDATA ascii\n", "SIZE has 2 values" },
		{ "FIELDS x y z\nSIZE 4 4 3\nTYPE F F F\nWIDTH 1\nDATA ascii\n", "SIZE '3'" },
		{ "FIELDS x y z\nSIZE 4 4 4\nTYPE F F I\nWIDTH 1\nDATA ascii\n1 2 3\n", "field 'z' must be TYPE F" },
		{ "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 2\nDATA ascii\n1 2 3\n", "truncated ascii data" },
		{ "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 1\nDATA ascii\n1 2\n", "2 values, expected 3" },
		{ "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 1\nDATA ascii\n1 2 zz\n", "bad number" },
		{ "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 1\nFOO 3\nDATA ascii\n1 2 3\n", "unknown header keyword 'FOO'" },
		{ "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 1\n", "no DATA line" },
		{ "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH -1\nDATA ascii\n", "bad WIDTH" },
		{ "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 1\nDATA binary_compressed\n\1\0\0", "no block sizes" },
		{ "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 4294967295\nHEIGHT 4294967295\nDATA ascii\n",
		  "WIDTH*HEIGHT 18446744065119617025 exceeds the limit" },
		{ "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 70000\nHEIGHT 70000\nPOINTS 1\nDATA ascii\n",
		  "POINTS 1 does not match WIDTH*HEIGHT 4900000000" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pcd_cloud c;
		char err[256] = "";
		int rc = pcd_parse((const uint8_t *)cases[i].text, strlen(cases[i].text), 1000,
				   &c, err, sizeof err);
		CU_ASSERT_EQUAL(rc, -1);
		if (!strstr(err, cases[i].needle)) {
			fprintf(stderr, "\n  case %zu: error '%s' lacks '%s'\n", i, err, cases[i].needle);
			CU_FAIL("unexpected error message");
		}
	}
}

/* An LZF block that claims to expand beyond what LZF can (88:1) is
 * rejected before anything is allocated for it. */
static void test_lzf_ratio(void)
{
	static const char head[] = "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 100\n"
				   "DATA binary_compressed\n";
	uint8_t buf[sizeof head + 16];
	uint32_t sizes[2] = { 1, 1200 };   /* 1 byte -> 100 points x 12 bytes */
	struct pcd_cloud c;
	char err[256] = "";
	memcpy(buf, head, sizeof head - 1);
	memcpy(buf + sizeof head - 1, sizes, 8);
	buf[sizeof head - 1 + 8] = 0;
	CU_ASSERT_EQUAL(pcd_parse(buf, sizeof head - 1 + 9, 1000, &c, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "corrupt LZF block: 1 bytes cannot expand to 1200"));
}

static void test_real_frames(void)
{
	static const struct {
		const char *file;
		uint32_t n;
	} frames[] = {
		{ "frame_20121214T142255.814212.pcd", 271575 },
		{ "milk_cartoon_all_small_clorox.pcd", 241407 },
		{ "table_scene_mug_stereo_textured.pcd", 209280 },
	};
	for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
		char path[512];
		struct pcd_cloud c;
		char err[256];
		snprintf(path, sizeof path, "%s/%s", btc_test_data("pointclouds"), frames[i].file);
		CU_ASSERT_EQUAL_FATAL(pcd_read_file(path, 307200, &c, err, sizeof err), 0);
		CU_ASSERT_EQUAL(c.n, frames[i].n);
		CU_ASSERT_EQUAL(c.width, 640);
		CU_ASSERT_EQUAL(c.height, 480);
		pcd_free(&c);
	}
}

/* the real frames of the last two tests */
static int init(void)
{
	return btc_test_need_data("pointclouds");
}

int octree_pcd_register(void)
{
	CU_pSuite s = CU_add_suite("pcd", init, NULL);
	if (!s || !CU_add_test(s, "ascii, any field order, NaN dropped", test_ascii) ||
	    !CU_add_test(s, "binary, padding field, double x", test_binary) ||
	    !CU_add_test(s, "binary_compressed", test_compressed) ||
	    !CU_add_test(s, "bad files: clear errors", test_bad) ||
	    !CU_add_test(s, "header errors", test_header_errors) ||
	    !CU_add_test(s, "impossible LZF ratio", test_lzf_ratio) ||
	    !CU_add_test(s, "real frame cut or damaged", test_real_damaged) ||
	    !CU_add_test(s, "real Kinect frames", test_real_frames))
		return -1;
	return 0;
}
