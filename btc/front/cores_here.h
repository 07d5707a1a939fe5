/* Whether a device's CPU cores exist on the machine btc runs on. */
#ifndef BTC_CORES_HERE_H
#define BTC_CORES_HERE_H

#include <stdbool.h>

#include "front/device.h"
#include "util/diag.h"

/* Reports each CPU core of dev's PUs (`cores`, GPU dispatcher cores
 * included) that this process may not run on (not in its affinity mask:
 * the core does not exist here, is offline or outside the cpuset), at the
 * PU's YAML line. As an error when `here` (the program will run on this
 * machine: btc profile, tune, the main job: pinning a thread to such a
 * core fails and it would run elsewhere); else as a warning, and only
 * when dev->arch is this machine's architecture (a device for another
 * machine may have any cores). `avail` (tests) replaces the affinity
 * mask: avail[c] for c < n_avail; NULL: ask the kernel. Returns the
 * number of cores reported. */
int btc_device_check_cores_here(const struct btc_device *dev, bool here, const bool *avail,
				int n_avail, struct btc_diag *d);

#endif
