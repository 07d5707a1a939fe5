/* Run records, summary statistics and Chrome trace-event JSON. */
#include "btrt_internal.h"
#include "btrt_trace.h"
#include "btrt_model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct btrt_run *btrt_run_alloc(const struct btrt_pipeline_config *cfg)
{
	struct btrt_run *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->app = cfg->app ? cfg->app : "app";
	r->n_chunks = cfg->n_chunks;
	r->n_stages = cfg->n_stages;
	r->limit = cfg->record_limit ? cfg->record_limit : BTRT_DEFAULT_RECORD_LIMIT;
	r->chunks = calloc(cfg->n_chunks, sizeof *r->chunks);
	r->stage_names = calloc(cfg->n_stages, sizeof *r->stage_names);
	r->waits = calloc(cfg->n_chunks + 2, sizeof *r->waits);
	if (!r->chunks || !r->stage_names || !r->waits) {
		btrt_run_free(r);
		return NULL;
	}
	for (uint32_t s = 0; s < cfg->n_stages; s++)
		r->stage_names[s] = cfg->stages[s].name ? cfg->stages[s].name : "";
	for (uint32_t c = 0; c < cfg->n_chunks; c++) {
		r->chunks[c].name = cfg->chunks[c].name ? cfg->chunks[c].name : "";
		r->chunks[c].pu = cfg->chunks[c].pu;
		r->chunks[c].first_stage = cfg->chunks[c].first_stage;
		r->chunks[c].n_stages = cfg->chunks[c].n_stages;
		r->chunks[c].farm = cfg->chunks[c].farm;
		if (c > 0 && cfg->chunks[c].farm && cfg->chunks[c].farm == cfg->chunks[c - 1].farm)
			r->chunks[c].worker = r->chunks[c - 1].worker + 1;
		r->chunks[c].limit = r->limit;
	}
	return r;
}

void btrt_run_free(struct btrt_run *r)
{
	if (!r)
		return;
	if (r->chunks)
		for (uint32_t c = 0; c < r->n_chunks; c++) {
			free(r->chunks[c].tasks);
			free(r->chunks[c].stages);
		}
	free(r->chunks);
	free(r->stage_names);
	free(r->waits);
	free(r->io);
	free(r);
}

int btrt_run_wait_stats(const struct btrt_run *run, uint32_t t, struct btrt_wait_stats *out)
{
	if (!run || t > run->n_chunks + 1)
		return -1;
	*out = run->waits[t];
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted sample. */
static double pct(const uint64_t *v, uint64_t n, double q)
{
	uint64_t k = (uint64_t)(q * (double)n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return (double)v[k - 1];
}

void btrt_summarize(uint64_t *v, uint64_t n, struct btrt_summary *o)
{
	memset(o, 0, sizeof *o);
	if (n == 0)
		return;
	qsort(v, n, sizeof *v, cmp_u64);
	double sum = 0;
	for (uint64_t i = 0; i < n; i++)
		sum += (double)v[i];
	o->n = n;
	o->mean_ns = sum / (double)n;
	o->median_ns = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
	o->p90_ns = pct(v, n, 0.90);
	o->p99_ns = pct(v, n, 0.99);
	o->min_ns = (double)v[0];
	o->max_ns = (double)v[n - 1];
}

uint64_t btrt_run_items(const struct btrt_run *r) { return r->items; }
uint32_t btrt_run_check_threads(const struct btrt_run *r) { return r->n_check > 1 ? r->n_check : 1; }
uint32_t btrt_run_load_threads(const struct btrt_run *r) { return r->n_load > 1 ? r->n_load : 1; }
uint64_t btrt_run_wall_ns(const struct btrt_run *r) { return r->t_end > r->t0 ? r->t_end - r->t0 : 0; }
uint32_t btrt_run_chunks(const struct btrt_run *r) { return r->n_chunks; }

int btrt_run_chunk_summary_from(const struct btrt_run *r, uint32_t c, uint64_t from,
				struct btrt_summary *o)
{
	memset(o, 0, sizeof *o);
	if (c >= r->n_chunks)
		return -1;
	const struct btrt_chunk_rec *cr = &r->chunks[c];
	uint64_t *v = malloc((cr->n_tasks + 1) * sizeof *v);
	if (!v)
		return -1;
	uint64_t n = 0;
	for (size_t i = 0; i < cr->n_tasks; i++)
		if (cr->tasks[i].seq >= from)
			v[n++] = cr->tasks[i].end - cr->tasks[i].start;
	btrt_summarize(v, n, o);
	free(v);
	return 0;
}

int btrt_run_chunk_summary(const struct btrt_run *r, uint32_t c, struct btrt_summary *o)
{
	return btrt_run_chunk_summary_from(r, c, 0, o);
}

/* Stage s's times in chunk c (which covers it), of the tasks from seq
 * from on. */
static int chunk_stage_summary(const struct btrt_chunk_rec *cr, uint32_t s, uint64_t from,
			       struct btrt_summary *o, int *gpu)
{
	uint64_t *v = malloc((cr->n_stages_rec + 1) * sizeof *v);
	if (!v)
		return -1;
	uint64_t n = 0, ran = 0;
	int g = 0;
	for (size_t i = 0; i < cr->n_stages_rec; i++)
		if (cr->stages[i].stage == s) {
			ran++;
			g |= (int)cr->stages[i].gpu;
			if (cr->stages[i].seq >= from)
				v[n++] = cr->stages[i].end - cr->stages[i].start;
		}
	btrt_summarize(v, n, o);
	free(v);
	if (gpu)
		*gpu = g;
	return ran ? 0 : -1;
}

int btrt_run_stage_summary_from(const struct btrt_run *r, uint32_t s, uint64_t from,
				struct btrt_summary *o, int *gpu)
{
	memset(o, 0, sizeof *o);
	for (uint32_t c = 0; c < r->n_chunks; c++) {
		const struct btrt_chunk_rec *cr = &r->chunks[c];
		if (s >= cr->first_stage && s < cr->first_stage + cr->n_stages)
			return chunk_stage_summary(cr, s, from, o, gpu);
	}
	return -1;
}

int btrt_run_stage_summary(const struct btrt_run *r, uint32_t s, struct btrt_summary *o, int *gpu)
{
	return btrt_run_stage_summary_from(r, s, 0, o, gpu);
}

int btrt_run_io_times(const struct btrt_run *r, uint64_t i, uint64_t *ls, uint64_t *le,
		      uint64_t *cs, uint64_t *ce)
{
	if (i >= r->n_io)
		return -1;
	*ls = r->io[i].load_start;
	*le = r->io[i].load_end;
	*cs = r->io[i].check_start;
	*ce = r->io[i].check_end;
	return 0;
}

int btrt_run_latency_summary(const struct btrt_run *r, struct btrt_summary *o)
{
	uint64_t *v = malloc((r->n_io + 1) * sizeof *v);
	if (!v)
		return -1;
	uint64_t n = 0;
	for (size_t i = 0; i < r->n_io; i++)
		if (r->io[i].check_end)
			v[n++] = r->io[i].check_end - r->io[i].load_start;
	btrt_summarize(v, n, o);
	free(v);
	return 0;
}

int btrt_run_io_summary_from(const struct btrt_run *r, int check, uint64_t from,
			     struct btrt_summary *o)
{
	uint64_t *v = malloc((r->n_io + 1) * sizeof *v);
	if (!v)
		return -1;
	uint64_t n = 0;
	for (size_t i = from; i < r->n_io; i++) {
		const struct btrt_rec_io *io = &r->io[i];
		if (check && io->check_end)
			v[n++] = io->check_end - io->check_start;
		else if (!check && io->load_end)
			v[n++] = io->load_end - io->load_start;
	}
	btrt_summarize(v, n, o);
	free(v);
	return 0;
}

int btrt_run_io_summary(const struct btrt_run *r, int check, struct btrt_summary *o)
{
	return btrt_run_io_summary_from(r, check, 0, o);
}

/* "chunk 1 gpu (vulkan)", or for a farm's worker "chunk 2 gpu (vulkan,
 * farm 1 worker 1)": the track and summary name of chunk c. */
static void chunk_label(const struct btrt_run *r, uint32_t c, char *buf, size_t len)
{
	const struct btrt_chunk_rec *cr = &r->chunks[c];
	static const char *const pus[] = { "cpu", "vulkan", "cuda" };
	const char *pu = (unsigned)cr->pu < 3 ? pus[cr->pu] : "?";
	if (cr->farm)
		snprintf(buf, len, "chunk %u %s (%s, farm %u worker %u)", c, cr->name, pu,
			 cr->farm, cr->worker);
	else
		snprintf(buf, len, "chunk %u %s (%s)", c, cr->name, pu);
}

static void print_sum(FILE *out, const char *what, const struct btrt_summary *s)
{
	fprintf(out, "  %-28s n=%-8llu mean %10.2f  median %10.2f  p90 %10.2f  p99 %10.2f us\n",
		what, (unsigned long long)s->n, s->mean_ns / 1e3, s->median_ns / 1e3,
		s->p90_ns / 1e3, s->p99_ns / 1e3);
}

void btrt_run_print(const struct btrt_run *r, FILE *out)
{
	uint64_t wall = btrt_run_wall_ns(r);
	fprintf(out, "%s: %llu items in %.3f ms, %.2f items/s, %.2f us/item\n", r->app,
		(unsigned long long)r->items, (double)wall / 1e6,
		wall ? (double)r->items * 1e9 / (double)wall : 0.0,
		r->items ? (double)wall / 1e3 / (double)r->items : 0.0);
	struct btrt_summary s;
	char what[160];
	for (uint32_t c = 0; c < r->n_chunks; c++) {
		btrt_run_chunk_summary(r, c, &s);
		chunk_label(r, c, what, sizeof what);
		print_sum(out, what, &s);
	}
	for (uint32_t st = 0; st < r->n_stages; st++) {
		/* A farm's stage: one line per worker that ran it. */
		for (uint32_t c = 0; c < r->n_chunks; c++) {
			const struct btrt_chunk_rec *cr = &r->chunks[c];
			int gpu = 0;
			if (st < cr->first_stage || st >= cr->first_stage + cr->n_stages ||
			    chunk_stage_summary(cr, st, 0, &s, &gpu))
				continue;
			if (cr->farm)
				snprintf(what, sizeof what, "stage %u %s%s (worker %u)", st,
					 r->stage_names[st], gpu ? " [gpu]" : "", cr->worker);
			else
				snprintf(what, sizeof what, "stage %u %s%s", st, r->stage_names[st],
					 gpu ? " [gpu]" : "");
			print_sum(out, what, &s);
		}
	}
	btrt_run_io_summary(r, 0, &s);
	if (btrt_run_load_threads(r) > 1) {
		char label[64];
		snprintf(label, sizeof label, "io load (%u loaders)", btrt_run_load_threads(r));
		print_sum(out, label, &s);
	} else {
		print_sum(out, "io load (source)", &s);
	}
	struct btrt_summary l = s;
	btrt_run_io_summary(r, 1, &s);
	uint32_t k = btrt_run_check_threads(r), kl = btrt_run_load_threads(r);
	if (k > 1 || kl > 1) {
		char label[64];
		snprintf(label, sizeof label, "io check (%u workers)", k);
		print_sum(out, label, &s);
		fprintf(out, "  io bound max(load / %u, check / %u) = %.3f ms per task\n", kl, k,
			btrt_model_io_ms(l.mean_ns, s.mean_ns, kl, k) / 1e6);
	} else {
		print_sum(out, "io check (sink)", &s);
	}
	btrt_run_latency_summary(r, &s);
	print_sum(out, "latency (load..check)", &s);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void ev(FILE *f, int *first, const char *name, uint32_t pid, uint32_t tid, uint64_t t0,
	       uint64_t a, uint64_t b, uint64_t seq)
{
	if (a < t0)
		a = t0;
	if (b < a)
		b = a;
	fprintf(f, "%s\n{\"name\":", *first ? "" : ",");
	*first = 0;
	json_str(f, name);
	fprintf(f, ",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"seq\":%llu}}",
		pid, tid, (double)(a - t0) / 1e3, (double)(b - a) / 1e3, (unsigned long long)seq);
}

static void track(FILE *f, int *first, uint32_t pid, uint32_t tid, uint32_t sort, const char *name)
{
	fprintf(f, "%s\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":",
		*first ? "" : ",", pid, tid);
	*first = 0;
	json_str(f, name);
	fprintf(f, "}}");
	fprintf(f, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
		pid, tid, sort);
}

/* The events of run r as process pid, times relative to t0. */
static void write_run(FILE *f, const struct btrt_run *r, uint32_t pid, const char *pname,
		      uint64_t t0)
{
	int first = 0;
	char name[160];
	fprintf(f, "%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":",
		pid == 1 ? "" : ",", pid);
	json_str(f, pname);
	fprintf(f, "}}");
	/* Tracks in pipeline order: the io source's loads, chunk c (tid 1 + c),
	 * its GPU (tid 1001 + c), the io sink's checks (tid 0). */
	/* The load farm's loaders: the source (loader 0) on its tid, loader
	 * w on BTRT_TRACE_TID_LOADER + w. */
	uint32_t kl = r->n_load > 1 ? r->n_load : 1;
	for (uint32_t w = 0; w < kl; w++) {
		uint32_t tid = w ? BTRT_TRACE_TID_LOADER + w : BTRT_TRACE_TID_LOAD;
		if (w)
			snprintf(name, sizeof name, "io load (loader %u)", w);
		track(f, &first, pid, tid, 0, w ? name : "io load (source)");
		for (size_t i = w; i < r->n_io; i += kl)
			if (r->io[i].load_end)
				ev(f, &first, "load", pid, tid, t0, r->io[i].load_start,
				   r->io[i].load_end, i);
	}
	for (uint32_t c = 0; c < r->n_chunks; c++) {
		const struct btrt_chunk_rec *cr = &r->chunks[c];
		chunk_label(r, c, name, sizeof name);
		track(f, &first, pid, 1 + c, 1 + c, name);
		int has_gpu = 0;
		for (size_t i = 0; i < cr->n_tasks; i++) {
			snprintf(name, sizeof name, "task %llu", (unsigned long long)cr->tasks[i].seq);
			ev(f, &first, name, pid, 1 + c, t0, cr->tasks[i].start, cr->tasks[i].end,
			   cr->tasks[i].seq);
		}
		for (size_t i = 0; i < cr->n_stages_rec; i++) {
			const struct btrt_rec_stage *s = &cr->stages[i];
			has_gpu |= (int)s->gpu;
			ev(f, &first, r->stage_names[s->stage], pid, s->gpu ? 1001 + c : 1 + c, t0,
			   s->start, s->end, s->seq);
		}
		if (has_gpu) {
			snprintf(name, sizeof name, "gpu of chunk %u %s", c, cr->name);
			track(f, &first, pid, 1001 + c, 1001 + c, name);
		}
	}
	/* The check farm's workers: the sink (worker 0) on tid 0, worker w
	 * on BTRT_TRACE_TID_CHECKER + w, each its own track (their checks
	 * overlap). */
	uint32_t k = r->n_check > 1 ? r->n_check : 1;
	for (uint32_t w = 0; w < k; w++) {
		uint32_t tid = w ? BTRT_TRACE_TID_CHECKER + w : BTRT_TRACE_TID_CHECK;
		if (w)
			snprintf(name, sizeof name, "io check (worker %u)", w);
		track(f, &first, pid, tid, BTRT_TRACE_TID_LOAD + 1 + w, w ? name : "io check (sink)");
		for (size_t i = w; i < r->n_io; i += k)
			if (r->io[i].check_end)
				ev(f, &first, "check", pid, tid, t0, r->io[i].check_start,
				   r->io[i].check_end, i);
	}
}

static void trace_head(FILE *f, const char *app)
{
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"app\":");
	json_str(f, app);
	fprintf(f, "},\"traceEvents\":[");
}

void btrt_run_trace_events(const struct btrt_run *r, FILE *f)
{
	trace_head(f, r->app);
	write_run(f, r, 1, r->app, r->t0);
}

int btrt_runs_write_trace(const struct btrt_run *const *runs, const char *const *names,
			  uint32_t n, const char *path, struct btrt_error *err)
{
	struct btrt_ofile o;
	if (btrt_ofile_open(&o, path, err))
		return -1;
	uint64_t t0 = UINT64_MAX;
	for (uint32_t i = 0; i < n; i++)
		t0 = BTRT_MIN(t0, runs[i]->t0);
	trace_head(o.f, n == 1 ? runs[0]->app : "workload");
	for (uint32_t i = 0; i < n; i++)
		write_run(o.f, runs[i], 1 + i, names[i], t0);
	fputs(BTRT_TRACE_TAIL, o.f);
	return btrt_ofile_commit(&o, err);
}

int btrt_run_write_trace(const struct btrt_run *r, const char *path, struct btrt_error *err)
{
	const char *name = r->app;
	return btrt_runs_write_trace(&r, &name, 1, path, err);
}

uint64_t btrt_run_steady_items(const struct btrt_run *r, uint64_t warmup)
{
	uint64_t n = r->n_io < r->items ? r->n_io : r->items;
	return warmup >= n ? n : n - warmup;
}

uint64_t btrt_run_steady_from(const struct btrt_run *r, uint64_t warmup)
{
	uint64_t n = r->n_io < r->items ? r->n_io : r->items;
	return warmup >= n ? 0 : warmup;
}

double btrt_run_steady_ns(const struct btrt_run *r, uint64_t warmup)
{
	uint64_t n = r->n_io < r->items ? r->n_io : r->items;
	if (n == 0)
		return 0.0;
	warmup = btrt_run_steady_from(r, warmup);
	/* From the completion of the last warm-up item to the completion of
	 * the last item: the pipeline is full in between. */
	uint64_t start = warmup ? r->io[warmup - 1].check_end : r->t0;
	uint64_t end = r->io[n - 1].check_end;
	return end > start ? (double)(end - start) / (double)(n - warmup) : 0.0;
}

uint64_t btrt_run_chunk_times(const struct btrt_run *r, uint32_t c, uint64_t *ns,
			      uint64_t max)
{
	if (c >= r->n_chunks)
		return 0;
	const struct btrt_chunk_rec *cr = &r->chunks[c];
	uint64_t n = cr->n_tasks < max ? cr->n_tasks : max;
	for (uint64_t i = 0; i < n; i++)
		ns[i] = cr->tasks[i].end - cr->tasks[i].start;
	return n;
}
