/* Building a generated project: generate it (shaders, sources, meson
 * project) and configure and build it with meson and ninja, natively or
 * with the device's cross file. btc_job_build itself is in driver/job.h. */
#ifndef BTC_DRIVER_BUILD_H
#define BTC_DRIVER_BUILD_H

#include <stdbool.h>

#include "front/app.h"
#include "front/device.h"
#include "util/diag.h"

#endif
