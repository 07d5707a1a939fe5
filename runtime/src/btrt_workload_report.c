/* The several-stream program's JSON report (--report; docs/report.md,
 * "The workload's report"), written with cJSON: the workload, then one
 * object per stream with its own figures. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "btrt_program.h"
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
	cJSON_AddNumberToObject(j, "share", f->share);
	cJSON_AddBoolToObject(j, "verified", 1);
	cJSON_AddNumberToObject(j, "tasks", (double)f->tasks);
	/* its own warm-up (at least its pool: issue 25) and the tasks of
	 * ms_per_task (btrt_run_steady_ns) */
	cJSON_AddNumberToObject(j, "warmup", (double)f->warmup);
	cJSON_AddNumberToObject(j, "warmup_requested", (double)f->warmup_requested);
	cJSON_AddNumberToObject(j, "pool", f->pool);
	cJSON_AddNumberToObject(j, "measured_tasks",
				(double)btrt_run_steady_items(f->run, f->warmup));
	cJSON_AddNumberToObject(j, "ms_per_task", f->ms_per_task);
	cJSON_AddNumberToObject(j, "tasks_per_s", f->tasks_per_s);
	cJSON_AddNumberToObject(j, "wall_ms", f->wall_ms);
	cJSON_AddNumberToObject(j, "prepare_ms", f->prepare_ms);
	if (f->vk_device >= 0) {
		/* the GPU context (device) and the queue its chunks went to */
		cJSON_AddNumberToObject(j, "vk_device", f->vk_device);
		cJSON_AddNumberToObject(j, "vk_queue", f->vk_queue);
	}
	/* each checked task's check end, CLOCK_MONOTONIC ns (btrt_now_ns): the
	 * same clock in every process, so that btc can count every stream's
	 * tasks over the window where all of them ran (driver/colocate.c) */
	cJSON *at = cJSON_AddArrayToObject(j, "checked_at_ns");
	for (uint64_t i = 0; i < f->tasks; i++) {
		uint64_t ls, le, cs, ce;
		if (btrt_run_io_times(f->run, i, &ls, &le, &cs, &ce) || !ce)
			break;
		cJSON_AddItemToArray(at, cJSON_CreateNumber((double)ce));
	}
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
		cJSON *cores = cJSON_AddArrayToObject(k, "cores"); /* as run; [] unpinned */
		for (uint32_t x = 0; x < f->chunks[c].n_cores && f->chunks[c].cores; x++)
			cJSON_AddItemToArray(cores, cJSON_CreateNumber(f->chunks[c].cores[x]));
		btrt_run_chunk_summary(f->run, c, &s);
		add_summary(k, "ms", &s);
		/* its stages' own time, medians summed (a GPU chunk's: the
		 * timestamps'), so ms - stages_ms is what the chunk spent
		 * around them: a GPU chunk's submission and fence wait */
		double stages_ms = 0;
		for (uint32_t x = 0; x < f->chunks[c].n_stages; x++) {
			struct btrt_summary ss;
			int gpu = 0;
			if (!btrt_run_stage_summary(f->run, f->chunks[c].first_stage + x, &ss, &gpu))
				stages_ms += ss.median_ns / 1e6;
		}
		cJSON_AddNumberToObject(k, "stages_ms", stages_ms);
		cJSON_AddItemToArray(chunks, k);
	}
	return j;
}

/* Prints j to out and frees it. */
static int print_json(cJSON *j, FILE *out, const char *what)
{
	char *text = cJSON_Print(j);
	cJSON_Delete(j);
	if (!text) {
		fprintf(stderr, "%s: out of memory\n", what);
		return -1;
	}
	fprintf(out, "%s\n", text);
	free(text);
	return 0;
}

int btrt_workload_list_json(const struct btrt_workload *w, FILE *out)
{
	cJSON *j = cJSON_CreateObject(), *streams = cJSON_CreateArray(),
	      *joint = cJSON_CreateArray();
	cJSON_AddStringToObject(j, "workload", w->name);
	cJSON_AddStringToObject(j, "device", w->device);
	cJSON_AddItemToObject(j, "streams", streams);
	for (uint32_t i = 0; i < w->n_streams; i++) {
		const struct btrt_workload_stream *ws = &w->streams[i];
		cJSON *s = cJSON_CreateObject(), *sc = cJSON_CreateArray();
		cJSON_AddNumberToObject(s, "index", i);
		cJSON_AddStringToObject(s, "app", ws->prog->app.name);
		cJSON_AddNumberToObject(s, "solo_schedule", (double)ws->solo_schedule);
		cJSON_AddItemToObject(s, "schedules", sc);
		for (uint32_t k = 0; k < ws->prog->n_schedules; k++)
			cJSON_AddItemToArray(sc, cJSON_CreateString(ws->prog->schedules[k].label));
		cJSON_AddItemToArray(streams, s);
	}
	cJSON_AddItemToObject(j, "joint", joint);
	for (uint32_t k = 0; k < w->n_joint; k++) {
		cJSON *c = cJSON_CreateObject(), *cs = cJSON_CreateArray();
		cJSON_AddNumberToObject(c, "index", k);
		cJSON_AddNumberToObject(c, "predicted", w->joint[k].predicted);
		cJSON_AddItemToObject(c, "streams", cs);
		for (uint32_t i = 0; i < w->n_streams; i++) {
			const struct btrt_workload_joint_stream *js = &w->joint[k].streams[i];
			cJSON *s = cJSON_CreateObject(), *cores = cJSON_CreateArray();
			cJSON_AddNumberToObject(s, "schedule", (double)js->schedule);
			cJSON_AddStringToObject(s, "label",
						w->streams[i].prog->schedules[js->schedule].label);
			cJSON_AddItemToObject(s, "service_cores", cores);
			for (int r = 0; r < BTRT_WORKLOAD_N_SERVICE; r++)
				cJSON_AddItemToArray(cores, cJSON_CreateNumber(js->service_cores[r]));
			cJSON_AddNumberToObject(s, "rate", js->rate);
			/* per chunk: its own core set, [] for the schedule's cores */
			cJSON *cc = cJSON_AddArrayToObject(s, "chunk_cores");
			const struct btrt_program_schedule *ps =
				&w->streams[i].prog->schedules[js->schedule];
			for (uint32_t h = 0; h < ps->n_chunks; h++) {
				cJSON *set = cJSON_CreateArray();
				const struct btrt_workload_cores *x =
					js->chunk_cores && h < js->n_chunk_cores ? &js->chunk_cores[h] : NULL;
				for (uint32_t y = 0; x && x->cores && y < x->n_cores; y++)
					cJSON_AddItemToArray(set, cJSON_CreateNumber(x->cores[y]));
				cJSON_AddItemToArray(cc, set);
			}
			cJSON_AddItemToArray(cs, s);
		}
		cJSON_AddItemToArray(joint, c);
	}
	return print_json(j, out, "--list-json");
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
	/* split: the candidate's co-located CPU chunks on their own core sets
	 * (--cores split under --placement plan); shared: every chunk on its
	 * schedule's cores */
	cJSON_AddStringToObject(j, "cores", o->cores_shared || o->placement_app || !w->n_joint ?
				"shared" : "split");
	cJSON_AddBoolToObject(j, "verified", 1);
	if (w->n_joint)
		cJSON_AddNumberToObject(j, "joint", (double)o->joint);
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
