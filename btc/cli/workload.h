/* `btc schedule` over a workload of several apps (cli/cmd_workload.c,
 * cli/workload_print.c; docs/scheduler.md "Several apps"): the joint plan
 * (sched/joint_plan.h) made from the command line and printed. */
#ifndef BTC_CLI_WORKLOAD_H
#define BTC_CLI_WORKLOAD_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/options.h"
#include "sched/joint_plan.h"

/* Whether the options ask for a workload: --workload, several apps, or a
 * workload option (--streams, --weight, --rate, --app-table, --tables,
 * --objective maxmin|rates|sum, --same-pu). */
bool btc_cli_is_workload(const struct btc_cli_options *o);

/* Refuses the options that apply to one app only (printed; returns
 * false). */
bool btc_cli_workload_options_ok(const struct btc_cli_options *o);

/* The joint plan's request from the options (strings borrowed from o). */
void btc_cli_joint_request(const struct btc_cli_options *o, struct btc_joint_request *r);

/* The start that `btc schedule` and `btc gen` over a workload share:
 * refuses the one-app options, wants --workload or an app (else the usage
 * of cmd), loads the device into *dev (free with btc_device_free) and
 * fills the joint request r (strings borrowed from o). Returns 0, or the
 * exit status after a message: 2 a usage error, 1 the device could not be
 * loaded (reported through d); *dev is NULL then. */
int btc_cli_workload_start(const struct btc_cli_options *o, enum btc_cli_cmd cmd,
			   struct btc_diag *d, struct btc_device **dev,
			   struct btc_joint_request *r);

int btc_cmd_workload(const struct btc_cli_options *o);

/* Writes the joint plan as text or JSON (o->format; schema in
 * docs/scheduler.md). Returns 0, or -1 on a write error. */
int btc_cli_workload_print(FILE *out, const struct btc_cli_options *o,
			   const struct btc_joint_plan *w);

#endif
