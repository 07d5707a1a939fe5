/* driver/files: names that may become file names, and a removal that never
 * leaves its root (symbolic links, "..", a root/sub that points away). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/files.h"
#include "suites.h"

static char tmp[] = "/tmp/btc-files-XXXXXX";

static int setup(void)
{
	return mkdtemp(tmp) ? 0 : 1;
}

static int cleanup(void)
{
	char *cmd = btc_xasprintf("rm -rf '%s'", tmp); /* the test's own scratch dir */
	int rc = system(cmd);
	free(cmd);
	return rc != 0;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("x\n", f);
	fclose(f);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static void test_names(void)
{
	static const char *const good[] = {"host", "vecadd", "jetson-orin-nano", "alexnet_dense", "a.b"};
	static const char *const bad[] = {"", "../victim", "../../../../victim", "a/b", "..", ".hidden",
					  "-rf", "a b", "x\ny", "a..b"};
	struct btc_diag d;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		btc_diag_init(&d, NULL);
		CU_ASSERT_TRUE(btc_files_check_name("device name", good[i], &d));
		CU_ASSERT_EQUAL(d.errors, 0);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		btc_diag_init(&d, NULL);
		CU_ASSERT_FALSE(btc_files_check_name("device name", bad[i], &d));
		CU_ASSERT_EQUAL(d.errors, 1);
	}
	btc_diag_init(&d, NULL);
	btc_files_check_name("device name", "../../victim", &d);
	CU_ASSERT_STRING_EQUAL(d.first, "error: device name '../../victim' contains '/': it cannot be part of a file name");
}

static void test_remove_tree(void)
{
	char *root = btc_xasprintf("%s/p1", tmp), *p;
	mkdir(root, 0755);
	p = btc_xasprintf("%s/build", root); mkdir(p, 0755); free(p);
	p = btc_xasprintf("%s/build/sub", root); mkdir(p, 0755); free(p);
	p = btc_xasprintf("%s/build/sub/f.o", root); touch(p); free(p);
	/* A link inside to a file outside: the link goes, the file stays. */
	char *outside = btc_xasprintf("%s/precious", tmp);
	touch(outside);
	p = btc_xasprintf("%s/build/link", root);
	CU_ASSERT_EQUAL(symlink(outside, p), 0);
	free(p);
	p = btc_xasprintf("%s/kept.c", root); touch(p);
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE(btc_files_remove_under(root, "build", &d));
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_TRUE(exists(p));
	free(p);
	p = btc_xasprintf("%s/build", root);
	CU_ASSERT_FALSE(exists(p));
	free(p);
	CU_ASSERT_TRUE(exists(outside));
	/* Missing: nothing to do. */
	CU_ASSERT_TRUE(btc_files_remove_under(root, "build", &d));
	free(outside);
	free(root);
}

static void test_refusals(void)
{
	char *root = btc_xasprintf("%s/p2", tmp), *victim = btc_xasprintf("%s/victim", tmp), *p;
	mkdir(root, 0755);
	mkdir(victim, 0755);
	p = btc_xasprintf("%s/meson.build", victim); touch(p); free(p);
	/* root/build is a link to a directory outside the root. */
	p = btc_xasprintf("%s/build", root);
	CU_ASSERT_EQUAL(symlink(victim, p), 0);
	free(p);
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_FALSE(btc_files_remove_under(root, "build", &d));
	CU_ASSERT_FALSE(btc_files_remove_under(root, "../victim", &d));
	CU_ASSERT_FALSE(btc_files_remove_under(root, "/tmp", &d));
	CU_ASSERT_FALSE(btc_files_remove_under(root, "", &d));
	CU_ASSERT_EQUAL(d.errors, 4);
	p = btc_xasprintf("%s/meson.build", victim);
	CU_ASSERT_TRUE(exists(p));
	free(p);
	free(victim);
	free(root);
}

int register_files_suite(void)
{
	CU_pSuite s = CU_add_suite("files", setup, cleanup);
	return !s || !CU_add_test(s, "names", test_names) ||
	       !CU_add_test(s, "remove a tree", test_remove_tree) ||
	       !CU_add_test(s, "refusals", test_refusals);
}
