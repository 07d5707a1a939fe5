/* Profiling tables: the measured time of every stage on every PU, in the two
 * modes of BT-Profiler (paper Sec. III-C): isolated, and interference-heavy.
 *
 * btc's own format is a tidy CSV, one row per (stage, PU, mode):
 *
 *     # btc profiling table
 *     # app: octree
 *     # device: pixel7a
 *     # btc: 0.1.0
 *     stage,pu,mode,mean_ms,stddev_ms,samples
 *     morton,big,isolated,0.4953,0.0121,30
 *
 * The chunk model's terms (docs/scheduler.md) are further rows whose stage
 * field names the term, `@fixed`, `@in_latency`, `@in_per_mib`,
 * `@out_latency`, `@out_per_mib` (per PU), the io rows (PU field `io`):
 * `@io_load` and `@io_check` (the io source's load and the io sink's
 * check per task, timed apart: T_io = max(load, check), the runtime
 * overlaps them) and `@io` (load + check timed together: tables written
 * before the io source and sink, read as T_io = that sum), and a
 * metadata line `# io_loads: BUF,BUF` naming the buffers io.load fills per
 * task. A table without them (today's files, the reference layout) has
 * F = X = T_io = 0: the paper's model (docs/app-format.md).
 *
 * Core counts (issue 16): a stage row whose PU field is `NAME[k]` times
 * the stage on k of CPU PU NAME's cores (1 <= k < the PU's size; `NAME`
 * alone is all of them), in the same mode columns:
 *
 *     morton,big[2],interference,0.8120,0.0150,30
 *
 * A table without such rows (the reference tables) offers only "all
 * cores"; the optimizer's core splits use the counts a table has.
 *
 * The reader also accepts the BetterTogether reference layout
 * (`stage,little,medium,big,vulkan,cuda,device,run`; 1-based stages; 0.0
 * means "no such PU"; several runs appended), detected from its header. */
#ifndef BTC_TABLE_H
#define BTC_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "front/app.h"
#include "front/device.h"
#include "util/diag.h"

/* The longest line a table may have, in bytes (a real row is under 200);
 * a longer line is an error, never split into rows. */
#define BTC_TABLE_MAX_LINE 65536

/* isolated and interference: the paper's BT-Profiler modes; placed: every
 * other PU runs the stage while the threads are placed as the generated
 * pipeline places them (docs/scheduler.md, "Interference modes"). */
enum btc_mode { BTC_MODE_ISOLATED, BTC_MODE_INTERFERENCE, BTC_MODE_PLACED, BTC_N_MODES };
const char *btc_mode_name(enum btc_mode m);
/* Parses "isolated"/"interference"/"placed"; returns false otherwise. */
bool btc_mode_parse(const char *s, enum btc_mode *m);

struct btc_table_entry {
	double mean_ms;   /* mean time of one execution of the stage, ms */
	double stddev_ms; /* sample standard deviation, ms (0 if 1 sample) */
	int samples;      /* number of measurements behind the mean */
	bool present;
};

/* Per-PU terms of the chunk model, ms (per_mib: ms per MiB). */
enum btc_table_term {
	BTC_TERM_FIXED,      /* F_c: fixed cost of a chunk per task */
	BTC_TERM_IN_LATENCY, /* per buffer moved host -> PU */
	BTC_TERM_IN_PER_MIB,
	BTC_TERM_OUT_LATENCY, /* per buffer moved PU -> host */
	BTC_TERM_OUT_PER_MIB,
	BTC_N_TERMS
};
const char *btc_table_term_name(enum btc_table_term k); /* "@fixed", ... */

/* Core counts per PU a table may hold (= BTC_SCHED_MAX_CORE_COUNTS). */
#define BTC_TABLE_MAX_CORE_COUNTS 8

struct btc_table {
	int n_stages, n_pus; /* shapes follow the app and device it was loaded for */
	int n_buffers;
	struct btc_table_entry *e[BTC_N_MODES]; /* [n_stages * n_pus], stage-major */
	bool has_mode[BTC_N_MODES];
	/* The chunk model's terms, per mode: term[m][pu * BTC_N_TERMS + k]
	 * (absent: 0), io[m] (`@io`: load + check timed together, ms per
	 * task), io_load[m] and io_check[m] (`@io_load`, `@io_check`: timed
	 * apart); btc_table_io_ms reads them. */
	struct btc_table_entry *term[BTC_N_MODES];
	struct btc_table_entry io[BTC_N_MODES];
	struct btc_table_entry io_load[BTC_N_MODES], io_check[BTC_N_MODES];
	bool has_terms[BTC_N_MODES];      /* any term row of that mode */
	/* `@in_chunk:STAGE,PU,mode,...` rows: t^in, the stage's compute time
	 * on GPU PU p inside a chunk, after another stage of that chunk on p
	 * (ms per task, without F_c); in_chunk[m][s * n_pus + p], absent:
	 * the chunk model takes the stage's time alone (docs/scheduler.md,
	 * "The chunk model"; btc_table_in_chunk_at). */
	struct btc_table_entry *in_chunk[BTC_N_MODES];
	bool *io_loaded;                  /* [n_buffers] from `# io_loads:` */
	bool *in_place;                   /* [n_buffers] from `# in_place:`: a
					   * buffer a stage writes that the GPU
					   * reads and writes in host memory
					   * (discrete CUDA, pinned): never moved */
	double *touched;                  /* [n_buffers] bytes one task touches,
					   * from `# touched:`; -1: unknown */
	/* Core counts: PU p was timed on core_counts[p][j] cores (ascending,
	 * j < n_core_counts[p]), entries at btc_table_cores_at. */
	int n_core_counts[BTC_MAX_PUS];
	int core_counts[BTC_MAX_PUS][BTC_TABLE_MAX_CORE_COUNTS];
	struct btc_table_entry *cores[BTC_N_MODES]; /* [n_stages * n_pus * MAX] */
	/* Co-run slowdowns (issue 27; `@corun,P/Q,mode,...` rows):
	 * corun[m][p * n_pus + q], the factor by which a stage on PU p slows
	 * while another app's stage occupies PU q (table_corun.c). */
	struct btc_table_entry *corun[BTC_N_MODES];
	bool has_corun[BTC_N_MODES];
	char *corun_with;                 /* `# corun_with: B,C`: the co-runner apps
					   * the @corun rows were measured against
					   * (comma list), or NULL: not said */
	/* Same-PU capacities (issue 27; `@share,P*N,mode,...` rows):
	 * share[m][p * (BTC_TABLE_MAX_SHARE + 1) + n], PU p's capacity
	 * kappa_p(n) with n (2..BTC_TABLE_MAX_SHARE) streams' chunks on it at
	 * once (table_corun.c) */
	struct btc_table_entry *share[BTC_N_MODES];
	bool has_share[BTC_N_MODES];
	char *share_with;                 /* `# share_with: octree*4,...`: the
					   * workload the @share rows were measured
					   * with, or NULL */
	bool reference_layout;            /* read from the reference layout */
	char *app, *device, *btc_version; /* header metadata, or NULL */
};

/* The entry of stage s on PU p in mode m. */
/* T_io of mode m in ms per task, the io bound of the chunk model's period
 * (docs/scheduler.md, "The chunk model", "The io farms"):
 * max(load / k_load, check / k_check) (btrt_model_io_ms) when the table
 * times them apart (`@io_load`, `@io_check`: the io source's k_load
 * loaders load ahead while the io sink's k_check check workers check
 * behind; 0 read as 1), else the `@io` row (a table written before the io
 * source and sink: load + check in series, read as it is, an upper bound
 * of their max), else 0. The load and check figures (one thread each) go
 * to *load_ms and *check_ms (NAN when not timed apart; either may be
 * NULL). */
double btc_table_io_ms(const struct btc_table *t, enum btc_mode m, uint32_t k_load,
		       uint32_t k_check, double *load_ms, double *check_ms);

static inline struct btc_table_entry *btc_table_at(const struct btc_table *t, enum btc_mode m,
						   int s, int p)
{
	return &t->e[m][s * t->n_pus + p];
}

/* The in-chunk entry (`@in_chunk:STAGE`) of stage s on PU p in mode m. */
static inline struct btc_table_entry *btc_table_in_chunk_at(const struct btc_table *t,
							    enum btc_mode m, int s, int p)
{
	return &t->in_chunk[m][s * t->n_pus + p];
}
/* The entry of stage s on core_counts[p][j] cores of PU p in mode m. */
static inline struct btc_table_entry *btc_table_cores_at(const struct btc_table *t,
							 enum btc_mode m, int s, int p, int j)
{
	return &t->cores[m][((size_t)s * (size_t)t->n_pus + (size_t)p) *
				    BTC_TABLE_MAX_CORE_COUNTS +
			    (size_t)j];
}

/* Index j of core count k of PU p, or -1. With add, a count not yet there
 * is inserted in ascending order (the entries of larger counts move up, in
 * every mode); -1 when BTC_TABLE_MAX_CORE_COUNTS are there already. For the
 * profiler: slot, then fill btc_table_cores_at. */
int btc_table_core_slot(struct btc_table *t, int p, int k, bool add);

/* Loads the table at path (or `text`, for tests) for the given app and
 * device, detecting the layout from the header line. A reference-layout
 * file holds one mode: `ref_mode` says which. Checks every row (unknown
 * stage or PU, NaN, negative or non-numeric times, duplicates) and
 * completeness: every mode present must time every stage on every PU
 * whose backend has a kernel for it. Reports every error with file:line:col
 * and returns NULL on any; on success the caller owns the table. */
struct btc_table *btc_table_load(const char *path, const char *text, const struct btc_app *app,
				 const struct btc_device *dev, enum btc_mode ref_mode,
				 struct btc_diag *d);

/* A new empty table for app x dev (no modes present). */
struct btc_table *btc_table_new(const struct btc_app *app, const struct btc_device *dev);

/* Writes t in btc's tidy CSV (deterministic order: mode, stage, PU). */
void btc_table_write(const struct btc_table *t, const struct btc_app *app,
		     const struct btc_device *dev, FILE *out);

void btc_table_free(struct btc_table *t);

/* Co-run slowdown rows (issue 27, docs/app-format.md "Co-run rows"):
 *
 *     @corun,big/gpu,interference,1.35,0.04,30
 *
 * the factor (dimensionless, in the mean_ms column) by which a stage on
 * PU `big` runs slower while another app's stage occupies PU `gpu`;
 * stddev and samples as for a stage row. P and Q are distinct PUs of the
 * device. table_corun.c. */

/* The entry of the row's `P/Q` field in mode m (reported at loc and NULL
 * when the field is not two distinct known PUs); marks has_corun[m]. For
 * the reader. */
struct btc_table_entry *btc_table_corun_entry(struct btc_table *t, enum btc_mode m,
					      const char *field, const struct btc_device *dev,
					      struct btc_loc loc, struct btc_diag *d);

/* The factor of PU p slowed by PU q in mode m: the row's mean (values
 * below 1 count as 1: a co-run never speeds a stage up in the model),
 * 1 when there is no such row or p == q. */
double btc_table_corun_factor(const struct btc_table *t, enum btc_mode m, int p, int q);

/* The stage field's prefix of an in-chunk row: `@in_chunk:STAGE`. */
#define BTC_TABLE_IN_CHUNK "@in_chunk:"
/* `# corun_with: B,C` (docs/app-format.md "Co-run rows"): the apps the
 * @corun rows were measured against, each row's factor the largest over
 * them; a comment line, so older readers skip it. */
#define BTC_TABLE_CORUN_WITH "# corun_with: "
/* When line is a `# corun_with:` line: its list into t->corun_with (the
 * last such line wins), true. For the reader. */
bool btc_table_corun_with_read(const char *line, struct btc_table *t);

/* Writes mode m's @corun rows (PU order p, then q). */
void btc_table_write_corun(const struct btc_table *t, const struct btc_device *dev,
			   enum btc_mode m, FILE *out);

/* Same-PU capacity rows (issue 27, docs/app-format.md "Same-PU capacity
 * rows"):
 *
 *     @share,cuda*4,isolated,1.300000,0.020000,3
 *
 * PU `cuda` delivers 1.30 PU-ms of profiled work per ms while 4 streams'
 * chunks run on it at once (the mean column; dimensionless, > 0; below 1:
 * they lose to each other), against one after the other; sd and count
 * over the repetitions. N from 2 to BTC_TABLE_MAX_SHARE. */
#define BTC_TABLE_MAX_SHARE 64
/* The entry of the row's `P*N` field in mode m (reported at loc and NULL
 * when the field is not a known PU and a count 2..BTC_TABLE_MAX_SHARE);
 * marks has_share[m]. For the reader. */
struct btc_table_entry *btc_table_share_entry(struct btc_table *t, enum btc_mode m,
					      const char *field, const struct btc_device *dev,
					      struct btc_loc loc, struct btc_diag *d);
/* kappa_p(n) of mode m: the row of n, else of the largest measured count
 * below n (a capacity measured with fewer streams), else 1 (and 1 for n <
 * 2). */
double btc_table_share_factor(const struct btc_table *t, enum btc_mode m, int p, int n);
/* `# share_with: A*N,B*M` (docs/app-format.md): the workload (apps and
 * their streams) the @share rows were measured with. */
#define BTC_TABLE_SHARE_WITH "# share_with: "
bool btc_table_share_with_read(const char *line, struct btc_table *t);
/* Writes mode m's @share rows (PU order, then count). */
void btc_table_write_share(const struct btc_table *t, const struct btc_device *dev,
			   enum btc_mode m, FILE *out);

/* Replaces one kind of measured rows in the profiling table at path: drops
 * every line that starts with row_prefix (e.g. "@corun,") and the line
 * that starts with with_prefix (e.g. BTC_TABLE_CORUN_WITH), then appends
 * with_prefix followed by with, and whatever write_rows(ctx, out) prints
 * (the new rows, one per line). The result is checked by loading it for
 * app on dev before it replaces the file atomically (util/fsafe.h).
 * Returns false with an error in d when the table cannot be read, the
 * result does not load or the write fails; the file is then unchanged. */
bool btc_table_replace_rows(const char *path, const struct btc_app *app,
			    const struct btc_device *dev, const char *row_prefix,
			    const char *with_prefix, const char *with,
			    void (*write_rows)(const void *ctx, FILE *out), const void *ctx,
			    struct btc_diag *d);

#endif
