/* Where btc finds its own files: the source tree, the device library, the
 * templates. */
#ifndef BTC_PATHS_H
#define BTC_PATHS_H

/* btc's source tree (templates/, runtime/, devices/, cross/): $BTC_ROOT,
 * else the tree btc was built from, else the tree that holds the running
 * executable (build/btc/btc), so a copied checkout works too. Static
 * storage; never NULL. */
const char *btc_source_root(void);

/* Directory of the device library (devices/NAME.yaml): $BTC_DEVICE_DIR, or
 * the source tree's devices/. */
const char *btc_device_dir(void);

/* $BTC_TEMPLATE_DIR, or the source tree's templates/. */
const char *btc_template_dir(void);

/* The template file `name` (e.g. "profiler.c.in") in btc_template_dir():
 * a new string (caller frees). The generators read templates through it,
 * and whatever hashes a template (the profiling cache key) must too. */
char *btc_template_path(const char *name);

#endif
