/* io.h: the octree app's input (PCD frames) and output check (octree_io,
 * see docs/app-format.md "io"), plus helpers shared by tests and bench. */
#ifndef OCTREE_IO_H
#define OCTREE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "octree_task.h"

/* Lists the *.pcd files of directory dir (or dir itself when it is a
 * file), sorted by name. Returns the count (>= 1) and a malloc'd array of
 * malloc'd paths in *paths (free with octree_free_paths), or -1 with a
 * message in err (including "no .pcd files"). */
int octree_list_inputs(const char *dir, char ***paths, char *err, size_t errlen);
void octree_free_paths(char **paths, int n);

/* Fills task t with n points xyzw ([n * 4]) and their bounding cube. */
void octree_fill_task(struct octree_task *t, const float *xyzw, uint32_t n);

/* The digest line of one frame's octree, without newline:
 * "frame SEQ points N unique U nodes K hash HHHHHHHHHHHHHHHH". */
void octree_digest(char *buf, size_t len, uint64_t seq, uint32_t n_points,
		   uint32_t n_unique, const int32_t *nodes, uint32_t n_nodes);

#endif
