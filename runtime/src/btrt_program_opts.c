/* The options of the pipeline program (btrt_program_main): usage, parsing
 * with checked numbers, --list, and the pool's memory check. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "btrt_program_internal.h"

void btrt_program_usage(const struct btrt_program *prog, FILE *out, const char *argv0)
{
	fprintf(out,
		"usage: %s [options]\n"
		"  --schedule N     run schedule N of this build (default 0; --list shows them)\n"
		"  --list           list the schedules and exit\n"
		"  --list-json      the same as a JSON array (index, kind, label, chunks, predicted_ms, pool)\n"
		"  --tasks N        stream N tasks (default %ld; the input repeats as needed),\n"
		"                   and the extra warm-up tasks of --warmup\n"
		"  --warmup N       tasks excluded from the steady-state figures (default %ld);\n"
		"                   at least one per TaskObject of the pool (a slot's first\n"
		"                   use costs more), the extra ones streamed besides --tasks\n"
		"                   so that --tasks minus --warmup are measured\n"
		"  --pool N         TaskObjects in flight (default: one per loader, chunk and\n"
		"                   check worker, 3 more, and a farm's extra; at most --tasks;\n"
		"                   must fit in memory)\n"
		"  --check-threads K  check workers of the io sink (1..16; default: the build's\n"
		"                   choice, or BTRT_CHECK_THREADS; 1 with --digests, --adapt or\n"
		"                   a hog); K TaskObjects of the default pool\n"
		"  --load-threads K   loaders of the io source (1..16; default: the build's\n"
		"                   choice, or BTRT_LOAD_THREADS; 1 with --adapt or a hog);\n"
		"                   K TaskObjects of the default pool\n"
		"  --input PATH     input (default: %s)\n"
		"  --trace FILE     write a Chrome/Perfetto trace-event JSON\n"
		"  --report FILE    write a JSON report of the run\n"
		"  --failure FILE   when the run fails, write the failure as JSON (kind,\n"
		"                   schedule, chunk, stage, task, message)\n"
		"  --digests        print the output check's digest line for every task\n"
		"  --quiet          print only the summary line\n"
		"adaptive runs (docs/runtime.md, \"Adaptive pipelines\"):\n"
		"  --adapt          switch among this build's schedules when the machine changes,\n"
		"                   starting with --schedule (needs the cost model: a build made\n"
		"                   with a profiling table)\n"
		"  --adapt-log      print every decision of the adaptive run\n"
		"  --adapt-force N  (testing) switch to the next schedule every N tasks; implies --adapt\n"
		"  --adapt-window N tasks per observation window, at least (default 16)\n"
		"  --adapt-window-ms MS  and at least MS ms of tasks (default 100)\n"
		"  --adapt-threshold PCT  a decision when the period stays PCT %% above the\n"
		"                   expected one for 3 windows (default 50)\n"
		"  --adapt-margin PCT  switch only to a schedule predicted PCT %% faster (default 20)\n"
		"interference on purpose:\n"
		"  --hog-cpu CORES  busy threads pinned to CORES (e.g. 1 or 0,2)\n"
		"  --hog-gpu MS     back-to-back CUDA spin kernels of MS ms on every SM\n"
		"  --hog-from N     start the hogs once N tasks are checked (default 0)\n"
		"  --hog-to N       stop them once N tasks are checked (default 0: at the end)\n"
		"                   (tasks of --tasks: the extra warm-up tasks of --warmup\n"
		"                   come first, uncounted, so that --hog-from equal to\n"
		"                   --warmup starts them with the first measured task)\n"
		"environment: BTRT_NO_PIN=1 disables core pinning; BTRT_VK_DEVICE, BTRT_CUDA_DEVICE select GPUs\n",
		argv0, prog->default_tasks, prog->default_warmup,
		prog->app.default_input ? prog->app.default_input : "the app's default");
}

/* The largest --pool: btrt_pool_config.n_tasks is a uint32_t. */
#define POOL_MAX ((long)BTRT_MIN((unsigned long)LONG_MAX, (unsigned long)UINT32_MAX))

/* Parses the value s of option opt: a decimal integer in [min, max], digits
 * only (no sign, blank or suffix), no overflow, so that it is never
 * truncated on its way into a narrower type. Returns 0, or -1 after a
 * message. */
static int parse_long(const char *argv0, const char *opt, const char *s, long min, long max,
		      long *out)
{
	char *end = NULL;
	long v = 0;
	errno = 0;
	if (*s >= '0' && *s <= '9')
		v = strtol(s, &end, 10);
	if (!end || *end) {
		fprintf(stderr, "%s: %s '%s': not a decimal number (digits only)\n", argv0, opt, s);
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		fprintf(stderr, "%s: %s %s: out of range (%ld..%ld)\n", argv0, opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* Parses --hog-cpu's list "1" or "0,2" into o. Returns 0, or -1 after a
 * message. */
static int parse_cores(const char *argv0, const char *v, struct btrt_program_options *o)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", v);
	o->n_hog_cores = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long c;
		if (o->n_hog_cores == sizeof o->hog_cores / sizeof o->hog_cores[0] ||
		    parse_long(argv0, "--hog-cpu", t, 0, CPU_SETSIZE - 1, &c))
			return -1;
		o->hog_cores[o->n_hog_cores++] = (int)c;
	}
	if (!o->n_hog_cores) {
		fprintf(stderr, "%s: --hog-cpu '%s': no core\n", argv0, v);
		return -1;
	}
	return 0;
}

/* One of the adaptive / hog options at a (value v, or NULL). Returns the
 * arguments it took (1 or 2), 0 when a is none of them, -1 after a
 * message. */
static int parse_adapt_option(const char *argv0, const char *a, const char *v,
			      struct btrt_program_options *o)
{
	static const struct { const char *name; size_t off; long min, max; } num[] = {
		{ "--adapt-force", offsetof(struct btrt_program_options, adapt_force), 1, LONG_MAX },
		{ "--adapt-window", offsetof(struct btrt_program_options, adapt_window), 1, 1000000 },
		{ "--adapt-window-ms", offsetof(struct btrt_program_options, adapt_window_ms), 1, 100000 },
		{ "--adapt-threshold", offsetof(struct btrt_program_options, adapt_threshold), 1, 1000 },
		{ "--adapt-margin", offsetof(struct btrt_program_options, adapt_margin), 0, 1000 },
		{ "--hog-gpu", offsetof(struct btrt_program_options, hog_gpu_ms), 1, 1000 },
		{ "--hog-from", offsetof(struct btrt_program_options, hog_from), 0, LONG_MAX },
		{ "--hog-to", offsetof(struct btrt_program_options, hog_to), 0, LONG_MAX },
	};
	if (!strcmp(a, "--adapt"))
		return o->adapt = 1;
	if (!strcmp(a, "--adapt-log"))
		return o->adapt_log = 1;
	int is_cpu = !strcmp(a, "--hog-cpu");
	for (size_t k = 0; !is_cpu && k < sizeof num / sizeof num[0]; k++)
		if (!strcmp(a, num[k].name)) {
			if (!v)
				return 0; /* "bad option" below */
			long *f = (long *)((char *)o + num[k].off);
			if (parse_long(argv0, a, v, num[k].min, num[k].max, f))
				return -1;
			o->adapt |= num[k].off == offsetof(struct btrt_program_options, adapt_force);
			return 2;
		}
	if (!is_cpu || !v)
		return 0;
	return parse_cores(argv0, v, o) ? -1 : 2;
}

/* The options that take a number: the option, its field, its range. */
static int parse_number_option(const struct btrt_program *prog, const char *argv0,
			       const char *a, const char *v, struct btrt_program_options *o)
{
	if (!strcmp(a, "--schedule"))
		return parse_long(argv0, a, v, 0, (long)prog->n_schedules - 1, &o->schedule);
	if (!strcmp(a, "--tasks"))
		return parse_long(argv0, a, v, 1, LONG_MAX, &o->tasks);
	if (!strcmp(a, "--warmup")) {
		o->warmup_set = 1;
		return parse_long(argv0, a, v, 0, LONG_MAX, &o->warmup);
	}
	if (!strcmp(a, "--check-threads"))
		return parse_long(argv0, a, v, 1, BTRT_CHECK_THREADS_MAX, &o->check_threads);
	if (!strcmp(a, "--load-threads"))
		return parse_long(argv0, a, v, 1, BTRT_LOAD_THREADS_MAX, &o->load_threads);
	return parse_long(argv0, a, v, 1, POOL_MAX, &o->pool); /* --pool */
}

int btrt_program_parse(const struct btrt_program *prog, int argc, char **argv,
		       struct btrt_program_options *o)
{
	static const char *const numbers[] = { "--schedule", "--tasks", "--warmup", "--pool",
					       "--check-threads", "--load-threads" };
	*o = (struct btrt_program_options){ .tasks = prog->default_tasks,
					    .warmup = prog->default_warmup,
					    .input = prog->app.default_input };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0, took = parse_adapt_option(argv[0], a, v, o);
		if (took < 0)
			return -1;
		if (took) {
			i += took - 1;
			continue;
		}
		int number = 0;
		for (size_t k = 0; k < sizeof numbers / sizeof numbers[0]; k++)
			number |= !strcmp(a, numbers[k]);
		const char **path = !strcmp(a, "--input")     ? &o->input
				    : !strcmp(a, "--trace")   ? &o->trace
				    : !strcmp(a, "--report")  ? &o->report
				    : !strcmp(a, "--failure") ? &o->failure
							      : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			o->help = 1;
			return 0;
		} else if (!strcmp(a, "--list")) {
			o->list = 1;
		} else if (!strcmp(a, "--list-json")) {
			o->list = 2;
		} else if (!strcmp(a, "--digests")) {
			o->digests = 1;
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = 1;
		} else if (!v || (!number && !path)) {
			bad = 1;
		} else if (number) {
			if (parse_number_option(prog, argv[0], a, v, o))
				return -1;
			i++;
		} else {
			*path = v;
			i++;
		}
		if (bad) {
			fprintf(stderr, "%s: bad option '%s'%s%s\n", argv[0], a,
				v ? " " : "", v ? v : "");
			btrt_program_usage(prog, stderr, argv[0]);
			return -1;
		}
	}
	if (o->warmup >= o->tasks) {
		if (o->warmup_set) {
			fprintf(stderr, "%s: --warmup %ld: must be less than --tasks (%ld)\n",
				argv[0], o->warmup, o->tasks);
			return -1;
		}
		o->warmup = o->tasks / 4; /* the default is for the default --tasks */
	}
	o->warmup_run = o->warmup; /* until the pool exists: btrt_model_warmup */
	o->tasks_run = (uint64_t)o->tasks;
	if (o->pool > o->tasks) {
		fprintf(stderr, "%s: --pool %ld: more than --tasks (%ld), which is as many "
			"TaskObjects as can ever be in flight\n", argv[0], o->pool, o->tasks);
		return -1;
	}
	return 0;
}

void btrt_program_list(const struct btrt_program *prog, FILE *out)
{
	fprintf(out, "%-4s %-10s %12s  %s\n", "N", "kind", "predicted_ms", "chunks (PU:stages)");
	for (uint32_t i = 0; i < prog->n_schedules; i++) {
		const struct btrt_program_schedule *s = &prog->schedules[i];
		char predicted[32] = "-"; /* 0: no profiling table predicted it */
		if (s->predicted_ms > 0)
			snprintf(predicted, sizeof(predicted), "%.4f", s->predicted_ms);
		fprintf(out, "%-4u %-10s %12s  %s\n", i, s->kind, predicted, s->label);
	}
}

int btrt_program_check_pool_memory(const char *argv0, const struct btrt_pool_config *pc,
				   uint32_t n_chunks)
{
	uint64_t bytes, avail = btrt_mem_available();
	/* fewer than 2 (pool + n_chunks + 1) pointers per ring or farm link */
	uint64_t rings = (uint64_t)(n_chunks + 1) * 2 * ((uint64_t)pc->n_tasks + n_chunks + 1) *
			 sizeof(void *);
	int overflow = btrt_pool_host_bytes(pc, &bytes) != 0 || bytes > UINT64_MAX - rings;
	if (!overflow)
		bytes += rings;
	if (overflow || (avail && bytes > avail)) {
		fprintf(stderr, "%s: a pool of %u TaskObjects needs %s%.1f MiB of memory "
			"(%.3f MiB each), more than the %.1f MiB available: use a smaller --pool\n",
			argv0, pc->n_tasks, overflow ? "over " : "",
			overflow ? (double)UINT64_MAX / 1048576.0 : (double)bytes / 1048576.0,
			overflow ? 0.0 : (double)bytes / 1048576.0 / pc->n_tasks,
			(double)avail / 1048576.0);
		return -1;
	}
	return 0;
}

void btrt_program_input_failed(const struct btrt_program *prog, const char *argv0,
			       const struct btrt_program_options *o, const char *msg)
{
	fprintf(stderr, "%s: input: %s\n", argv0, msg);
	const char *tried = o->input ? o->input : "(none: the app's own default)";
	if (o->input == prog->app.default_input)
		fprintf(stderr,
			"%s: the input tried was %s, this build's default (made on the machine that "
			"generated it: it may not exist here); give one with --input PATH, or set the "
			"build's default with `meson configure BUILDDIR -Dinput=PATH` (relative to the "
			"project)\n", argv0, tried);
	else
		fprintf(stderr, "%s: the input tried was %s (--input)\n", argv0, tried);
}

int btrt_program_gpu_pool_inputs(const struct btrt_program *prog,
				 const struct btrt_program_schedule *s, void *io_state,
				 struct btrt_pool_config *pc, unsigned char *io_loaded,
				 unsigned char *gpu_touched, struct btrt_pool **probe_pool,
				 const char **from, struct btrt_error *err)
{
	*from = NULL;
	if (pc->backend == BTRT_BACKEND_HOST)
		return 0;
	if (prog->io_loaded) {
		memcpy(io_loaded, prog->io_loaded, prog->app.n_buffers);
		*from = "table";
	} else {
		if (btrt_probe_pool_create(probe_pool, pc, prog->app.bind, prog->app.params,
					   prog->app.io, io_state, io_loaded, err))
			return -1;
		*from = "probe";
	}
	pc->io_loaded = io_loaded;
	if (s &&
	    btrt_chunks_gpu_touched(prog->app.stages, prog->app.n_stages, s->chunks, s->n_chunks,
				    prog->app.buffers, prog->app.n_buffers, gpu_touched) == 0)
		pc->gpu_touched = gpu_touched;
	return 0;
}

enum btrt_backend btrt_program_schedule_backend(const struct btrt_program_schedule *s)
{
	enum btrt_backend b = BTRT_BACKEND_HOST;
	for (uint32_t c = 0; c < s->n_chunks; c++)
		if (s->chunks[c].pu == BTRT_PU_VULKAN)
			b = BTRT_BACKEND_VULKAN;
		else if (s->chunks[c].pu == BTRT_PU_CUDA)
			b = BTRT_BACKEND_CUDA;
	return b;
}
