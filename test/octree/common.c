/* common.c: see common.h. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "testutil.h"

const char *const octree_stage_names[OCTREE_N_STAGES] = {
	"morton", "sort", "unique", "radix_tree", "edge_count", "prefix_sum", "octree",
};

int host_task_init(struct host_task *h, const struct octree_params *p)
{
	memset(h, 0, sizeof *h);
	h->p = *p;
	h->t.params = &h->p;
	h->t.base.n_buffers = OCTREE_N_BUFFERS;
	h->t.base.buffers = h->bufs;
	for (int b = 0; b < OCTREE_N_BUFFERS; b++) {
		size_t bytes = octree_buffer_count(p, b) * octree_buffers[b].elem_size;
		bytes = (bytes + 63) / 64 * 64;
		h->bufs[b].host = aligned_alloc(64, bytes ? bytes : 64);
		h->bufs[b].dev = h->bufs[b].host;
		h->bufs[b].bytes = bytes;
		h->bufs[b].placement = BTRT_PLACE_HOST;
		if (!h->bufs[b].host) {
			host_task_free(h);
			return -1;
		}
	}
	octree_task_bind(&h->t);
	return 0;
}

void host_task_free(struct host_task *h)
{
	for (int b = 0; b < OCTREE_N_BUFFERS; b++)
		free(h->bufs[b].host);
	memset(h, 0, sizeof *h);
}

int frames_load(struct frames *f, int max)
{
	char err[512];
	memset(f, 0, sizeof *f);
	if (btc_test_need_data("pointclouds"))
		return -1;
	f->n = octree_list_inputs(btc_test_data("pointclouds"), &f->paths, err, sizeof err);
	if (f->n < 0) {
		fprintf(stderr, "%s\n", err);
		f->n = 0;
		return -1;
	}
	if (max > 0 && f->n > max) {
		for (int i = max; i < f->n; i++)
			free(f->paths[i]);
		f->n = max;
	}
	f->clouds = calloc((size_t)f->n, sizeof *f->clouds);
	f->cubes = calloc((size_t)f->n, sizeof *f->cubes);
	f->refs = calloc((size_t)f->n, sizeof *f->refs);
	if (!f->clouds || !f->cubes || !f->refs)
		return -1;
	for (int i = 0; i < f->n; i++) {
		if (pcd_read_file(f->paths[i], 307200, &f->clouds[i], err, sizeof err) ||
		    (octree_bounding_cube(f->clouds[i].xyzw, f->clouds[i].n, f->cubes[i]),
		     octree_reference(f->clouds[i].xyzw, f->clouds[i].n, f->cubes[i],
				      &f->refs[i], err, sizeof err))) {
			fprintf(stderr, "%s\n", err);
			return -1;
		}
	}
	return 0;
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

int frames_synthetic(struct frames *f)
{
	enum { N_SYN = 7 };
	static const uint32_t sizes[N_SYN] = { 0, 1, 2, 3, 5000, 20000, 4097 };
	char err[256];
	uint32_t seed = 12345;
	memset(f, 0, sizeof *f);
	f->paths = calloc(N_SYN, sizeof *f->paths);
	f->clouds = calloc(N_SYN, sizeof *f->clouds);
	f->cubes = calloc(N_SYN, sizeof *f->cubes);
	f->refs = calloc(N_SYN, sizeof *f->refs);
	if (!f->paths || !f->clouds || !f->cubes || !f->refs)
		return -1;
	f->n = N_SYN;
	for (int k = 0; k < N_SYN; k++) {
		uint32_t n = sizes[k];
		float *p = calloc((size_t)(n ? n : 1) * 4, sizeof *p);
		char name[32];
		if (!p)
			return -1;
		snprintf(name, sizeof name, "synthetic-%d", k);
		f->paths[k] = strdup(name);
		for (uint32_t i = 0; i < n; i++) {
			float *q = p + (size_t)i * 4;
			float r[3] = { (float)(lcg(&seed) % 100000) / 1e5f,
				       (float)(lcg(&seed) % 100000) / 1e5f,
				       (float)(lcg(&seed) % 100000) / 1e5f };
			if (k <= 3) {          /* 1, 2 equal, 2 equal + 1 */
				q[0] = i == 2 ? 2.0f : 1.0f;
				q[1] = -0.5f;
				q[2] = 3.0f;
			} else if (k == 4) {   /* random, every 5th a duplicate */
				memcpy(q, i % 5 == 4 ? q - 4 : r, 3 * sizeof *q);
			} else if (k == 5) {   /* flat */
				q[0] = r[0] * 4.0f - 2.0f;
				q[1] = r[1];
				q[2] = 1.5f;
			} else {               /* a cluster ~6 quanta wide, one far point */
				q[0] = i == n - 1 ? 10.0f : 1.0f + r[0] * 0.05f;
				q[1] = i == n - 1 ? 10.0f : 1.0f + r[1] * 0.05f;
				q[2] = i == n - 1 ? 10.0f : 1.0f + r[2] * 0.05f;
			}
		}
		f->clouds[k].xyzw = p;
		f->clouds[k].n = f->clouds[k].n_declared = n;
		octree_bounding_cube(p, n, f->cubes[k]);
		if (octree_reference(p, n, f->cubes[k], &f->refs[k], err, sizeof err) ||
		    octree_validate(f->refs[k].nodes, f->refs[k].n_nodes, f->refs[k].ucodes,
				    f->refs[k].n_unique, err, sizeof err)) {
			fprintf(stderr, "synthetic frame %d: %s\n", k, err);
			return -1;
		}
	}
	return 0;
}

void frames_free(struct frames *f)
{
	for (int i = 0; i < f->n; i++) {
		if (f->clouds)
			pcd_free(&f->clouds[i]);
		if (f->refs)
			octree_ref_free(&f->refs[i]);
	}
	free(f->clouds);
	free(f->cubes);
	free(f->refs);
	octree_free_paths(f->paths, f->n);
	memset(f, 0, sizeof *f);
}

void task_fill_from_ref(struct octree_task *t, const struct octree_ref *r, const float *xyzw)
{
	size_t n = r->n_points, m = r->n_internal;
	t->n_points[0] = r->n_points;
	memcpy(t->points, xyzw, n * 4 * sizeof(float));
	memcpy(t->cube, r->cube, sizeof r->cube);
	memcpy(t->codes, r->codes, n * 4);
	memcpy(t->sorted, r->sorted, n * 4);
	memcpy(t->ucodes, r->ucodes, (size_t)r->n_unique * 4);
	t->n_unique[0] = r->n_unique;
	memcpy(t->prefix_n, r->prefix_n, m * 4);
	memcpy(t->has_leaf_left, r->has_leaf_left, m * 4);
	memcpy(t->has_leaf_right, r->has_leaf_right, m * 4);
	memcpy(t->left_child, r->left_child, m * 4);
	memcpy(t->parent, r->parent, m * 4);
	memcpy(t->edge_count, r->edge_count, m * 4);
	memcpy(t->offsets, r->offsets, (m + 1) * 4);
	memcpy(t->nodes, r->nodes, (size_t)r->n_nodes * sizeof *r->nodes);
	t->n_nodes[0] = r->n_nodes;
}

void task_poison_outputs(struct octree_task *t, int s)
{
	size_t mp = (size_t)t->params->max_points;
	switch (s) {
	case 0: memset(t->codes, 0xcd, mp * 4); break;
	case 1:
		memset(t->sorted, 0xcd, mp * 4);
		memset(t->sort_tmp, 0xcd, mp * 4);
		break;
	case 2:
		memset(t->ucodes, 0xcd, mp * 4);
		t->n_unique[0] = 0xcdcdcdcd;
		break;
	case 3:
		memset(t->prefix_n, 0xcd, mp * 4);
		memset(t->has_leaf_left, 0xcd, mp * 4);
		memset(t->has_leaf_right, 0xcd, mp * 4);
		memset(t->left_child, 0xcd, mp * 4);
		memset(t->parent, 0xcd, mp * 4);
		break;
	case 4: memset(t->edge_count, 0xcd, mp * 4); break;
	case 5: memset(t->offsets, 0xcd, mp * 4); break;
	default:
		memset(t->nodes, 0xcd, octree_buffer_count(t->params, OCTREE_BUF_NODES) * 4);
		t->n_nodes[0] = 0xcdcdcdcd;
		break;
	}
}

static int cmp_words(const char *what, const void *a, const void *b, size_t n,
		     char *err, size_t errlen)
{
	const uint32_t *x = a, *y = b;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i]) {
			snprintf(err, errlen, "%s[%zu] = %u, reference %u", what, i, x[i], y[i]);
			return -1;
		}
	return 0;
}

int task_compare_stage(const struct octree_task *t, const struct octree_ref *r, int s,
		       char *err, size_t errlen)
{
	size_t n = r->n_points, m = r->n_internal;
	switch (s) {
	case 0: return cmp_words("codes", t->codes, r->codes, n, err, errlen);
	case 1: return cmp_words("sorted", t->sorted, r->sorted, n, err, errlen);
	case 2:
		if (t->n_unique[0] != r->n_unique) {
			snprintf(err, errlen, "n_unique %u, reference %u", t->n_unique[0], r->n_unique);
			return -1;
		}
		return cmp_words("ucodes", t->ucodes, r->ucodes, r->n_unique, err, errlen);
	case 3:
		return cmp_words("prefix_n", t->prefix_n, r->prefix_n, m, err, errlen) ||
		       cmp_words("has_leaf_left", t->has_leaf_left, r->has_leaf_left, m, err, errlen) ||
		       cmp_words("has_leaf_right", t->has_leaf_right, r->has_leaf_right, m, err, errlen) ||
		       cmp_words("left_child", t->left_child, r->left_child, m, err, errlen) ||
		       cmp_words("parent", t->parent, r->parent, m, err, errlen) ? -1 : 0;
	case 4: return cmp_words("edge_count", t->edge_count, r->edge_count, m, err, errlen);
	case 5: return cmp_words("offsets", t->offsets, r->offsets, m + 1, err, errlen);
	default:
		if (t->n_nodes[0] != r->n_nodes) {
			snprintf(err, errlen, "n_nodes %u, reference %u", t->n_nodes[0], r->n_nodes);
			return -1;
		}
		return cmp_words("nodes", t->nodes, r->nodes,
				 (size_t)r->n_nodes * OCTREE_NODE_WORDS, err, errlen);
	}
}

int run_cpu_stage(struct octree_task *t, int s)
{
	static int (*const k[OCTREE_N_STAGES])(struct octree_task *) = {
		octree_morton_cpu, octree_sort_cpu, octree_unique_cpu, octree_radix_tree_cpu,
		octree_edge_count_cpu, octree_prefix_sum_cpu, octree_build_cpu,
	};
	return k[s](t);
}
