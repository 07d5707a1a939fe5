/* The options of the several-stream program (btrt_workload_main): usage,
 * per-stream values "S=VALUE" (S a stream's index or its app's name), and
 * --list. */
#include <stdlib.h>
#include <string.h>

#include "btrt_program.h"
#include "btrt_workload_internal.h"

void btrt_workload_usage(const struct btrt_workload *w, FILE *out, const char *argv0)
{
	fprintf(out,
		"usage: %s [options]\n"
		"  runs the %u streams of workload %s on %s at once (--list shows them);\n"
		"  S names a stream: its index, or its app's name when the app has one stream\n"
		"  --streams S,S..  run only these streams (default: all)\n"
		"  --tasks N        stream N tasks in every stream (default %ld); --tasks S=N:\n"
		"                   N in stream S\n"
		"  --warmup N       tasks per stream excluded from the steady-state figures (default %ld);\n"
		"                   at least one per TaskObject of the stream's pool (a slot's first\n"
		"                   use costs more), the extra ones streamed besides --tasks;\n"
		"                   --warmup S=N: N in stream S\n"
		"  --input S=PATH   stream S's input (default: its app's)\n"
		"  --joint K        run joint candidate K of the plan (default 0, the best predicted;\n"
		"                   %u in this build): each stream its schedule and service cores\n"
		"  --schedule S=N   run schedule N of stream S's app (default: the candidate's)\n"
		"  --placement plan|app  service cores: the plan's per stream (default), or every\n"
		"                   stream its app's single-app ones (naive co-location)\n"
		"  --cores split|shared  CPU chunks of several streams on one PU: each on its\n"
		"                   own share of the PU's cores (default), or all on all of them\n"
		"  --rate S=R       pace stream S's io source at R tasks/s (0: unpaced; default:\n"
		"                   unpaced, or with --pace the candidate's planned rate)\n"
		"  --pace           pace every stream at the candidate's planned rate\n"
		"  --share S=X      fair admission: stream S (X > 0) admits a task only while it\n"
		"                   is not ahead of its share X of the least normalised progress\n"
		"                   (tasks / X) of the other streams with a share (the max-min\n"
		"                   proportions: X = w_S r*_S)\n"
		"  --multiplex T    time multiplexing: the streams take turns, T tasks a turn;\n"
		"                   --multiplex S=T: T tasks in stream S's turns\n"
		"                   (a turn starts once the previous one's tasks were checked)\n"
		"  --together       once one stream has checked all its tasks, the others stop\n"
		"                   admitting (they run together from start to end)\n"
		"  --start-gate READY,GO  once every stream is prepared, create the file READY\n"
		"                   and start when the file GO exists (a start shared by programs)\n"
		"  --trace FILE     write one Chrome/Perfetto trace, a process per stream\n"
		"  --report FILE    write a JSON report with each stream's figures\n"
		"  --share-probe[=MS]  measure the GPU's same-PU capacity kappa(n) for n = 2..\n"
		"                   the streams with GPU stages (windows of MS ms, default 500):\n"
		"                   prints @share table rows, runs no pipeline\n"
		"  --list           list the streams and their schedules and exit\n"
		"  --list-json      the streams and the joint candidates as JSON, and exit\n"
		"  --quiet          print only the summary lines\n"
		"environment: BTRT_NO_PIN=1 disables core pinning; BTRT_VK_DEVICE, BTRT_CUDA_DEVICE select GPUs\n",
		argv0, w->n_streams, w->name, w->device, w->default_tasks, w->default_warmup,
		w->n_joint);
}

/* The stream named by s (len chars): an index, or an app with one stream.
 * Returns its index, or -1 after a message. */
static int stream_index(const struct btrt_workload *w, const char *argv0, const char *opt,
			const char *s, size_t len)
{
	char name[128];
	snprintf(name, sizeof name, "%.*s", (int)BTRT_MIN(len, sizeof name - 1), s);
	long v;
	if (btrt_parse_long(opt, name, 0, (long)w->n_streams - 1, &v, NULL) == 0)
		return (int)v;
	int found = -1, n = 0;
	for (uint32_t i = 0; i < w->n_streams; i++)
		if (!strcmp(w->streams[i].prog->app.name, name)) {
			found = (int)i;
			n++;
		}
	if (n == 1)
		return found;
	fprintf(stderr, "%s: %s: '%s' %s (an index 0..%u, or the app of one stream)\n", argv0, opt,
		name, n ? "names several streams: use an index" : "names no stream",
		w->n_streams - 1);
	return -1;
}

/* "S=VALUE" of opt: *stream and *value (in arg). Returns 0, or -1 after
 * a message. */
static int split(const struct btrt_workload *w, const char *argv0, const char *opt,
		 const char *arg, int *stream, const char **value)
{
	const char *eq = strchr(arg, '=');
	if (!eq) {
		fprintf(stderr, "%s: %s '%s': S=VALUE expected\n", argv0, opt, arg);
		return -1;
	}
	*value = eq + 1;
	*stream = stream_index(w, argv0, opt, arg, (size_t)(eq - arg));
	return *stream < 0 ? -1 : 0;
}

static int parse_streams(const struct btrt_workload *w, const char *argv0, const char *arg,
			 struct btrt_workload_options *o)
{
	memset(o->run, 0, w->n_streams * sizeof *o->run);
	for (const char *p = arg; *p;) {
		size_t n = strcspn(p, ",");
		int i = stream_index(w, argv0, "--streams", p, n);
		if (i < 0)
			return -1;
		o->run[i] = 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

int btrt_workload_parse(const struct btrt_workload *w, int argc, char **argv,
			struct btrt_workload_options *o)
{
	memset(o, 0, sizeof *o);
	o->share_probe_ms = 500;
	o->tasks = w->default_tasks;
	o->warmup = w->default_warmup;
	o->n = w->n_streams;
	o->input = calloc(w->n_streams, sizeof *o->input);
	o->schedule = calloc(w->n_streams, sizeof *o->schedule);
	o->rate = calloc(w->n_streams, sizeof *o->rate);
	o->run = calloc(w->n_streams, sizeof *o->run);
	o->tasks_of = calloc(w->n_streams, sizeof *o->tasks_of);
	o->turn_of = calloc(w->n_streams, sizeof *o->turn_of);
	o->share = calloc(w->n_streams, sizeof *o->share);
	o->warmup_of = malloc(w->n_streams * sizeof *o->warmup_of);
	unsigned char *given = calloc(2 * (size_t)w->n_streams, 1); /* --schedule, --rate */
	if (!o->input || !o->schedule || !o->rate || !o->run || !o->tasks_of || !o->turn_of || !o->share ||
	    !o->warmup_of || !given) {
		free(given);
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return -1;
	}
	for (uint32_t i = 0; i < w->n_streams; i++) {
		o->input[i] = w->streams[i].input;
		o->schedule[i] = w->streams[i].schedule;
		o->rate[i] = w->streams[i].rate;
		o->run[i] = 1;
		o->warmup_of[i] = -1; /* not given */
	}
	int warmup_set = 0, joint_given = 0;
	struct btrt_error err;
	for (int a = 1; a < argc; a++) {
		const char *opt = argv[a];
		if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
			o->help = 1;
			free(given);
			return 0;
		}
		if (!strcmp(opt, "--list")) {
			o->list = 1;
			continue;
		}
		if (!strcmp(opt, "--list-json")) {
			o->list_json = 1;
			continue;
		}
		if (!strcmp(opt, "--together")) {
			o->together = 1;
			continue;
		}
		if (!strcmp(opt, "--share-probe") || !strncmp(opt, "--share-probe=", 14)) {
			o->share_probe = 1;
			if (opt[13] == '=' &&
			    btrt_parse_double("--share-probe", opt + 14, 10, 60000, &o->share_probe_ms,
					      &err))
				goto bad;
			continue;
		}
		if (!strcmp(opt, "--pace")) {
			o->pace = 1;
			continue;
		}
		if (!strcmp(opt, "--quiet")) {
			o->quiet = 1;
			continue;
		}
		static const char *const valued[] = { "--tasks", "--warmup", "--input", "--schedule",
						      "--rate", "--streams", "--trace", "--report",
						      "--joint", "--placement", "--multiplex",
						      "--start-gate", "--cores", "--share" };
		enum { N_VALUED = sizeof valued / sizeof valued[0] };
		int k = 0;
		while (k < N_VALUED && strcmp(opt, valued[k]))
			k++;
		if (k == N_VALUED) {
			fprintf(stderr, "%s: unknown option '%s' (--help lists them)\n", argv[0], opt);
			goto fail;
		}
		if (a + 1 >= argc) {
			fprintf(stderr, "%s: %s needs a value\n", argv[0], opt);
			goto fail;
		}
		const char *v = argv[++a], *val;
		int s;
		switch (k) {
		case 0:
			if (strchr(v, '=')) {
				if (split(w, argv[0], opt, v, &s, &val))
					goto fail;
				if (btrt_parse_long(opt, val, 1, 1000000000L, &o->tasks_of[s], &err))
					goto bad;
			} else if (btrt_parse_long(opt, v, 1, 1000000000L, &o->tasks, &err))
				goto bad;
			break;
		case 1:
			if (strchr(v, '=')) {
				if (split(w, argv[0], opt, v, &s, &val))
					goto fail;
				if (btrt_parse_long(opt, val, 0, 1000000000L, &o->warmup_of[s], &err))
					goto bad;
				break;
			}
			if (btrt_parse_long(opt, v, 0, 1000000000L, &o->warmup, &err))
				goto bad;
			warmup_set = 1;
			break;
		case 2:
			if (split(w, argv[0], opt, v, &s, &val))
				goto fail;
			o->input[s] = val;
			break;
		case 3:
			if (split(w, argv[0], opt, v, &s, &val))
				goto fail;
			if (btrt_parse_long(opt, val, 0,
					    (long)w->streams[s].prog->n_schedules - 1,
					    &o->schedule[s], &err))
				goto bad;
			given[s] = 1;
			break;
		case 4:
			if (split(w, argv[0], opt, v, &s, &val))
				goto fail;
			if (btrt_parse_double(opt, val, 0, 1e9, &o->rate[s], &err))
				goto bad;
			given[w->n_streams + s] = 1;
			break;
		case 5:
			if (parse_streams(w, argv[0], v, o))
				goto fail;
			break;
		case 6:
			o->trace = v;
			break;
		case 7:
			o->report = v;
			break;
		case 8:
			if (!w->n_joint) {
				fprintf(stderr, "%s: --joint: this workload has no joint candidates "
					"(its schedules were given per app)\n", argv[0]);
				goto fail;
			}
			if (btrt_parse_long(opt, v, 0, (long)w->n_joint - 1, &o->joint, &err))
				goto bad;
			joint_given = 1;
			break;
		case 9:
			if (strcmp(v, "plan") && strcmp(v, "app")) {
				fprintf(stderr, "%s: --placement '%s': plan or app\n", argv[0], v);
				goto fail;
			}
			o->placement_app = !strcmp(v, "app");
			break;
		case 10:
			if (strchr(v, '=')) {
				if (split(w, argv[0], opt, v, &s, &val))
					goto fail;
				if (btrt_parse_long(opt, val, 1, 1000000000L, &o->turn_of[s], &err))
					goto bad;
			} else if (btrt_parse_long(opt, v, 0, 1000000000L, &o->multiplex, &err))
				goto bad;
			break;
		case 11: {
			const char *comma = strchr(v, ',');
			if (!comma || comma == v || !comma[1]) {
				fprintf(stderr, "%s: --start-gate '%s': READY,GO (two paths)\n", argv[0],
					v);
				goto fail;
			}
			o->gate = v;
			break;
		}
		case 12:
			if (strcmp(v, "split") && strcmp(v, "shared")) {
				fprintf(stderr, "%s: --cores '%s': split or shared\n", argv[0], v);
				goto fail;
			}
			o->cores_shared = !strcmp(v, "shared");
			break;
		case 13:
			if (split(w, argv[0], opt, v, &s, &val))
				goto fail;
			if (btrt_parse_double(opt, val, 0, 1e12, &o->share[s], &err))
				goto bad;
			break;
		}
	}
	/* --schedule for every stream without --joint: the first candidate
	 * of those schedules, if any, places the service threads */
	int all_given = 1;
	for (uint32_t i = 0; i < w->n_streams; i++)
		all_given &= given[i];
	for (uint32_t k = 0; all_given && !joint_given && k < w->n_joint; k++) {
		uint32_t i = 0;
		while (i < w->n_streams && w->joint[k].streams[i].schedule == o->schedule[i])
			i++;
		if (i == w->n_streams) {
			o->joint = k;
			break;
		}
	}
	for (uint32_t i = 0; w->n_joint && i < w->n_streams; i++) {
		const struct btrt_workload_joint_stream *js = &w->joint[o->joint].streams[i];
		if (!given[i])
			o->schedule[i] = js->schedule;
		if (!given[w->n_streams + i] && o->pace)
			o->rate[i] = js->rate;
	}
	free(given);
	long fewest = o->tasks;
	for (uint32_t i = 0; i < w->n_streams; i++) {
		if (!o->tasks_of[i])
			o->tasks_of[i] = o->tasks;
		fewest = BTRT_MIN(fewest, o->tasks_of[i]);
	}
	/* --multiplex S=T without a plain T: the others' turns are 1 task */
	for (uint32_t i = 0; i < w->n_streams && !o->multiplex; i++)
		if (o->turn_of[i])
			o->multiplex = 1;
	/* the default warm-up leaves at least one measured task */
	if (!warmup_set && o->warmup >= fewest)
		o->warmup = fewest / 2;
	for (uint32_t i = 0; i < w->n_streams; i++)
		if (o->warmup_of[i] < 0)
			o->warmup_of[i] = o->warmup;
	return 0;
bad:
	fprintf(stderr, "%s: %s\n", argv[0], err.msg);
fail:
	free(given);
	return -1;
}

void btrt_workload_options_free(struct btrt_workload_options *o)
{
	free(o->input);
	free(o->schedule);
	free(o->rate);
	free(o->tasks_of);
	free(o->turn_of);
	free(o->share);
	free(o->warmup_of);
	free(o->run);
}

void btrt_workload_list(const struct btrt_workload *w, const struct btrt_workload_options *o,
			FILE *out)
{
	fprintf(out, "workload %s on %s: %u streams\n", w->name, w->device, w->n_streams);
	for (uint32_t i = 0; i < w->n_streams; i++) {
		const struct btrt_workload_stream *s = &w->streams[i];
		const struct btrt_program_schedule *sc = &s->prog->schedules[o->schedule[i]];
		fprintf(out, "  %u %-16s schedule %ld (%s): %s", i, s->prog->app.name, o->schedule[i],
			sc->kind, sc->label);
		if (sc->predicted_ms > 0)
			fprintf(out, ", predicted %.4f ms/task", sc->predicted_ms);
		if (o->rate[i] > 0)
			fprintf(out, ", paced at %.1f tasks/s", o->rate[i]);
		if (o->share[i] > 0)
			fprintf(out, ", fair share %g", o->share[i]);
		fprintf(out, "\n");
	}
	for (uint32_t k = 0; k < w->n_joint; k++) {
		fprintf(out, "  joint %u%s: predicted max-min normalised throughput %.3f; schedules", k,
			(long)k == o->joint ? " (run)" : "", w->joint[k].predicted);
		for (uint32_t i = 0; i < w->n_streams; i++)
			fprintf(out, " %ld", w->joint[k].streams[i].schedule);
		fprintf(out, "\n");
	}
}

void btrt_workload_service(const struct btrt_workload *w, const struct btrt_workload_options *o,
			   uint32_t i, const int **io, uint32_t *n_io, int *gpu)
{
	const struct btrt_workload_stream *s = &w->streams[i];
	*gpu = -1;
	if (o->placement_app || !w->n_joint) {
		*io = s->service_cores ? s->service_cores : s->prog->service_cores;
		*n_io = s->service_cores ? s->n_service_cores : s->prog->n_service_cores;
		return;
	}
	const int *c = w->joint[o->joint].streams[i].service_cores;
	*io = c;
	*n_io = c[0] >= 0 && c[1] >= 0 ? 2 : 0;
	*gpu = c[2];
}

const struct btrt_workload_cores *btrt_workload_chunk_cores(const struct btrt_workload *w,
							    const struct btrt_workload_options *o,
							    uint32_t i, uint32_t *n)
{
	*n = 0;
	if (o->cores_shared || o->placement_app || !w->n_joint)
		return NULL;
	const struct btrt_workload_joint_stream *js = &w->joint[o->joint].streams[i];
	if (js->schedule != o->schedule[i] || !js->chunk_cores)
		return NULL;
	*n = js->n_chunk_cores;
	return js->chunk_cores;
}
