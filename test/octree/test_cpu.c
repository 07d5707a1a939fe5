/* test_cpu.c: the OpenMP kernels, stage by stage and as a whole pipeline,
 * against the sequential reference on every real frame; the reference's
 * own octrees against the structural invariants; octree_io end to end. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btc_config.h"
#include "common.h"
#include "io.h"
#include "suites.h"
#include "testutil.h"

static struct frames frames, syn;
static struct host_task task;

static int init(void)
{
	struct octree_params p = OCTREE_DEFAULT_PARAMS;
	if (frames_load(&frames, 0) || frames_synthetic(&syn) || host_task_init(&task, &p))
		return -1;
	return 0;
}

static int clean(void)
{
	frames_free(&frames);
	frames_free(&syn);
	host_task_free(&task);
	return 0;
}

static void test_reference_valid(void)
{
	for (int f = 0; f < frames.n; f++) {
		const struct octree_ref *r = &frames.refs[f];
		char err[256];
		int rc = octree_validate(r->nodes, r->n_nodes, r->ucodes, r->n_unique, err, sizeof err);
		if (rc)
			fprintf(stderr, "\n  %s: %s\n", frames.paths[f], err);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT(r->n_unique > 1000);
	}
}

static void check_stages(const struct frames *fr)
{
	for (int f = 0; f < fr->n; f++)
		for (int s = 0; s < OCTREE_N_STAGES; s++) {
			char err[256];
			task_fill_from_ref(&task.t, &fr->refs[f], fr->clouds[f].xyzw);
			task_poison_outputs(&task.t, s);
			CU_ASSERT_EQUAL(run_cpu_stage(&task.t, s), 0);
			if (task_compare_stage(&task.t, &fr->refs[f], s, err, sizeof err)) {
				fprintf(stderr, "\n  %s stage %s: %s\n", fr->paths[f],
					octree_stage_names[s], err);
				CU_FAIL("stage differs from the reference");
			}
		}
}

static void test_stages(void)
{
	check_stages(&frames);
}

static void test_stages_synthetic(void)
{
	const struct octree_ref *deep = &syn.refs[syn.n - 1];
	uint32_t max_level = 0;
	for (uint32_t v = 0; v < deep->n_nodes; v++)
		if (deep->nodes[v].level > max_level)
			max_level = deep->nodes[v].level;
	CU_ASSERT_EQUAL(max_level, OCTREE_MAX_LEVEL);
	CU_ASSERT_EQUAL(syn.refs[0].n_nodes, 0);
	CU_ASSERT_EQUAL(syn.refs[1].n_nodes, 1);
	CU_ASSERT_EQUAL(syn.refs[2].n_unique, 1);
	CU_ASSERT_EQUAL(syn.refs[3].n_unique, 2);
	check_stages(&syn);
}

/* octree_io: open the data directory, run the CPU pipeline on each task,
 * check; then corrupt one node and expect a mismatch. */
static void test_io_pipeline(void)
{
	char err[512];
	struct octree_params p = OCTREE_DEFAULT_PARAMS;
	void *st = octree_io.open(btc_test_data("pointclouds"), &p, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	for (uint64_t seq = 0; seq < 7; seq++) {
		CU_ASSERT_EQUAL(octree_io.load(st, seq, &task.t, err, sizeof err), 1);
		for (int s = 0; s < OCTREE_N_STAGES; s++)
			CU_ASSERT_EQUAL(run_cpu_stage(&task.t, s), 0);
		int rc = octree_io.check(st, seq, &task.t, stdout, err, sizeof err);
		if (rc)
			fprintf(stderr, "\n  %s\n", err);
		CU_ASSERT_EQUAL(rc, 0);
	}
	task.t.nodes[12 * 5 + 9] ^= 1;
	CU_ASSERT_EQUAL(octree_io.check(st, 6, &task.t, NULL, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "differs from the reference"));
	octree_io.close(st, stdout);
	CU_ASSERT_PTR_NULL(octree_io.open(BTC_SOURCE_ROOT "/test/octree/pcd/truncated.pcd",
					  &p, err, sizeof err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "truncated binary data"));
	CU_ASSERT_PTR_NULL(octree_io.open("/nonexistent", &p, err, sizeof err));
}

/* octree_io's open parses the frames at once (one thread each): a
 * directory whose second and third frames are bad fails on the second,
 * the first bad one in the input's order, whichever thread ends first. */
static void test_io_open_order(void)
{
	char dir[] = "/tmp/octree-open-XXXXXX", path[512], err[512];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	static const char *const links[][2] = {
		{ "0_ok.pcd", "binary_ok.pcd" },
		{ "1_bad.pcd", "truncated.pcd" },
		{ "2_bad.pcd", "unknown_data.pcd" },
		{ "3_ok.pcd", "ascii_ok.pcd" },
	};
	for (int i = 0; i < 4; i++) {
		char to[512];
		snprintf(to, sizeof to, "%s/test/octree/pcd/%s", BTC_SOURCE_ROOT, links[i][1]);
		snprintf(path, sizeof path, "%s/%s", dir, links[i][0]);
		CU_ASSERT_EQUAL(symlink(to, path), 0);
	}
	struct octree_params p = OCTREE_DEFAULT_PARAMS;
	for (int k = 0; k < 5; k++) { /* the threads end in any order */
		err[0] = 0;
		CU_ASSERT_PTR_NULL(octree_io.open(dir, &p, err, sizeof err));
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "1_bad.pcd"));
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "truncated binary data"));
	}
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, links[i][0]);
		unlink(path);
	}
	rmdir(dir);
}

/* Degenerate frames: no point, one point, all points equal, two points. */
static void test_tiny(void)
{
	static const float pts[3][4] = { { 1, 2, 3, 0 }, { 1, 2, 3, 0 }, { 4, 2, 3, 0 } };
	static const uint32_t counts[] = { 0, 1, 2, 3 };
	for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
		struct octree_ref r;
		char err[256];
		octree_fill_task(&task.t, &pts[0][0], counts[k]);
		CU_ASSERT_EQUAL_FATAL(octree_reference(&pts[0][0], counts[k], task.t.cube, &r,
						       err, sizeof err), 0);
		for (int s = 0; s < OCTREE_N_STAGES; s++)
			CU_ASSERT_EQUAL(run_cpu_stage(&task.t, s), 0);
		CU_ASSERT_EQUAL(task_compare_stage(&task.t, &r, 6, err, sizeof err), 0);
		CU_ASSERT_EQUAL(octree_validate(r.nodes, r.n_nodes, r.ucodes, r.n_unique,
						err, sizeof err), 0);
		octree_ref_free(&r);
	}
}

int octree_cpu_register(void)
{
	CU_pSuite s = CU_add_suite("cpu", init, clean);
	if (!s || !CU_add_test(s, "reference octrees are valid", test_reference_valid) ||
	    !CU_add_test(s, "each stage equals the reference", test_stages) ||
	    !CU_add_test(s, "each stage on synthetic edge cases", test_stages_synthetic) ||
	    !CU_add_test(s, "octree_io with the CPU pipeline", test_io_pipeline) ||
	    !CU_add_test(s, "octree_io's open names the first bad frame", test_io_open_order) ||
	    !CU_add_test(s, "degenerate frames", test_tiny))
		return -1;
	return 0;
}
