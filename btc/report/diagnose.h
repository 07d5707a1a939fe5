/* Where a check failure comes from: the stages and PUs that tell the
 * schedules that failed their output check from those that passed. A
 * wrong kernel of stage S on PU P fails exactly the schedules that run S
 * on P, so comparing them names the suspect. */
#ifndef BTC_DIAGNOSE_H
#define BTC_DIAGNOSE_H

#include <stdbool.h>

#include "front/app.h"
#include "front/device.h"
#include "sched/plan.h"

/* Compares the schedules scheds[n] by failed[n] (true: failed its check).
 * For each stage, the set of PUs it runs on in failing schedules and in
 * passing ones; stages whose two sets are disjoint tell them apart, e.g.
 * "every failing schedule (1, 3) runs stage 'hist' on vulkan; every
 * passing one (0, 2) runs it on big or little". When no stage does, names
 * the stage/PU pairs that only failing schedules use. Returns a new text
 * (caller frees; one line, no newline), or NULL when no schedule failed.
 * Pure: reports nothing. */
char *btc_diagnose_failures(const struct btc_app *app, const struct btc_device *dev,
			    const struct btc_plan_schedule *scheds, const bool *failed, int n);

#endif
