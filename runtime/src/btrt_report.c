/* The program's JSON files, written with cJSON: the run report (--report;
 * docs/report.md, "The program's report") and the failure (--failure). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "btrt_fsafe.h"
#include "btrt_model.h"
#include "btrt_program_internal.h"
#include "btrt_trace.h"

/* The failure object: {"kind": "BTRT_E_CHECK", "schedule", "chunk",
 * "stage", "task" (-1: does not apply), "message"}; NULL: out of memory. */
static cJSON *failure_json(const struct btrt_error *e, long schedule)
{
	cJSON *f = cJSON_CreateObject();
	const char *kind = btrt_errname(e->kind);
	cJSON_AddStringToObject(f, "kind", kind ? kind : "unknown");
	cJSON_AddNumberToObject(f, "schedule", (double)schedule);
	cJSON_AddNumberToObject(f, "chunk", e->chunk);
	cJSON_AddNumberToObject(f, "stage", e->stage);
	cJSON_AddNumberToObject(f, "task", e->seq == UINT64_MAX ? -1.0 : (double)e->seq);
	cJSON_AddStringToObject(f, "message", e->msg);
	return f;
}

/* The schedule that ran: its kind, label and chunks (PU, stages, cores,
 * farm id). */
static cJSON *schedule_json(const struct btrt_program_schedule *s)
{
	cJSON *j = cJSON_CreateObject(), *chunks = cJSON_CreateArray();
	cJSON_AddStringToObject(j, "kind", s->kind);
	cJSON_AddStringToObject(j, "label", s->label);
	cJSON_AddItemToObject(j, "chunks", chunks);
	for (uint32_t c = 0; c < s->n_chunks; c++) {
		const struct btrt_chunk *ch = &s->chunks[c];
		cJSON *k = cJSON_CreateObject();
		cJSON_AddStringToObject(k, "pu", ch->name);
		cJSON_AddNumberToObject(k, "first_stage", ch->first_stage);
		cJSON_AddNumberToObject(k, "last_stage", ch->first_stage + ch->n_stages - 1);
		cJSON_AddNumberToObject(k, "cores", ch->n_cores);
		if (ch->farm)
			cJSON_AddNumberToObject(k, "farm", ch->farm);
		cJSON_AddItemToArray(chunks, k);
	}
	return j;
}

/* The adaptive run's figures (btrt_adapt_write_json writes the members of
 * an object as text): parsed into "adapt" with "start" first. NULL: out of
 * memory or not JSON. */
static cJSON *adapt_json(const struct btrt_adapt_result *ad, long start, uint64_t warmup)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return NULL;
	fprintf(m, "{\"start\": %ld, ", start);
	btrt_adapt_write_json(ad, warmup, m);
	fputc('}', m);
	cJSON *j = fclose(m) ? NULL : cJSON_ParseWithLength(text, len);
	free(text);
	return j;
}

/* `pool_buffers`: per layout buffer its name, memory kind, bytes per
 * TaskObject and the ms its allocation calls took over every TaskObject
 * (btrt_pool_buffer_setup). */
static void add_pool_buffers(cJSON *j, const struct btrt_program *prog,
			     const struct btrt_pool *pool)
{
	cJSON *a = cJSON_AddArrayToObject(j, "pool_buffers");
	for (uint32_t b = 0; b < prog->app.n_buffers; b++) {
		uint64_t bytes;
		double ms;
		if (btrt_pool_buffer_setup(pool, b, &bytes, &ms))
			break;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", prog->app.buffers[b].name);
		cJSON_AddStringToObject(e, "memory", btrt_pool_buffer_memory(pool, b));
		cJSON_AddNumberToObject(e, "bytes", (double)bytes);
		cJSON_AddNumberToObject(e, "alloc_ms", ms);
		cJSON_AddItemToArray(a, e);
	}
}

/* The report as a cJSON tree; NULL: out of memory. */
static cJSON *report_json(const struct btrt_program *prog, const struct btrt_program_options *o,
			  const struct btrt_program_outcome *out)
{
	const struct btrt_program_schedule *s = &prog->schedules[out->schedule];
	const struct btrt_run *run = out->run;
	double ms = out->ms_per_task;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "app", prog->app.name);
	cJSON_AddStringToObject(j, "device", prog->device);
	cJSON_AddNumberToObject(j, "schedule_index", (double)out->schedule);
	cJSON_AddItemToObject(j, "schedule", schedule_json(s));
	cJSON_AddNumberToObject(j, "predicted_ms", s->predicted_ms);
	cJSON_AddNumberToObject(j, "tasks", (double)btrt_run_items(run));
	/* the run's warm-up (at least the pool: issue 25), the one asked for,
	 * and the tasks of the steady-state figure (btrt_run_steady_ns) */
	cJSON_AddNumberToObject(j, "warmup", (double)o->warmup_run);
	cJSON_AddNumberToObject(j, "warmup_requested", (double)o->warmup);
	cJSON_AddNumberToObject(j, "measured_tasks",
				(double)btrt_run_steady_items(run, (uint64_t)o->warmup_run));
	if (out->pool)
		cJSON_AddNumberToObject(j, "pool", out->pool);
	cJSON_AddNumberToObject(j, "measured_ms_per_task", ms);
	cJSON_AddNumberToObject(j, "throughput_per_s", ms > 0 ? 1000.0 / ms : 0.0);
	cJSON_AddNumberToObject(j, "wall_ms", (double)btrt_run_wall_ns(run) / 1e6);
	cJSON_AddStringToObject(j, "omp_wait", btrt_omp_wait_name(prog->omp_wait));
	if (out->setup) {
		cJSON *su = cJSON_AddObjectToObject(j, "setup_ms");
		cJSON_AddNumberToObject(su, "gpu", out->setup->gpu_ms);
		cJSON_AddNumberToObject(su, "input_open", out->setup->input_open_ms);
		cJSON_AddNumberToObject(su, "pool", out->setup->pool_ms);
		cJSON_AddNumberToObject(su, "pool_io_probe", out->setup->pool_io_probe_ms);
		cJSON_AddNumberToObject(su, "pool_probe", out->setup->pool_probe_ms);
		cJSON_AddNumberToObject(su, "pool_zero", out->setup->pool_zero_ms);
		cJSON_AddNumberToObject(su, "pipeline", out->setup->pipeline_ms);
		if (out->setup->io_loaded_from)
			cJSON_AddStringToObject(j, "io_loaded_from", out->setup->io_loaded_from);
		if (out->setup->pool)
			add_pool_buffers(j, prog, out->setup->pool);
	}
	cJSON_AddBoolToObject(j, "verified", out->verified);
	/* the steady-state means: over the tasks of the period */
	uint64_t from = btrt_run_steady_from(run, (uint64_t)o->warmup_run);
	cJSON *chunks = cJSON_AddArrayToObject(j, "chunks");
	for (uint32_t c = 0; c < btrt_run_chunks(run); c++) {
		struct btrt_summary sum, st;
		btrt_run_chunk_summary(run, c, &sum);
		btrt_run_chunk_summary_from(run, c, from, &st);
		cJSON *k = cJSON_CreateObject();
		cJSON_AddStringToObject(k, "pu", out->adapt ? btrt_adapt_chunk_name(out->adapt, c)
							    : s->chunks[c].name);
		cJSON_AddNumberToObject(k, "mean_ms", sum.mean_ns / 1e6);
		cJSON_AddNumberToObject(k, "median_ms", sum.median_ns / 1e6);
		cJSON_AddNumberToObject(k, "p90_ms", sum.p90_ns / 1e6);
		cJSON_AddNumberToObject(k, "p99_ms", sum.p99_ns / 1e6);
		cJSON_AddNumberToObject(k, "steady_mean_ms", st.mean_ns / 1e6);
		cJSON_AddItemToArray(chunks, k);
	}
	/* each stage's own per-task time where it ran (a farm's: its first
	 * worker's; btrt_run_stage_summary): what a chunk's time is made of */
	cJSON *stages = cJSON_AddArrayToObject(j, "stages");
	for (uint32_t i = 0; i < prog->app.n_stages; i++) {
		struct btrt_summary sum, st;
		int gpu = 0;
		if (btrt_run_stage_summary(run, i, &sum, &gpu) != 0 || !sum.n)
			continue;
		btrt_run_stage_summary_from(run, i, from, &st, NULL);
		cJSON *k = cJSON_CreateObject();
		cJSON_AddNumberToObject(k, "stage", i);
		cJSON_AddBoolToObject(k, "gpu", gpu);
		cJSON_AddNumberToObject(k, "mean_ms", sum.mean_ns / 1e6);
		cJSON_AddNumberToObject(k, "median_ms", sum.median_ns / 1e6);
		cJSON_AddNumberToObject(k, "steady_mean_ms", st.mean_ns / 1e6);
		cJSON_AddItemToArray(stages, k);
	}
	struct btrt_summary ld, ck, lds, cks;
	if (btrt_run_io_summary(run, 0, &ld) == 0 && btrt_run_io_summary(run, 1, &ck) == 0 &&
	    btrt_run_io_summary_from(run, 0, from, &lds) == 0 &&
	    btrt_run_io_summary_from(run, 1, from, &cks) == 0) {
		uint32_t kc = btrt_run_check_threads(run), kl = btrt_run_load_threads(run);
		cJSON *io = cJSON_AddObjectToObject(j, "io");
		cJSON_AddNumberToObject(io, "load_mean_ms", ld.mean_ns / 1e6);
		cJSON_AddNumberToObject(io, "check_mean_ms", ck.mean_ns / 1e6);
		cJSON_AddNumberToObject(io, "load_median_ms", ld.median_ns / 1e6);
		cJSON_AddNumberToObject(io, "check_median_ms", ck.median_ns / 1e6);
		cJSON_AddNumberToObject(io, "load_steady_mean_ms", lds.mean_ns / 1e6);
		cJSON_AddNumberToObject(io, "check_steady_mean_ms", cks.mean_ns / 1e6);
		cJSON_AddNumberToObject(io, "check_threads", kc);
		cJSON_AddNumberToObject(io, "load_threads", kl);
		cJSON_AddNumberToObject(io, "bound_ms",
					btrt_model_io_ms(ld.mean_ns, ck.mean_ns, kl, kc) / 1e6);
	}
	if (o->n_hog_cores || o->hog_gpu_ms) {
		cJSON *h = cJSON_AddObjectToObject(j, "hog");
		cJSON *cores = cJSON_AddArrayToObject(h, "cpu_cores");
		for (uint32_t i = 0; i < o->n_hog_cores; i++)
			cJSON_AddItemToArray(cores, cJSON_CreateNumber(o->hog_cores[i]));
		cJSON_AddNumberToObject(h, "gpu_kernel_ms", (double)o->hog_gpu_ms);
		cJSON_AddNumberToObject(h, "from_task", (double)o->hog_from);
		cJSON_AddNumberToObject(h, "to_task", (double)o->hog_to);
		/* the two count from this task: the extra warm-up tasks before */
		cJSON_AddNumberToObject(h, "first_counted_task", (double)o->hog_first);
	}
	if (out->adapt) {
		cJSON *a = adapt_json(out->adapt, o->schedule, (uint64_t)o->warmup_run);
		if (!a) {
			cJSON_Delete(j);
			return NULL;
		}
		cJSON_AddItemToObject(j, "adapt", a);
	}
	if (out->failure)
		cJSON_AddItemToObject(j, "failure", failure_json(out->failure, out->schedule));
	return j;
}

/* j as text with a final newline (malloc'ed; j is freed), or NULL after a
 * message naming path. */
static char *json_text(const char *path, cJSON *j)
{
	char *text = j ? cJSON_Print(j) : NULL;
	cJSON_Delete(j);
	size_t n = text ? strlen(text) : 0;
	char *t = text ? realloc(text, n + 2) : NULL;
	if (!t) {
		free(text);
		fprintf(stderr, "cannot write %s: out of memory\n", path);
		return NULL;
	}
	t[n] = '\n';
	t[n + 1] = '\0';
	return t;
}

/* Writes text to path by btrt_fsafe.h's contract and frees it. Returns 0,
 * or -1 after a message. */
static int write_text(const char *path, char *text)
{
	if (!text)
		return -1;
	struct btrt_error err;
	btrt_error_clear(&err);
	int rc = btrt_write_file_atomic(path, text, strlen(text), &err);
	free(text);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	return rc;
}

char *btrt_report_text(const char *path, const struct btrt_program *prog,
		       const struct btrt_program_options *o,
		       const struct btrt_program_outcome *out)
{
	return json_text(path, report_json(prog, o, out));
}

int btrt_report_write(const char *path, const struct btrt_program *prog,
		      const struct btrt_program_options *o,
		      const struct btrt_program_outcome *out)
{
	return write_text(path, btrt_report_text(path, prog, o, out));
}

int btrt_failure_write(const char *path, const struct btrt_error *failure, long schedule)
{
	return write_text(path, json_text(path, failure_json(failure, schedule)));
}

int btrt_program_list_json(const struct btrt_program *prog, FILE *out)
{
	cJSON *list = cJSON_CreateArray();
	for (uint32_t i = 0; list && i < prog->n_schedules; i++) {
		const struct btrt_program_schedule *s = &prog->schedules[i];
		cJSON *j = schedule_json(s);
		cJSON_AddNumberToObject(j, "index", i);
		if (s->predicted_ms > 0)
			cJSON_AddNumberToObject(j, "predicted_ms", s->predicted_ms);
		else
			cJSON_AddNullToObject(j, "predicted_ms");
		cJSON_AddNumberToObject(j, "pool", s->pool);
		cJSON_AddItemToArray(list, j);
	}
	char *text = list ? cJSON_Print(list) : NULL;
	cJSON_Delete(list);
	if (!text) {
		fprintf(stderr, "--list-json: out of memory\n");
		return -1;
	}
	fprintf(out, "%s\n", text);
	free(text);
	return 0;
}
