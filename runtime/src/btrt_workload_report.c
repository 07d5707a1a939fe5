/* The several-stream program's JSON report (--report; docs/report.md,
 * "The workload's report"), written with cJSON: the workload, then one
 * object per stream with its own figures. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "btrt_trace.h"
#include "btrt_workload_internal.h"

static void add_summary(cJSON *j, const char *key, const struct btrt_summary *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "mean", s->mean_ns / 1e6);
	cJSON_AddNumberToObject(o, "median", s->median_ns / 1e6);
	cJSON_AddNumberToObject(o, "p90", s->p90_ns / 1e6);
	cJSON_AddNumberToObject(o, "p99", s->p99_ns / 1e6);
	cJSON_AddItemToObject(j, key, o);
}

static cJSON *stream_json(const struct btrt_workload_figures *f)
{
	cJSON *j = cJSON_CreateObject(), *chunks = cJSON_CreateArray();
	cJSON_AddNumberToObject(j, "stream", f->stream);
	cJSON_AddStringToObject(j, "app", f->app);
	cJSON_AddNumberToObject(j, "schedule", (double)f->schedule);
	cJSON_AddStringToObject(j, "label", f->label);
	cJSON_AddNumberToObject(j, "rate", f->rate);
	cJSON_AddBoolToObject(j, "verified", 1);
	cJSON_AddNumberToObject(j, "tasks", (double)f->tasks);
	cJSON_AddNumberToObject(j, "ms_per_task", f->ms_per_task);
	cJSON_AddNumberToObject(j, "tasks_per_s", f->tasks_per_s);
	cJSON_AddNumberToObject(j, "wall_ms", f->wall_ms);
	struct btrt_summary s;
	btrt_run_latency_summary(f->run, &s);
	add_summary(j, "latency_ms", &s);
	cJSON_AddItemToObject(j, "chunks", chunks);
	for (uint32_t c = 0; c < f->n_chunks; c++) {
		cJSON *k = cJSON_CreateObject();
		cJSON_AddStringToObject(k, "pu", f->chunks[c].name);
		cJSON_AddNumberToObject(k, "first_stage", f->chunks[c].first_stage);
		cJSON_AddNumberToObject(k, "last_stage",
					f->chunks[c].first_stage + f->chunks[c].n_stages - 1);
		cJSON_AddNumberToObject(k, "share", f->chunk_share ? f->chunk_share[c] : 0.0);
		btrt_run_chunk_summary(f->run, c, &s);
		add_summary(k, "ms", &s);
		cJSON_AddItemToArray(chunks, k);
	}
	return j;
}

int btrt_workload_report_write(const char *path, const struct btrt_workload *w,
			       const struct btrt_workload_options *o,
			       const struct btrt_workload_figures *f, uint32_t n)
{
	cJSON *j = cJSON_CreateObject(), *streams = cJSON_CreateArray();
	cJSON_AddStringToObject(j, "workload", w->name);
	cJSON_AddStringToObject(j, "device", w->device);
	cJSON_AddNumberToObject(j, "tasks", (double)o->tasks);
	cJSON_AddNumberToObject(j, "warmup", (double)o->warmup);
	cJSON_AddNumberToObject(j, "multiplex", (double)o->multiplex);
	cJSON_AddStringToObject(j, "placement", o->placement_app ? "app" : "plan");
	cJSON_AddBoolToObject(j, "verified", 1);
	cJSON_AddItemToObject(j, "streams", streams);
	for (uint32_t i = 0; i < n; i++)
		cJSON_AddItemToArray(streams, stream_json(&f[i]));
	char *text = cJSON_Print(j);
	cJSON_Delete(j);
	if (!text) {
		fprintf(stderr, "cannot write %s: out of memory\n", path);
		return -1;
	}
	FILE *fp = fopen(path, "w");
	if (!fp) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		free(text);
		return -1;
	}
	fprintf(fp, "%s\n", text);
	free(text);
	if (ferror(fp) | fclose(fp)) {
		fprintf(stderr, "cannot write %s\n", path);
		return -1;
	}
	return 0;
}
