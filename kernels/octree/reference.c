/* reference.c: sequential reference of the octree pipeline (reference.h). */
#include "reference.h"
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void octree_bounding_cube(const float *xyzw, uint32_t n, float cube[4])
{
	float lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
	for (uint32_t i = 0; i < n; i++)
		for (int a = 0; a < 3; a++) {
			float v = xyzw[(size_t)i * 4 + a];
			if (i == 0 || v < lo[a])
				lo[a] = v;
			if (i == 0 || v > hi[a])
				hi[a] = v;
		}
	float edge = 0;
	for (int a = 0; a < 3; a++) {
		cube[a] = lo[a];
		if (hi[a] - lo[a] > edge)
			edge = hi[a] - lo[a];
	}
	cube[3] = edge > 0 ? (float)OCTREE_GRID / edge : 0.0f;
}

static uint32_t quantise(float v, float lo, float scale)
{
	float q = (v - lo) * scale;
	if (q >= (float)(OCTREE_GRID - 1))
		return OCTREE_GRID - 1;
	if (q > 0)
		return (uint32_t)q;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Length of the common prefix of two distinct 30-bit codes. */
static uint32_t common_prefix(uint32_t a, uint32_t b)
{
	uint32_t len = 0;
	for (int bit = OCTREE_CODE_BITS - 1; bit >= 0; bit--, len++)
		if (((a ^ b) >> bit) & 1)
			break;
	return len;
}

/* Internal node `index` covers the sorted codes [first, last]. */
static void radix_split(struct octree_ref *r, uint32_t index, uint32_t first, uint32_t last)
{
	const uint32_t *k = r->ucodes;
	uint32_t len = common_prefix(k[first], k[last]);
	/* the codes of the range agree on len bits and differ in the next
	 * one (bit b): split = the last code whose bit b is 0 */
	uint32_t b = OCTREE_CODE_BITS - 1 - len, lo = first, hi = last;
	while (hi - lo > 1) { /* invariant: bit b of k[lo] is 0, of k[hi] is 1 */
		uint32_t mid = lo + (hi - lo) / 2;
		if ((k[mid] >> b) & 1)
			hi = mid;
		else
			lo = mid;
	}
	uint32_t split = lo;
	r->prefix_n[index] = len;
	r->left_child[index] = (int32_t)split;
	r->has_leaf_left[index] = split == first;
	r->has_leaf_right[index] = split + 1 == last;
	if (split != first) {
		r->parent[split] = (int32_t)index;
		radix_split(r, split, first, split);
	}
	if (split + 1 != last) {
		r->parent[split + 1] = (int32_t)index;
		radix_split(r, split + 1, split + 1, last);
	}
}

/* Deepest octree node of the nearest radix ancestor-or-self of a that owns
 * octree nodes. */
static uint32_t owner(const struct octree_ref *r, int32_t a)
{
	while (r->edge_count[a] == 0)
		a = r->parent[a];
	return r->offsets[a] + r->edge_count[a] - 1;
}

static int attach(struct octree_node *parent, uint32_t slot, int32_t child, int leaf)
{
	if (parent->children[slot] != -1)
		return -1;
	parent->children[slot] = child;
	parent->masks |= 1u << (slot + (leaf ? 8 : 0));
	return 0;
}

static int build_octree(struct octree_ref *r, char *err, size_t errlen)
{
	uint32_t m = r->n_internal;
	r->n_nodes = r->n_unique == 0 ? 0 : r->n_unique == 1 ? 1 : r->offsets[m];
	r->nodes = calloc(r->n_nodes ? r->n_nodes : 1, sizeof *r->nodes);
	if (!r->nodes)
		return octree_fail(err, errlen, "out of memory");
	for (uint32_t v = 0; v < r->n_nodes; v++) {
		memset(r->nodes[v].children, 0xff, sizeof r->nodes[v].children);
		r->nodes[v].parent = -1;
	}
	if (r->n_unique == 1)
		return attach(&r->nodes[0], r->ucodes[0] >> 27, 0, 1);
	/* create every node: radix node i's chain, top first */
	for (uint32_t i = 0; i < m; i++) {
		uint32_t e = r->edge_count[i], deepest = r->prefix_n[i] / 3;
		for (uint32_t j = 0; j < e; j++) {
			struct octree_node *nd = &r->nodes[r->offsets[i] + j];
			nd->level = deepest - (e - 1 - j);
			nd->prefix = r->ucodes[i] >> (OCTREE_CODE_BITS - 3 * nd->level);
			if (j > 0)
				nd->parent = (int32_t)(r->offsets[i] + j - 1);
			else if (i > 0)
				nd->parent = (int32_t)owner(r, r->parent[i]);
		}
	}
	/* link nodes into their parents, then attach the codes */
	for (uint32_t v = 1; v < r->n_nodes; v++) {
		struct octree_node *nd = &r->nodes[v];
		if (nd->parent < 0 || attach(&r->nodes[nd->parent], nd->prefix & 7, (int32_t)v, 0))
			return octree_fail(err, errlen, "octree node %u: bad parent link", v);
	}
	for (uint32_t i = 0; i < m; i++)
		for (int side = 0; side < 2; side++) {
			if (!(side ? r->has_leaf_right[i] : r->has_leaf_left[i]))
				continue;
			uint32_t leaf = (uint32_t)r->left_child[i] + (uint32_t)side;
			struct octree_node *nd = &r->nodes[owner(r, (int32_t)i)];
			uint32_t slot = (r->ucodes[leaf] >> (OCTREE_CODE_BITS - 3 * (nd->level + 1))) & 7;
			if (attach(nd, slot, (int32_t)leaf, 1))
				return octree_fail(err, errlen, "code %u: octant taken", leaf);
		}
	return 0;
}

int octree_reference(const float *xyzw, uint32_t n, const float cube[4],
		     struct octree_ref *r, char *err, size_t errlen)
{
	size_t cap = n ? n : 1;
	memset(r, 0, sizeof *r);
	r->n_points = n;
	memcpy(r->cube, cube, sizeof r->cube);
	r->codes = malloc(cap * 4);
	r->sorted = malloc(cap * 4);
	r->ucodes = malloc(cap * 4);
	r->prefix_n = calloc(cap, 4);
	r->has_leaf_left = calloc(cap, 4);
	r->has_leaf_right = calloc(cap, 4);
	r->left_child = calloc(cap, 4);
	r->parent = calloc(cap, 4);
	r->edge_count = calloc(cap, 4);
	r->offsets = calloc(cap, 4);
	if (!r->codes || !r->sorted || !r->ucodes || !r->prefix_n || !r->has_leaf_left ||
	    !r->has_leaf_right || !r->left_child || !r->parent || !r->edge_count || !r->offsets) {
		octree_ref_free(r);
		return octree_fail(err, errlen, "out of memory");
	}
	/* 1 Morton codes, bit by bit: x bit b -> 3b+2, y -> 3b+1, z -> 3b */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q[3], code = 0;
		for (int a = 0; a < 3; a++)
			q[a] = quantise(xyzw[(size_t)i * 4 + a], cube[a], cube[3]);
		for (int b = OCTREE_AXIS_BITS - 1; b >= 0; b--)
			code = (code << 3) | ((q[0] >> b) & 1) << 2 | ((q[1] >> b) & 1) << 1 |
			       ((q[2] >> b) & 1);
		r->codes[i] = code;
	}
	/* 2 sort, 3 unique */
	memcpy(r->sorted, r->codes, (size_t)n * 4);
	qsort(r->sorted, n, 4, cmp_u32);
	for (uint32_t i = 0; i < n; i++)
		if (i == 0 || r->sorted[i] != r->sorted[i - 1])
			r->ucodes[r->n_unique++] = r->sorted[i];
	/* 4 radix tree, 5 edge counts, 6 offsets */
	r->n_internal = r->n_unique > 1 ? r->n_unique - 1 : 0;
	if (r->n_internal) {
		r->parent[0] = -1;
		radix_split(r, 0, 0, r->n_unique - 1);
	}
	for (uint32_t i = 0; i < r->n_internal; i++)
		r->edge_count[i] = i == 0 ? r->prefix_n[0] / 3 + 1
			: r->prefix_n[i] / 3 - r->prefix_n[r->parent[i]] / 3;
	uint32_t sum = 0;
	for (uint32_t i = 0; i < r->n_internal; i++) {
		r->offsets[i] = sum;
		sum += r->edge_count[i];
	}
	r->offsets[r->n_internal] = sum;
	/* 7 octree */
	if (build_octree(r, err, errlen)) {
		octree_ref_free(r);
		return -1;
	}
	r->hash = octree_fnv1a(r->nodes, (size_t)r->n_nodes * sizeof *r->nodes);
	return 0;
}

void octree_ref_free(struct octree_ref *r)
{
	if (!r)
		return;
	free(r->codes);
	free(r->sorted);
	free(r->ucodes);
	free(r->prefix_n);
	free(r->has_leaf_left);
	free(r->has_leaf_right);
	free(r->left_child);
	free(r->parent);
	free(r->edge_count);
	free(r->offsets);
	free(r->nodes);
	memset(r, 0, sizeof *r);
}

int octree_validate(const struct octree_node *nodes, uint32_t n_nodes,
		    const uint32_t *ucodes, uint32_t n_unique, char *err, size_t errlen)
{
	uint32_t attached = 0;
	uint8_t *seen;
	int rc = 0;
	if (n_unique == 0)
		return n_nodes ? octree_fail(err, errlen, "nodes without codes") : 0;
	if (n_nodes == 0 || nodes[0].parent != -1 || nodes[0].level != 0)
		return octree_fail(err, errlen, "node 0 is not the root");
	seen = calloc(n_unique, 1);
	if (!seen)
		return octree_fail(err, errlen, "out of memory");
	for (uint32_t v = 0; v < n_nodes && !rc; v++) {
		const struct octree_node *nd = &nodes[v];
		uint32_t nm = OCTREE_NODE_MASK(nd->masks), lm = OCTREE_LEAF_MASK(nd->masks);
		if (nd->level > OCTREE_MAX_LEVEL || (nd->masks >> 16) || (nm & lm) || !(nm | lm))
			rc = octree_fail(err, errlen, "node %u: bad level or masks", v);
		else if (v && (nd->parent < 0 || (uint32_t)nd->parent >= n_nodes))
			rc = octree_fail(err, errlen, "node %u: bad parent", v);
		for (uint32_t c = 0; c < 8 && !rc; c++) {
			int32_t ch = nd->children[c];
			if (nm >> c & 1) {
				const struct octree_node *cn = ch > 0 && (uint32_t)ch < n_nodes ?
					&nodes[ch] : NULL;
				if (!cn || cn->parent != (int32_t)v || cn->level != nd->level + 1 ||
				    cn->prefix != (nd->prefix << 3 | c))
					rc = octree_fail(err, errlen, "node %u: bad child %u", v, c);
			} else if (lm >> c & 1) {
				if (ch < 0 || (uint32_t)ch >= n_unique || seen[ch] ||
				    ucodes[ch] >> (OCTREE_CODE_BITS - 3 * (nd->level + 1)) !=
				    (nd->prefix << 3 | c))
					rc = octree_fail(err, errlen, "node %u: bad leaf %u", v, c);
				else
					seen[ch] = 1, attached++;
			} else if (ch != -1) {
				rc = octree_fail(err, errlen, "node %u: stray child %u", v, c);
			}
		}
	}
	free(seen);
	if (!rc && attached != n_unique)
		rc = octree_fail(err, errlen, "%u of %u codes attached", attached, n_unique);
	return rc;
}
