/* The program's and profiler's output files (btrt_fsafe.h, issue 26
 * finding 2 and 5 on the runtime side): a whole new file or the old one,
 * never a device, FIFO, directory or a link's target replaced, and a write
 * error (EFBIG under RLIMIT_FSIZE, as ENOSPC on a full disk) named with
 * the file and the reason, the old file left whole. */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <btrt_fsafe.h>

#include "suites.h"

static char dir[] = "/tmp/btrt-fsafe-XXXXXX";

static int setup(void)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void)
{
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *in_dir(const char *name)
{
	static char p[4][256];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
	return p[k];
}

/* The whole of path (NUL-terminated, static), or "" when unreadable. */
static const char *slurp(const char *path)
{
	static char buf[4096];
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		buf[n] = 0;
		fclose(f);
	}
	return buf;
}

/* Files of dir whose name holds ".tmp.". */
static int tmp_files(void)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

static void test_whole_or_old(void)
{
	struct btrt_error err;
	btrt_error_clear(&err);
	const char *p = in_dir("report.json");
	CU_ASSERT_EQUAL(btrt_write_file_atomic(p, "new\n", 4, &err), 0);
	CU_ASSERT_STRING_EQUAL(slurp(p), "new\n");
	/* written, closed, then discarded: the old file stays */
	struct btrt_ofile o;
	CU_ASSERT_EQUAL_FATAL(btrt_ofile_open(&o, p, &err), 0);
	fputs("half", o.f);
	CU_ASSERT_EQUAL(tmp_files(), 1);
	CU_ASSERT_STRING_EQUAL(slurp(p), "new\n");
	CU_ASSERT_EQUAL(btrt_ofile_close(&o, &err), 0);
	btrt_ofile_discard(&o);
	CU_ASSERT_STRING_EQUAL(slurp(p), "new\n");
	CU_ASSERT_EQUAL(tmp_files(), 0);
	/* published: the new bytes replace it */
	CU_ASSERT_EQUAL_FATAL(btrt_ofile_open(&o, p, &err), 0);
	fputs("newer\n", o.f);
	CU_ASSERT_EQUAL(btrt_ofile_commit(&o, &err), 0);
	CU_ASSERT_STRING_EQUAL(slurp(p), "newer\n");
	CU_ASSERT_EQUAL(tmp_files(), 0);
	btrt_ofile_discard(&o); /* released: harmless */
}

/* write: also try to write it (never for a real device: were the check
 * broken, a test run as root would replace it). */
static void expect_refused(const char *path, const char *kind, int write)
{
	struct btrt_error err;
	btrt_error_clear(&err);
	CU_ASSERT_EQUAL(btrt_output_check("--report", path, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--report"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, kind));
	if (!write)
		return;
	btrt_error_clear(&err);
	CU_ASSERT_EQUAL(btrt_write_file_atomic(path, "x\n", 2, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, kind));
	CU_ASSERT_EQUAL(tmp_files(), 0);
}

static void test_refuses(void)
{
	/* /dev/null itself: the check alone (btrt_ofile_open makes it first) */
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(lstat("/dev/null", &st), 0);
	expect_refused("/dev/null", "a character device", 0);
	CU_ASSERT_EQUAL(lstat("/dev/null", &st), 0);
	CU_ASSERT(S_ISCHR(st.st_mode));
	const char *fifo = in_dir("fifo");
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	expect_refused(fifo, "a FIFO", 1);
	const char *sub = in_dir("sub");
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
	expect_refused(sub, "a directory", 1);
	/* a link: its target keeps its bytes, the link stays a link */
	const char *target = in_dir("target"), *link = in_dir("link");
	struct btrt_error err;
	CU_ASSERT_EQUAL_FATAL(btrt_write_file_atomic(target, "mine\n", 5, &err), 0);
	CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
	expect_refused(link, "a symbolic link", 1);
	CU_ASSERT_STRING_EQUAL(slurp(target), "mine\n");
	CU_ASSERT_EQUAL(lstat(link, &st), 0);
	CU_ASSERT(S_ISLNK(st.st_mode));
	/* a missing directory: the error says the file and why */
	btrt_error_clear(&err);
	CU_ASSERT_EQUAL(btrt_write_file_atomic(in_dir("no/such/x.json"), "x", 1, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no/such/x.json"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, strerror(ENOENT)));
}

/* In a child: RLIMIT_FSIZE of 1 KiB (write fails with EFBIG, as a full
 * disk's with ENOSPC) over a 64 KiB table written through the stream;
 * exit 0 when the write failed naming the file and the reason, and the
 * old file is whole with no temporary file left. */
static int full_child(const char *path)
{
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit r = { 1024, 1024 };
	if (setrlimit(RLIMIT_FSIZE, &r) != 0)
		return 2;
	struct btrt_error err;
	btrt_error_clear(&err);
	struct btrt_ofile o;
	if (btrt_ofile_open(&o, path, &err))
		return 3;
	for (int i = 0; i < 4096; i++)
		fprintf(o.f, "stage%d,cpu,isolated,1.000,0.010,30\n", i);
	if (btrt_ofile_commit(&o, &err) != -1)
		return 4;
	if (!strstr(err.msg, path) || !strstr(err.msg, strerror(EFBIG)) || err.kind != BTRT_E_SYS)
		return 5;
	if (strcmp(slurp(path), "old\n") || tmp_files())
		return 6;
	return 0;
}

static void test_full_disk(void)
{
	const char *p = in_dir("table.csv");
	struct btrt_error err;
	CU_ASSERT_EQUAL_FATAL(btrt_write_file_atomic(p, "old\n", 4, &err), 0);
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(full_child(p));
	int st = -1;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
}

int suite_fsafe_register(void)
{
	CU_pSuite s = CU_add_suite("fsafe", setup, teardown);
	if (!s || !CU_add_test(s, "whole or old", test_whole_or_old) ||
	    !CU_add_test(s, "refuses devices, FIFOs, directories, links", test_refuses) ||
	    !CU_add_test(s, "full disk named", test_full_disk))
		return -1;
	return 0;
}
