#include "front/cores_here.h"

#include <sched.h>
#include <string.h>
#include <sys/utsname.h>

int btc_device_check_cores_here(const struct btc_device *dev, bool here, const bool *avail,
				int n_avail, struct btc_diag *d)
{
	if (!strcmp(dev->path ? dev->path : "", "host"))
		return 0; /* detected here */
	struct utsname u;
	if (!here && (uname(&u) || !dev->arch || strcmp(u.machine, dev->arch)))
		return 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	bool known = avail || sched_getaffinity(0, sizeof(set), &set) == 0;
	if (!known)
		return 0;
	int n_here = avail ? 0 : CPU_COUNT(&set), bad = 0;
	for (int c = 0; avail && c < n_avail; c++)
		n_here += avail[c];
	for (int p = 0; p < dev->n_pus; p++) {
		const struct btc_pu *pu = &dev->pus[p];
		for (int k = 0; k < pu->n_cores; k++) {
			int c = pu->cores[k];
			bool ok = avail ? c >= 0 && c < n_avail && avail[c]
					: c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &set);
			if (ok)
				continue;
			bad++;
			if (here)
				btc_error(d, pu->loc,
					  "PU '%s': core %d is not available on this machine (%d "
					  "usable CPU%s): a thread pinned there would run elsewhere",
					  pu->name, c, n_here, n_here == 1 ? "" : "s");
			else
				btc_warning(d, pu->loc,
					    "PU '%s': core %d is not available on this machine (%d "
					    "usable CPU%s): fine for another machine, an error when "
					    "run here",
					    pu->name, c, n_here, n_here == 1 ? "" : "s");
		}
	}
	return bad;
}
