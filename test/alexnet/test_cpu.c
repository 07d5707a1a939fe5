/* Suite "cpu": every stage of both apps on the OpenMP CPU kernels against
   the sequential reference, the dense network on the sample batch (722 of
   1153 correct in full, its first images by default: suites.h), a
   two-chunk CPU pipeline, the sparse network at its default and other
   sparsities, and the check's mismatch report. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "suites.h"

static char msg[1024];

static void stages(int sparse, int64_t batch, int64_t sparsity, uint64_t seq)
{
	struct alexnet_app a;
	alexnet_app_init(&a, sparse, batch, sparsity);
	double worst[ALEXNET_N_STAGES];
	int rc = harness_stages(&a, "cpu", seq, NULL, NULL, worst, msg, sizeof msg);
	if (rc)
		fprintf(stderr, "\n  %s\n", msg);
	CU_ASSERT_EQUAL(rc, 0);
	alexnet_app_free(&a);
}

static void test_dense_stages(void)
{
	stages(0, 1, -1, 0);
	stages(0, 1, -1, 2);
	stages(0, 5, -1, 1);      /* a batch of 5 through the dense kernels */
}

static void test_sparse_stages(void)
{
	stages(1, 8, 20, 0);
	stages(1, 8, 70, 1);
	stages(1, 3, 100, 0);     /* every weight pruned: bias only */
}

static void run_expect(struct alexnet_app *a, const char *schedule, uint64_t items,
		       uint32_t pool, struct harness_result *r)
{
	int rc = harness_run(a, schedule, items, pool, NULL, NULL, 1, 0, r, stdout, msg, sizeof msg);
	if (rc)
		fprintf(stderr, "\n  %s\n", msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static void test_dense_accuracy(void)
{
	struct alexnet_app a;
	struct harness_result r;
	alexnet_app_init(&a, 0, 1, -1);
	printf("\n");
	run_expect(&a, "cpu:0-8", ALEXNET_N_IMAGES(), 2, &r);
	CU_ASSERT_EQUAL(r.counted, ALEXNET_N_IMAGES());
	CU_ASSERT_EQUAL(r.correct, ALEXNET_N_CORRECT());
	CU_ASSERT_EQUAL(r.ref_correct, ALEXNET_N_CORRECT());
	alexnet_app_free(&a);
}

static void test_dense_pipeline(void)
{
	struct alexnet_app a;
	struct harness_result r;
	alexnet_app_init(&a, 0, 1, -1);
	printf("\n");
	/* Two and three CPU chunks. */
	run_expect(&a, "cpu:0-3,cpu:4-8", 300, 4, &r);
	CU_ASSERT_EQUAL(r.counted, 300);
	CU_ASSERT_EQUAL(r.correct, r.ref_correct);
	run_expect(&a, "cpu:0-0,cpu:1-7,cpu:8-8", 100, 3, &r);
	CU_ASSERT_EQUAL(r.correct, r.ref_correct);
	alexnet_app_free(&a);
}

static void test_sparse_accuracy(void)
{
	/* Default sparsity (the YAML's), batches of 128: in full one pass of
	   10 (every image counted once), else the first two. */
	struct alexnet_sparse_params def = ALEXNET_SPARSE_DEFAULT_PARAMS;
	struct alexnet_app a;
	struct harness_result r;
	alexnet_app_init(&a, 1, def.batch, def.sparsity);
	printf("\n");
	uint64_t batches = btc_test_full() ? 10 : ALEXNET_QUICK_BATCHES;
	run_expect(&a, "cpu:0-4,cpu:5-8", batches, 3, &r);
	CU_ASSERT_EQUAL(r.counted, btc_test_full() ? 1153 : batches * (uint64_t)def.batch);
	CU_ASSERT_EQUAL(r.correct, r.ref_correct);
	alexnet_app_free(&a);
	/* Another batch size and sparsity. */
	alexnet_app_init(&a, 1, 32, 50);
	run_expect(&a, "cpu:0-8", 5, 2, &r);
	CU_ASSERT_EQUAL(r.counted, 160);
	CU_ASSERT_EQUAL(r.correct, r.ref_correct);
	alexnet_app_free(&a);
}

static void test_io_batches(void)
{
	/* Sparse, batch 128: 10 batches; the last holds image 1152 and then
	   wraps to images 0..126; item 10 is batch 0 again. */
	struct alexnet_sparse_params p = ALEXNET_SPARSE_DEFAULT_PARAMS;
	struct alexnet_io *s = alexnet_sparse_io.open(ALEXNET_IMAGES, &p, msg, sizeof msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	static float batch[128 * ALEXNET_IMAGE], one[ALEXNET_IMAGE], first[ALEXNET_IMAGE];
	alexnet_io_fill_images(s, 9, batch);
	alexnet_sparse_io.close(s, NULL);
	p.batch = 1;
	s = alexnet_sparse_io.open(ALEXNET_IMAGES, &p, msg, sizeof msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	alexnet_io_fill_images(s, 1152, one);
	CU_ASSERT_EQUAL(memcmp(batch, one, sizeof one), 0);
	alexnet_io_fill_images(s, 126, one);
	CU_ASSERT_EQUAL(memcmp(batch + 127 * ALEXNET_IMAGE, one, sizeof one), 0);
	alexnet_io_fill_images(s, 1153 + 4, one);  /* dense cycles: item 1157 = image 4 */
	alexnet_io_fill_images(s, 4, first);
	CU_ASSERT_EQUAL(memcmp(first, one, sizeof one), 0);
	alexnet_sparse_io.close(s, NULL);
}

static void test_check_mismatch(void)
{
	struct alexnet_dense_params p = ALEXNET_DENSE_DEFAULT_PARAMS;
	struct alexnet_io *s = alexnet_dense_io.open(ALEXNET_IMAGES, &p, msg, sizeof msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	const struct alexnet_weights *w = alexnet_io_weights(s);
	float img[ALEXNET_IMAGE], logits[10];
	alexnet_io_fill_images(s, 5, img);
	alexnet_ref_forward(w, img, logits);
	int32_t pred = alexnet_argmax(logits, 10);
	CU_ASSERT_EQUAL(alexnet_io_check(s, 5, logits, &pred, NULL, msg, sizeof msg), 0);
	logits[3] += 1e-2f;
	CU_ASSERT_EQUAL(alexnet_io_check(s, 5, logits, &pred, NULL, msg, sizeof msg), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "item 5"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "relative error"));
	logits[3] -= 1e-2f;
	pred = (pred + 1) % 10;
	CU_ASSERT_EQUAL(alexnet_io_check(s, 5, logits, &pred, NULL, msg, sizeof msg), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "argmax"));
	alexnet_dense_io.close(s, NULL);
}

static int init(void)
{
	return ALEXNET_NEED_DATA();
}

int alexnet_register_cpu(void)
{
	CU_pSuite s = CU_add_suite("cpu", init, NULL);
	if (!s || !CU_add_test(s, "dense stages vs reference", test_dense_stages) ||
	    !CU_add_test(s, "sparse stages vs reference", test_sparse_stages) ||
	    !CU_add_test(s, "io batches and wrap-around", test_io_batches) ||
	    !CU_add_test(s, "check reports mismatches", test_check_mismatch) ||
	    !CU_add_test(s, "dense accuracy (722/1153 in full)", test_dense_accuracy) ||
	    !CU_add_test(s, "dense multi-chunk CPU pipelines", test_dense_pipeline) ||
	    !CU_add_test(s, "sparse accuracy = reference", test_sparse_accuracy))
		return -1;
	return 0;
}
