/* Building a generated project: generate it (shaders, sources, meson
 * project) and configure and build it with meson and ninja, natively or
 * with the device's cross file. btc_job_build itself is in driver/job.h. */
#ifndef BTC_DRIVER_BUILD_H
#define BTC_DRIVER_BUILD_H

#include <stdbool.h>

#include "front/app.h"
#include "front/device.h"
#include "gen/gen.h"
#include "util/diag.h"

/* Generates the project for the n schedules into dir (compiling the Vulkan
 * shaders when the device has a Vulkan PU) and builds it (btc_job_build).
 * *built: whether a program was built here (false where the toolchain is
 * absent). */
bool btc_build_project(const struct btc_app *app, const struct btc_device *dev,
		       const struct btc_gen_schedule *scheds, int n, const char *provenance,
		       const char *dir, bool *built, struct btc_diag *d);

#endif
