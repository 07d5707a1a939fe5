/* `btc schedule`: the BT-Optimizer subcommand (docs/scheduler.md). */
#ifndef BTC_CMD_SCHEDULE_H
#define BTC_CMD_SCHEDULE_H

/* Runs `btc schedule ARGS...` (argv[0] is "schedule"); returns the exit
 * status: 0 ok, 1 user error (reported), 2 usage error. */
int btc_cmd_schedule(int argc, char **argv);

#endif
