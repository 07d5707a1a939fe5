/* Building a generated project: generate it (shaders, sources, meson
 * project) and configure and build it with meson and ninja, natively or
 * with the device's cross file. */
#ifndef BTC_DRIVER_BUILD_H
#define BTC_DRIVER_BUILD_H

#include <stdbool.h>

#include "front/app.h"
#include "front/device.h"
#include "util/diag.h"

/* Configures (if needed) and builds the generated project in dir,
 * cross-building when the device is not this machine's architecture.
 * Where the toolchain is absent (an Android NDK here) prints the exact
 * commands and returns true with *built = false. */
bool btc_job_build(const char *dir, const struct btc_device *dev, bool *built, struct btc_diag *d);

#endif
