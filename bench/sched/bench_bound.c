/* sched-bench --bounds: the fluid and the assignment bound on the 12
 * reference tables, the paper's space and with farms: each bound, the
 * space's best predicted period (the latency objective's rank 1 or the
 * best baseline, by the exhaustive oracle) and the wall time of each
 * bound (docs/scheduler.md, "The assignment bound"). */
#include <math.h>
#include <stdio.h>

#include "btc_config.h"
#include "bench_sched.h"
#include "best_period.h"
#include "ref_table.h"
#include "sched/bound.h"
#include "sched/optimizer.h"

void bound_bench(void)
{
	static const char *const modes[] = { "interference", "isolated" };
	printf("\n8. reference tables: fluid and assignment bounds (ms) against the space's "
	       "best period, wall ms of each bound (the MIP: both solves)\n\n");
	printf("| device | app | mode | space | fluid | assignment, C2 relaxed | assignment | "
	       "best period | assignment / best | fluid ms | MIP ms |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	double worst = 0;
	for (int dv = 0; dv < 2; dv++)
		for (int ap = 0; ap < 3; ap++)
			for (int md = 0; md < 2; md++) {
				char path[512];
				struct ref_table t;
				if (ref_table_load_named(BTC_DATA_DIR "/profiles", ref_devices[dv],
							 ref_apps[ap], modes[md], path,
							 sizeof(path), &t))
					continue;
				struct btc_sched_problem p = ref_table_problem(&t);
				for (int farms = 0; farms < 2; farms++) {
					struct btc_sched_options o;
					btc_sched_options_init(&o);
					o.farms = farms;
					struct btc_diag d;
					btc_diag_init(&d, NULL);
					struct btc_sched_bound f;
					struct btc_sched_assign a;
					double t0 = btc_sched_now_ms();
					if (btc_sched_fluid_bound(&p, &o, &f, &d) != BTC_OK) {
						btc_sched_bound_free(&f);
						continue;
					}
					double fluid_ms = btc_sched_now_ms() - t0;
					btc_sched_assign_bound(&p, &o, NULL, &f, &a, &d);
					double best = best_period(&p, &o);
					worst = fmax(worst, a.solve_ms);
					printf("| %s | %s | %s | %s | %.3f | %.3f | %.3f%s | %.3f | "
					       "%.1f %% | %.2f | %.1f |\n",
					       ref_devices[dv], ref_apps[ap], modes[md],
					       farms ? "farms" : "paper", f.bound_ms,
					       fmax(f.bound_ms, a.relaxed_ms), a.bound_ms,
					       a.exact ? "" : " (MIP not solved)", best,
					       100 * a.bound_ms / best, fluid_ms, a.solve_ms);
					btc_sched_assign_free(&a);
					btc_sched_bound_free(&f);
				}
				ref_table_free(&t);
			}
	printf("\nlongest MIP: %.1f ms\n", worst);
}
