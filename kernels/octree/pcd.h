/* pcd.h: reader for Point Cloud Library PCD files (v0.5-0.7).
 *
 * Reads the x, y and z fields of any PCD file with DATA ascii, binary or
 * binary_compressed (LZF, field-major), whatever the field order and
 * whatever other fields it carries. x, y and z must be floats (TYPE F,
 * SIZE 4 or 8) with COUNT 1. Points with a non-finite coordinate (the NaN
 * pixels of organised Kinect clouds) are dropped. */
#ifndef OCTREE_PCD_H
#define OCTREE_PCD_H

#include <stddef.h>
#include <stdint.h>

/* A point cloud read from a PCD file. */
struct pcd_cloud {
	float *xyzw;            /* [n * 4]: x y z 0 per point (malloc'd) */
	uint32_t n;             /* finite points kept */
	uint32_t n_declared;    /* POINTS of the header */
	uint32_t width, height; /* WIDTH, HEIGHT of the header */
	char data_kind[20];     /* "ascii", "binary" or "binary_compressed" */
};

/* Parses the size bytes at data as a PCD file. Rejects files that declare
 * more than max_points points (before allocating anything for them).
 * Returns 0 and fills *out (free with pcd_free), or -1 with a message in err
 * ("line 7: ...", "truncated binary data: ...") and *out zeroed. Never reads
 * outside [data, data + size). */
int pcd_parse(const uint8_t *data, size_t size, uint32_t max_points,
	      struct pcd_cloud *out, char *err, size_t errlen);

/* Reads and parses the file at path (see pcd_parse); messages start with
 * the path. */
int pcd_read_file(const char *path, uint32_t max_points, struct pcd_cloud *out,
		  char *err, size_t errlen);

/* Frees what pcd_parse allocated and zeroes *c. NULL-safe. */
void pcd_free(struct pcd_cloud *c);

#endif
