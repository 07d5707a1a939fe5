/* The run status a parent reads after the program is gone (docs/runtime.md,
 * "The run status"): a generated program or profiler started with
 * BTRT_STATUS_FD=N in its environment maps file descriptor N (a memfd the
 * parent made: sizeof(struct btrt_status) bytes starting with
 * BTRT_STATUS_OFFER) shared, removes the variable, and keeps
 * in it, while it runs, the stage, PU and task each dispatcher is inside
 * and how many tasks finished. A kernel that ends the process with _exit(2)
 * or exit_group(2) runs no handler of the program's, and the OOM killer's
 * SIGKILL none either: the parent (btc's profiler, tuner and final run)
 * then names the stage from this area. Fixed layout, little-endian as the
 * machine; no pointers. */
#ifndef BTRT_STATUS_H
#define BTRT_STATUS_H

#include <stdint.h>

/* The environment variable that carries the descriptor's number. */
#define BTRT_STATUS_ENV "BTRT_STATUS_FD"
/* "BTS1": the layout below, version 1, mapped by the program. */
#define BTRT_STATUS_MAGIC 0x31535442u
/* "BTS0": what the parent writes first; the program maps only a
 * descriptor of exactly sizeof(struct btrt_status) bytes that starts
 * with it (never another file that happens to have the number). */
#define BTRT_STATUS_OFFER 0x30535442u
/* Slots mirrored (the watch table's first ones: dispatchers and the
 * io thread's open); a thread past them is not published here. */
#define BTRT_STATUS_SLOTS 32
/* Bytes of a stage or PU name kept, NUL included (longer: cut). */
#define BTRT_STATUS_NAME 64

enum btrt_status_state {
	BTRT_STATUS_IDLE = 0,     /* mapped, the run not started */
	BTRT_STATUS_RUNNING = 1,  /* a run in progress: its end was not reached */
	BTRT_STATUS_FINISHED = 2, /* the run returned (success or a named error) */
	BTRT_STATUS_REPORTED = 3, /* the program's guard named a fault itself */
};

struct btrt_status_slot {
	uint32_t busy;  /* 1: the thread is inside the stage below */
	int32_t stage;  /* app stage index; -1: not a stage (the input's open) */
	uint64_t seq;   /* the task it runs */
	char stage_name[BTRT_STATUS_NAME];
	char pu[BTRT_STATUS_NAME]; /* "" when not a kernel */
};

struct btrt_status {
	uint32_t magic;      /* BTRT_STATUS_MAGIC once the program mapped it */
	uint32_t state;      /* enum btrt_status_state */
	uint64_t tasks_done; /* tasks through the sink (checked), all runs of the process */
	char phase[16];      /* "run", "profile" */
	struct btrt_status_slot slot[BTRT_STATUS_SLOTS];
};

#endif
