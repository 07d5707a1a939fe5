/* Small string helpers shared by every folder (one home for each). */
#ifndef BTC_STR_H
#define BTC_STR_H

#include <stdbool.h>

/* qsort comparator over an array of `char *`: strcmp order. */
int btc_str_qsort_cmp(const void *a, const void *b);

/* A new copy of s in ASCII upper case (caller frees). */
char *btc_str_upper(const char *s);

/* Does s end with suffix? */
bool btc_str_ends_with(const char *s, const char *suffix);

/* The last component of path: what follows its last '/', or path itself
 * (borrowed from path). */
const char *btc_base_name(const char *path);

/* The directory part of path: what precedes its last '/'; "/" for a file
 * in the root, "." when path has no '/' (caller frees). */
char *btc_dir_name(const char *path);

/* Edit distance (insertions, deletions, substitutions) between a and b,
 * capped at 100 (longer strings count as 100). For "did you mean". */
int btc_str_distance(const char *a, const char *b);

#endif
