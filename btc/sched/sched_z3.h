/* What BT-Optimizer's two Z3 encodings share, the paper's space
 * (sched_z3.c) and the larger space (sched_z3_space*.c): the context and
 * solver they start from and a check under the time budget. Internal to
 * sched/. */
#ifndef BTC_SCHED_Z3_H
#define BTC_SCHED_Z3_H

#include <z3.h>

/* A Z3 context and solver as both encodings use them: the process's heap
 * prepared (btc_sched_z3_memory), Z3's random seeds pinned (the search is
 * deterministic; the result would be anyway, it is a total order, the
 * time too), models on, the SMT core (Z3_mk_simple_solver: on these
 * problems faster than the SAT core of QF_FD, whose per-check
 * preprocessing dominates), ctrl_c off (Z3 would swap in its own SIGINT
 * handler during each check and restore btc's with SA_RESTART,
 * util/proc.c). Release with btc_sched_z3_stop. */
void btc_sched_z3_start(Z3_context *ctx, Z3_solver *s);
void btc_sched_z3_stop(Z3_context ctx, Z3_solver s);

/* Z3_solver_check_assumptions(assume[0..n)) with what is left of
 * deadline (ms on btc_sched_now_ms's clock, 0: none) as Z3's timeout;
 * *checks counts the checks made. Z3_L_TRUE / Z3_L_FALSE, or Z3_L_UNDEF
 * when the time is spent (less than 1 ms left before the check: not
 * made) or Z3 gives up. */
Z3_lbool btc_sched_z3_check(Z3_context ctx, Z3_solver s, double deadline, unsigned n,
			    Z3_ast *assume, long *checks);

#endif
