/* Inside the runtime only: the pieces of btrt_workload_main
 * (btrt_workload_main.c): its options (btrt_workload_opts.c) and its
 * report (btrt_workload_report.c, btrt_report_none.c). */
#ifndef BTRT_WORKLOAD_INTERNAL_H
#define BTRT_WORKLOAD_INTERNAL_H

#include <stdio.h>

#include "btrt_env.h"
#include "btrt_workload.h"

/* The command line of the program (`--help`); per-stream arrays
 * [n], malloc'ed (btrt_workload_options_free). */
struct btrt_workload_options {
	long tasks, warmup;
	const char *trace, *report;
	int list, list_json, help, quiet;
	long joint;                /* --joint K: the candidate run (0 without any) */
	int pace;                  /* --pace: the candidate's planned rates */
	uint32_t n;
	const char **input;
	long *schedule;            /* --schedule S=N, else candidate K's, else the stream's */
	double *rate;              /* --rate S=R, else (--pace) candidate K's, else the stream's */
	long *tasks_of;            /* per stream: --tasks S=N, else tasks */
	long *warmup_of;           /* per stream: --warmup S=N, else warmup (as
				      asked; btrt_model_warmup raises it to the
				      stream's pool) */
	unsigned char *run;        /* 1: the stream runs (--streams) */
	long multiplex;            /* --multiplex T: tasks a turn; 0: all at once */
	long *turn_of;             /* per stream: --multiplex S=T, else multiplex */
	double *share;             /* per stream: --share S=X (fair admission), else 0 */
	int placement_app;         /* --placement app: every stream's io threads on
				      its app's single-app service cores */
	int cores_shared;          /* --cores shared: every chunk on its schedule's
				      cores; 0 (split): the candidate's core sets */
	int together;              /* --together: the first stream through stops
				      the others admitting */
	const char *gate;          /* --start-gate READY,GO (borrowed from argv) */
	int share_probe;           /* --share-probe: measure kappa, run nothing */
	double share_probe_ms;     /* its window per repetition, ms (500) */
};

void btrt_workload_usage(const struct btrt_workload *w, FILE *out, const char *argv0);
/* Parses argv into o (defaults from w). Returns 0 (o->help set for
 * --help), or -1 after a message on stderr. Free o in both cases. */
int btrt_workload_parse(const struct btrt_workload *w, int argc, char **argv,
			struct btrt_workload_options *o);
void btrt_workload_options_free(struct btrt_workload_options *o);
/* The --list table of w's streams to out. */
void btrt_workload_list(const struct btrt_workload *w, const struct btrt_workload_options *o,
			FILE *out);
/* --list-json (docs/codegen.md, "Workload projects"): the streams and
 * the joint candidates as one JSON object to out. Returns 0, or -1 after
 * a message (no JSON library, out of memory). */
int btrt_workload_list_json(const struct btrt_workload *w, FILE *out);

/* Stream i's service cores under o (docs/runtime.md, "Several streams"):
 * (*io)[0..*n_io) for its io threads (*n_io 0: unpinned; borrowed from
 * w) and *gpu the core
 * of its GPU dispatchers (-1: the chunk table's own). --placement app,
 * or a workload without joint candidates: its app's single-app ones
 * (prog->service_cores, the chunk table's); else candidate o->joint's. */
void btrt_workload_service(const struct btrt_workload *w, const struct btrt_workload_options *o,
			   uint32_t i, const int **io, uint32_t *n_io, int *gpu);

/* Stream i's CPU chunk core sets under o (docs/runtime.md, "Several
 * streams"): [*n] per chunk of its schedule's chunk table (borrowed from
 * w), or NULL (every chunk on its schedule's cores): with --cores
 * shared, --placement app, a workload without joint candidates, or a
 * --schedule that is not candidate o->joint's for the stream. */
const struct btrt_workload_cores *btrt_workload_chunk_cores(const struct btrt_workload *w,
							    const struct btrt_workload_options *o,
							    uint32_t i, uint32_t *n);

/* One stream's figures of a verified run. */
struct btrt_workload_figures {
	uint32_t stream;           /* index in the workload */
	const char *app, *label;
	long schedule;
	double rate;               /* the pacing, tasks/s; 0: none */
	double share;              /* the fair admission share (--share); 0: none */
	const struct btrt_run *run;
	uint64_t tasks;            /* checked */
	uint64_t warmup;           /* the stream's warm-up: --warmup, at least
				      its pool (btrt_model_warmup) */
	long warmup_requested;     /* its --warmup (S=N or N) as asked */
	uint32_t pool;             /* the stream's TaskObjects */
	double ms_per_task;        /* steady state */
	double tasks_per_s;
	double wall_ms;            /* first load to last check */
	double prepare_ms;         /* its GPU context, io and pool made
				      (prepare_stream's wall time) */
	int vk_device, vk_queue;   /* Vulkan: the device (the first stream's
				      index in the run on it) and the queue
				      the stream submitted to; -1: none */
	double *chunk_share;       /* [n_chunks]: chunk busy time / wall time,
				      the share of its PU the stream took */
	uint32_t n_chunks;
	const struct btrt_chunk *chunks;
};

/* Writes the workload's JSON report (docs/report.md, "The workload's
 * report") to path. Returns 0, or -1 after a message on stderr (or when
 * the build has no JSON library). */
int btrt_workload_report_write(const char *path, const struct btrt_workload *w,
			       const struct btrt_workload_options *o,
			       const struct btrt_workload_figures *f, uint32_t n);

/* --share-probe (btrt_workload_probe.c): the GPU's same-PU capacity
 * kappa(n), n = 2 .. the streams whose apps have GPU stages, measured
 * with the program's own mechanism (each stream its GPU context, pool
 * and pinned dispatcher), printed as `@share,PU*n,isolated,MEAN,SD,3`
 * rows on stdout (docs/app-format.md). Returns the exit status: 0 (also
 * when no schedule has a GPU chunk: nothing measured), 1 after a message
 * on stderr, 128 + the signal after SIGINT / SIGTERM. */
int btrt_workload_share_probe(const struct btrt_workload *w, const char *argv0,
			      const struct btrt_env *env, const struct btrt_workload_options *o);

#endif
