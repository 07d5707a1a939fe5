/* The profiler's command line (btrt_profiler.h): every number parsed
 * whole and range-checked, every mode name known. */
#include "btrt_profiler_internal.h"

#include <stdio.h>
#include <string.h>

/* The largest --warmup and --max-reps: a cell runs at most 2 x (warmup +
 * max-reps) items and keeps their times. */
#define REPS_MAX 1000000L

const char *const btrt_profiler_mode_names[BTRT_PROF_N_MODES] = { "isolated", "interference",
								  "placed" };

static void usage(const char *argv0)
{
	printf("usage: %s [-o TABLE.csv] [--input PATH] [--modes isolated,interference,placed]\n"
	       "       [--warmup N] [--min-reps N] [--max-reps N] [--precision F] [--quiet]\n"
	       "       [--core-counts]   also each CPU stage on 1, 2, 4, ... of a CPU PU's cores (rows NAME[k])\n"
	       "       [--failure FILE]  a kernel's crash or exit() as JSON (stage, PU, signal)\n"
	       "       [--pus PU,...]    measure only these PUs (stage rows only: no chunk-model rows)\n"
	       "       [--occupy PU [--occupy-s S]]  no table: keep PU busy with the app's stages\n"
	       "                         until SIGTERM or S seconds (default 120; co-run profiling)\n",
	       argv0);
}

/* The comma-separated mode names of v into o->modes. */
static int parse_modes(const char *argv0, const char *v, struct btrt_profiler_options *o)
{
	memset(o->modes, 0, sizeof(o->modes));
	for (const char *p = v;;) {
		size_t n = strcspn(p, ",");
		int m = 0;
		while (m < BTRT_PROF_N_MODES && !(strlen(btrt_profiler_mode_names[m]) == n &&
						  !strncmp(p, btrt_profiler_mode_names[m], n)))
			m++;
		if (m == BTRT_PROF_N_MODES) {
			fprintf(stderr, "%s: --modes: '%.*s' in '%s' is not a mode (isolated, "
				"interference, placed)\n", argv0, (int)n, p, v);
			return -1;
		}
		o->modes[m] = 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* Option a with value v. Returns 0, or -1 after a message. */
static int parse_value(const char *argv0, const char *a, const char *v,
		       struct btrt_profiler_options *o)
{
	struct btrt_error err;
	int rc = 0;
	if (!strcmp(a, "-o"))
		o->output = v;
	else if (!strcmp(a, "--input"))
		o->input = v;
	else if (!strcmp(a, "--failure"))
		o->failure = v;
	else if (!strcmp(a, "--pus"))
		o->pus = v;
	else if (!strcmp(a, "--occupy"))
		o->occupy = v;
	else if (!strcmp(a, "--occupy-s"))
		rc = btrt_parse_double(a, v, 0.1, 86400, &o->occupy_s, &err);
	else if (!strcmp(a, "--modes"))
		return parse_modes(argv0, v, o);
	else if (!strcmp(a, "--warmup"))
		rc = btrt_parse_long(a, v, 0, REPS_MAX, &o->warmup, &err);
	else if (!strcmp(a, "--min-reps"))
		rc = btrt_parse_long(a, v, 2, REPS_MAX, &o->min_reps, &err);
	else if (!strcmp(a, "--max-reps"))
		rc = btrt_parse_long(a, v, 2, REPS_MAX, &o->max_reps, &err);
	else if (!strcmp(a, "--precision"))
		rc = btrt_parse_double(a, v, 1e-6, 1, &o->precision, &err);
	else {
		fprintf(stderr, "%s: unknown option %s\n", argv0, a);
		return -1;
	}
	if (rc)
		fprintf(stderr, "%s: %s\n", argv0, err.msg);
	return rc;
}

int btrt_profiler_parse(const struct btrt_app *app, int argc, char **argv,
			struct btrt_profiler_options *o)
{
	*o = (struct btrt_profiler_options){ .warmup = 3, .min_reps = 10, .max_reps = 30,
					     .precision = 0.02, .input = app->default_input,
					     .modes = { 1, 1, 1 }, .occupy_s = 120 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help")) {
			usage(argv[0]);
			o->help = 1;
			return 0;
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = 1;
			continue;
		} else if (!strcmp(a, "--core-counts")) {
			o->core_counts = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "%s: %s needs a value\n", argv[0], a);
			return -1;
		}
		i++;
		if (parse_value(argv[0], a, v, o))
			return -1;
	}
	if (o->max_reps < o->min_reps) {
		fprintf(stderr, "%s: --max-reps %ld is below --min-reps %ld\n", argv[0], o->max_reps,
			o->min_reps);
		return -1;
	}
	return 0;
}
