/* Suite "readers": the .npy and CIFAR-10 readers and the io's open errors,
   with good and bad files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cifar.h"
#include "io_common.h"
#include "net.h"
#include "npy.h"
#include "suites.h"

static char tmpdir[] = "/tmp/alexnet-test-XXXXXX";
static char err[1024];

static int init(void)
{
	return ALEXNET_NEED_DATA() || !mkdtemp(tmpdir) ? -1 : 0;
}

static int cleanup(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Writes a .npy (version 1.0) with the given header dict and n data bytes. */
static const char *write_npy(const char *name, const char *dict, size_t n)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char hdr[256];
	int len = snprintf(hdr, sizeof hdr, "%s", dict);
	while ((10 + len + 1) % 64)
		hdr[len++] = ' ';
	hdr[len++] = '\n';
	unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
				 (unsigned char)(len & 0xff), (unsigned char)(len >> 8)};
	fwrite(pre, 1, 10, f);
	fwrite(hdr, 1, (size_t)len, f);
	for (size_t i = 0; i < n; i++)
		fputc(0, f);
	fclose(f);
	return path;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	if (n)
		CU_ASSERT_EQUAL(fwrite(data, 1, n, f), n);
	fclose(f);
}

static void test_npy_good(void)
{
	struct npy_array a;
	CU_ASSERT_EQUAL_FATAL(npy_read_f32(btc_test_data(ALEXNET_WEIGHTS_REL "/conv2_w.npy"), &a, err, sizeof err), 0);
	CU_ASSERT_EQUAL(a.ndim, 4);
	CU_ASSERT(a.shape[0] == 32 && a.shape[1] == 16 && a.shape[2] == 3 && a.shape[3] == 3);
	CU_ASSERT_EQUAL(a.count, 32 * 16 * 9);
	npy_free(&a);
	/* A hand-made 2x3 file, version 1.0, zeros. */
	const char *p = write_npy("ok.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24);
	CU_ASSERT_EQUAL_FATAL(npy_read_f32(p, &a, err, sizeof err), 0);
	CU_ASSERT_EQUAL(a.count, 6);
	CU_ASSERT_EQUAL(a.data[5], 0.0f);
	npy_free(&a);
}

static void expect_npy_error(const char *path, const char *const *needles)
{
	struct npy_array a;
	CU_ASSERT_EQUAL(npy_read_f32(path, &a, err, sizeof err), -1);
	CU_ASSERT_PTR_NULL(a.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
	for (; *needles; needles++) {
		if (!strstr(err, *needles))
			fprintf(stderr, "\n  message '%s' lacks '%s'\n", err, *needles);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, *needles));
	}
}

static void test_npy_bad(void)
{
	const char *f64[] = {"'<f8'", "(2, 3)", "float32", NULL};
	expect_npy_error(write_npy("f64.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 48), f64);
	const char *i32[] = {"'<i4'", "(16,)", NULL};
	expect_npy_error(write_npy("i32.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (16,), }", 64), i32);
	const char *be[] = {"'>f4'", NULL};
	expect_npy_error(write_npy("be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", 16), be);
	const char *fo[] = {"Fortran order", "(2, 3)", NULL};
	expect_npy_error(write_npy("fortran.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24), fo);
	const char *tr[] = {"truncated", "(2, 3)", NULL};
	expect_npy_error(write_npy("short.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20), tr);
	const char *nosh[] = {"shape", NULL};
	expect_npy_error(write_npy("noshape.npy", "{'descr': '<f4', 'fortran_order': False, }", 0), nosh);
	char path[512];
	snprintf(path, sizeof path, "%s/magic.npy", tmpdir);
	write_bytes(path, "PK\003\004not numpy at all", 20);
	const char *mg[] = {"magic", NULL};
	expect_npy_error(path, mg);
	snprintf(path, sizeof path, "%s/empty.npy", tmpdir);
	write_bytes(path, "", 0);
	expect_npy_error(path, mg);
	snprintf(path, sizeof path, "%s/missing.npy", tmpdir);
	const char *ms[] = {"cannot open", NULL};
	expect_npy_error(path, ms);
}

/* A weights folder with every file copied from the real one except
   replace (written as the given .npy header and data size). */
static const char *weights_with(const char *sub, const char *replace, const char *dict, size_t n)
{
	static char dir[128];
	snprintf(dir, sizeof dir, "%s/%s", tmpdir, sub);
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s'/*.npy '%s'/", dir, ALEXNET_WEIGHTS, dir);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	char name[600];
	snprintf(name, sizeof name, "%s/%s", sub, replace);
	if (dict)
		write_npy(name, dict, n);
	else {
		snprintf(cmd, sizeof cmd, "rm '%s/%s'", dir, replace);
		CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	}
	return dir;
}

static void test_weights(void)
{
	struct alexnet_weights w;
	CU_ASSERT_EQUAL_FATAL(alexnet_weights_load(ALEXNET_WEIGHTS, &w, err, sizeof err), 0);
	CU_ASSERT_EQUAL(alexnet_weight_count(0), 16 * 3 * 9);
	CU_ASSERT_EQUAL(alexnet_weight_count(5), 10 * 1024);
	alexnet_weights_free(&w);

	const char *d = weights_with("w_shape", "conv2_w.npy",
				     "{'descr': '<f4', 'fortran_order': False, 'shape': (32, 16, 5, 5), }",
				     32 * 16 * 25 * 4);
	CU_ASSERT_EQUAL(alexnet_weights_load(d, &w, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "conv2_w.npy"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "(32, 16, 5, 5)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected shape (32, 16, 3, 3)"));

	d = weights_with("w_dtype", "linear_b.npy",
			 "{'descr': '<f8', 'fortran_order': False, 'shape': (10,), }", 80);
	CU_ASSERT_EQUAL(alexnet_weights_load(d, &w, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "linear_b.npy"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "'<f8'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "(10,)"));

	d = weights_with("w_missing", "conv5_b.npy", NULL, 0);
	CU_ASSERT_EQUAL(alexnet_weights_load(d, &w, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "conv5_b.npy"));

	/* The io reports the weights error too, and a bad sparsity. */
	CU_ASSERT_PTR_NULL(alexnet_io_open("alexnet_dense", ALEXNET_IMAGES, d, 1, -1, err, sizeof err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "conv5_b.npy"));
	CU_ASSERT_PTR_NULL(alexnet_io_open("alexnet_sparse", ALEXNET_IMAGES, ALEXNET_WEIGHTS, 128, 101,
					   err, sizeof err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "sparsity"));
	CU_ASSERT_PTR_NULL(alexnet_io_open("alexnet_sparse", ALEXNET_IMAGES, ALEXNET_WEIGHTS, 0, 20,
					   err, sizeof err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "batch"));
}

static void test_cifar_good(void)
{
	struct cifar_batch b;
	CU_ASSERT_EQUAL_FATAL(cifar_read(ALEXNET_IMAGES, &b, err, sizeof err), 0);
	CU_ASSERT_EQUAL(b.n, 1153);
	int per_class[10] = {0};
	for (size_t i = 0; i < b.n; i++)
		per_class[b.labels[i]]++;
	for (int c = 0; c < 10; c++)
		CU_ASSERT(per_class[c] >= 100 && per_class[c] <= 125);
	/* Normalisation: (p / 255 - mean) / std per channel. */
	float x[3072];
	cifar_normalise(&b, 7, x);
	const uint8_t *px = b.pixels + 7 * 3072;
	CU_ASSERT_DOUBLE_EQUAL(x[0], (px[0] / 255.0 - 0.4914) / 0.2470, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(x[1024 + 5], (px[1024 + 5] / 255.0 - 0.4822) / 0.2435, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(x[2048 + 1023], (px[2048 + 1023] / 255.0 - 0.4465) / 0.2616, 1e-5);
	cifar_free(&b);
}

static void test_cifar_bad(void)
{
	struct cifar_batch b;
	char path[512];
	unsigned char rec[2 * 3073];
	memset(rec, 3, sizeof rec);
	snprintf(path, sizeof path, "%s/odd.bin", tmpdir);
	write_bytes(path, rec, 3073 + 100);
	CU_ASSERT_EQUAL(cifar_read(path, &b, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "3173 bytes"));
	snprintf(path, sizeof path, "%s/label.bin", tmpdir);
	rec[3073] = 42;
	write_bytes(path, rec, sizeof rec);
	CU_ASSERT_EQUAL(cifar_read(path, &b, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "record 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "label 42"));
	snprintf(path, sizeof path, "%s/empty.bin", tmpdir);
	write_bytes(path, rec, 0);
	CU_ASSERT_EQUAL(cifar_read(path, &b, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "0 bytes"));
	/* A .npy file given as images. */
	CU_ASSERT_EQUAL(cifar_read(btc_test_data(ALEXNET_WEIGHTS_REL "/conv1_b.npy"), &b, err, sizeof err), -1);
	CU_ASSERT_EQUAL(cifar_read(btc_test_data("no/such.bin"), &b, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot open"));
	CU_ASSERT_PTR_NULL(alexnet_io_open("alexnet_dense", path, ALEXNET_WEIGHTS, 1, -1, err, sizeof err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
}

int alexnet_register_readers(void)
{
	CU_pSuite s = CU_add_suite("readers", init, cleanup);
	if (!s || !CU_add_test(s, "npy good", test_npy_good) ||
	    !CU_add_test(s, "npy bad dtype/order/size/magic", test_npy_bad) ||
	    !CU_add_test(s, "weights folder good and bad", test_weights) ||
	    !CU_add_test(s, "cifar good + normalisation", test_cifar_good) ||
	    !CU_add_test(s, "cifar bad size/label/missing", test_cifar_bad))
		return -1;
	return 0;
}
