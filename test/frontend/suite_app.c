#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "front/app.h"
#include "front/names.h"
#include "front/yamldoc.h"
#include "suites.h"

/* Apps are parsed from text but named as if they lived in the fixture
 * directory, so that relative shader and source paths resolve there. */
#define APP_PATH FRONTEND_DATA_DIR "/demo.yaml"
#define P APP_PATH ":"

#define HEAD "app: demo\nparams:\n  n: 1024\n"
#define BUFS "buffers:\n  - {name: input, type: f32, count: n}\n  - {name: output, type: f32, count: n}\n"

static const char good_app[] =
	"app: demo\n"
	"params:\n"
	"  n: 1024\n"
	"  groups: 4\n"
	"buffers:\n"
	"  - {name: input, type: f32, count: n}\n"
	"  - {name: output, type: f32, count: n * 2, placement: unified}\n"
	"  - {name: scratch, type: u32, count: \"ceil_div(n, 256)\", placement: device}\n"
	"  - {name: total, type: u64, count: 1, placement: host}\n"
	"stages:\n"
	"  - name: scale\n"
	"    reads: [input]\n"
	"    writes: [output]\n"
	"    cpu: demo_scale_cpu\n"
	"    cuda: demo_scale_cuda\n"
	"    vulkan:\n"
	"      - shader: noop.comp\n"
	"        groups: [\"ceil_div(n, 256)\"]\n"
	"        push: [n, groups]\n"
	"      - shader: noop.comp\n"
	"        groups: [1, groups]\n"
	"        push: [i]\n"
	"        repeat: 4\n"
	"  - name: sum\n"
	"    reads: [output]\n"
	"    writes: [total]\n"
	"    cpu: demo_sum_cpu\n"
	"io: demo_io\n"
	"sources:\n"
	"  cpu: [noop.comp]\n";

static void test_good(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_app_load(APP_PATH, good_app, NULL, 0, &d);
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(app);
	CU_ASSERT_STRING_EQUAL(app->name, "demo");
	CU_ASSERT_EQUAL(app->n_params, 2);
	CU_ASSERT_EQUAL(app->n_buffers, 4);
	CU_ASSERT_EQUAL(app->buffers[1].count_value, 2048);
	CU_ASSERT_EQUAL(app->buffers[2].count_value, 4);
	CU_ASSERT_EQUAL(app->buffers[2].placement, BTC_PLACE_DEVICE);
	CU_ASSERT_EQUAL(app->buffers[3].elem, BTC_U64);
	CU_ASSERT_EQUAL(app->n_stages, 2);
	CU_ASSERT_TRUE(btc_stage_has(&app->stages[0], BTC_BACKEND_VULKAN));
	CU_ASSERT_FALSE(btc_stage_has(&app->stages[1], BTC_BACKEND_CUDA));
	CU_ASSERT_EQUAL(app->stages[0].n_vk, 2);
	CU_ASSERT_EQUAL(app->stages[0].vk[1].repeat, 4);
	CU_ASSERT_EQUAL(app->stages[1].reads[0], 1);
	CU_ASSERT_EQUAL(app->stages[1].writes[0], 3);
	CU_ASSERT_STRING_EQUAL(app->io, "demo_io");
	btc_app_free(app);

	/* -D overrides change the evaluated counts. */
	struct btc_param_override ov = {"n", 10};
	app = btc_app_load(APP_PATH, good_app, &ov, 1, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(app);
	CU_ASSERT_EQUAL(app->buffers[1].count_value, 20);
	CU_ASSERT_EQUAL(app->buffers[2].count_value, 1);
	btc_app_free(app);
}

static const struct bad_case bad[] = {
	{"yaml unclosed flow", "app: [demo\n",
	 P "2:1: error: YAML syntax: did not find expected ',' or ']' while parsing a flow sequence"},
	{"yaml bad indent", "app: demo\n  x: 1\n",
	 P "2:4: error: YAML syntax: mapping values are not allowed in this context"},
	{"yaml unclosed quote", "app: \"demo\n",
	 P "2:1: error: YAML syntax: found unexpected end of stream while scanning a quoted scalar"},
	{"yaml tab", "app: demo\n\tparams: 1\n",
	 P "2:1: error: YAML syntax: found a tab character that violates indentation while scanning a plain scalar"},
	{"empty document", "", P "1:1: error: empty document"},
	{"root is a list", "- app\n", P "1:1: error: app description must be a mapping, not a list"},
	{"unknown top key", HEAD BUFS "stages: []\nstagez: 1\n",
	 P "8:1: error: unknown key 'stagez' in app description"},
	{"missing app", "buffers: []\nstages: []\n",
	 P "1:1: error: app description is missing required key 'app'"},
	{"missing stages", HEAD BUFS, P "1:1: error: app description is missing required key 'stages'"},
	{"app not identifier", "app: 3d-demo\nbuffers: []\nstages: []\n",
	 P "1:6: error: app name '3d-demo' is not a C identifier"},
	{"duplicate top key", "app: demo\napp: demo2\nbuffers: []\nstages: []\n",
	 P "2:1: error: duplicate key 'app' in app description (first at line 1)"},
	{"param not integer", "app: demo\nparams:\n  n: 1.5\nbuffers: []\nstages: []\n",
	 P "3:6: error: param value must be an integer, not '1.5'"},
	{"param duplicate", "app: demo\nparams:\n  n: 1\n  n: 2\nbuffers: []\nstages: []\n",
	 P "4:3: error: duplicate param 'n'"},
	{"param named i", "app: demo\nparams:\n  i: 1\nbuffers: []\nstages: []\n",
	 P "3:3: error: param name 'i' is reserved for repeat indices"},
	{"params not mapping", "app: demo\nparams: [1]\nbuffers: []\nstages: []\n",
	 P "2:9: error: params must be a mapping of name: integer"},
	{"buffer unknown type", HEAD "buffers:\n  - {name: a, type: float, count: n}\nstages: []\n",
	 P "5:21: error: unknown element type 'float' (expected u8, i8, u16, i16, u32, i32, u64, i64, f32 or f64)"},
	{"buffer missing count", HEAD "buffers:\n  - {name: a, type: f32}\nstages: []\n",
	 P "5:5: error: buffer is missing required key 'count'"},
	{"buffer duplicate", HEAD "buffers:\n  - {name: a, type: f32, count: 1}\n  - {name: a, type: f32, count: 1}\nstages: []\n",
	 P "6:12: error: duplicate name 'a' (buffers and params share one namespace)"},
	{"buffer named like param", HEAD "buffers:\n  - {name: n, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: duplicate name 'n' (buffers and params share one namespace)"},
	{"buffer bad placement", HEAD "buffers:\n  - {name: a, type: f32, count: 1, placement: gpu}\nstages: []\n",
	 P "5:47: error: unknown placement 'gpu' (expected unified, host or device)"},
	{"buffer unknown key", HEAD "buffers:\n  - {name: a, type: f32, count: 1, size: 4}\nstages: []\n",
	 P "5:36: error: unknown key 'size' in buffer"},
	{"scratch not a bool", HEAD "buffers:\n  - {name: a, type: f32, count: 1, scratch: 2}\nstages:\n  - {name: s, writes: [a], cpu: f}\n",
	 P "5:45: error: scratch must be true or false, not '2'"},
	{"scratch not unified", HEAD "buffers:\n  - {name: a, type: f32, count: 1, placement: host, scratch: true}\nstages:\n  - {name: s, writes: [a], cpu: f}\n",
	 P "5:62: error: scratch buffer 'a' has placement host; a scratch buffer is unified (the schedule places it)"},
	{"scratch read by a later stage", HEAD "buffers:\n  - {name: a, type: f32, count: 1, scratch: true}\nstages:\n  - {name: s, writes: [a], cpu: f}\n  - {name: t, reads: [a], cpu: g}\n",
	 P "8:5: error: stage 't' reads scratch buffer 'a' but does not write it: a scratch buffer carries nothing from one stage to the next"},
	{"scratch written by no stage", HEAD "buffers:\n  - {name: a, type: f32, count: 1, scratch: true}\nstages:\n  - {name: s, cpu: f}\n",
	 P "5:45: error: scratch buffer 'a' is written by no stage"},
	{"count undefined name", HEAD "buffers:\n  - {name: a, type: f32, count: n * m}\nstages: []\n",
	 P "5:37: error: undefined name 'm' in expression"},
	{"count division by zero", HEAD "buffers:\n  - {name: a, type: f32, count: n / (n - 1024)}\nstages: []\n",
	 P "5:35: error: division by zero in expression"},
	{"count syntax", HEAD "buffers:\n  - {name: a, type: f32, count: \"n *\"}\nstages: []\n",
	 P "5:37: error: unexpected end of expression"},
	{"count zero", HEAD "buffers:\n  - {name: a, type: f32, count: n - n}\nstages: []\n",
	 P "5:33: error: count of buffer 'a' is 0; it must be at least 1"},
	{"count overflow", HEAD "buffers:\n  - {name: a, type: f32, count: n * 9223372036854775807}\nstages: []\n",
	 P "5:35: error: integer overflow in expression"},
	{"count unknown function", HEAD "buffers:\n  - {name: a, type: f32, count: sqrt(n)}\nstages: []\n",
	 P "5:33: error: unknown function 'sqrt' (expected ceil_div, min or max)"},
	{"stages empty", HEAD BUFS "stages: []\n", P "7:9: error: an app needs at least one stage"},
	{"stage missing name", HEAD BUFS "stages:\n  - cpu: f\n",
	 P "8:5: error: stage is missing required key 'name'"},
	{"stage duplicate", HEAD BUFS "stages:\n  - {name: a, cpu: f}\n  - {name: a, cpu: g}\n",
	 P "9:12: error: duplicate stage 'a'"},
	{"stage without kernel", HEAD BUFS "stages:\n  - {name: a, reads: [input]}\n",
	 P "8:5: error: stage 'a' has no kernel (needs cpu, cuda or vulkan)"},
	{"reads undefined buffer", HEAD BUFS "stages:\n  - {name: a, reads: [inptu], cpu: f}\n",
	 P "8:23: error: undefined buffer 'inptu' in reads (did you mean 'input'?)"},
	{"writes twice", HEAD BUFS "stages:\n  - {name: a, writes: [output, output], cpu: f}\n",
	 P "8:32: error: buffer 'output' listed twice in writes"},
	{"reads not list", HEAD BUFS "stages:\n  - {name: a, reads: input, cpu: f}\n",
	 P "8:22: error: reads must be a list, not a scalar"},
	{"cpu not identifier", HEAD BUFS "stages:\n  - {name: a, cpu: my-kernel}\n",
	 P "8:20: error: cpu kernel symbol 'my-kernel' is not a C identifier"},
	{"vulkan not list", HEAD BUFS "stages:\n  - name: a\n    vulkan: {shader: noop.comp, groups: [1]}\n",
	 P "9:13: error: vulkan (a list of dispatches) must be a list, not a mapping"},
	{"shader missing", HEAD BUFS "stages:\n  - name: a\n    vulkan:\n      - {shader: nope.comp, groups: [1]}\n",
	 P "10:18: error: shader file '" FRONTEND_DATA_DIR "/nope.comp' not found"},
	{"groups too many", HEAD BUFS "stages:\n  - name: a\n    vulkan:\n      - {shader: noop.comp, groups: [1, 1, 1, 1]}\n",
	 P "10:37: error: groups needs 1 to 3 expressions, not 4"},
	{"push overflow", HEAD BUFS "stages:\n  - name: a\n    vulkan:\n      - {shader: noop.comp, groups: [1], push: [n * 10000000]}\n",
	 P "10:9: error: push constant 0 = 10240000000 does not fit in 32 bits"},
	{"groups zero", HEAD BUFS "stages:\n  - name: a\n    vulkan:\n      - {shader: noop.comp, groups: [n - 1024 * (i + 1)], repeat: 2}\n",
	 P "10:9: error: dispatch group count 0 (dimension 0, i = 0) is out of range"},
	{"repeat zero", HEAD BUFS "stages:\n  - name: a\n    vulkan:\n      - {shader: noop.comp, groups: [1], repeat: 0}\n",
	 P "10:50: error: repeat must be between 1 and 1048576, not 0"},
	{"dispatch missing groups", HEAD BUFS "stages:\n  - name: a\n    vulkan:\n      - {shader: noop.comp}\n",
	 P "10:9: error: vulkan dispatch is missing required key 'groups'"},
	{"vulkan empty", HEAD BUFS "stages:\n  - name: a\n    vulkan: []\n",
	 P "9:13: error: vulkan needs at least one dispatch"},
	{"source missing", HEAD BUFS "stages:\n  - {name: a, cpu: f}\nsources:\n  cpu: [missing.c]\n",
	 P "10:9: error: source file '" FRONTEND_DATA_DIR "/missing.c' not found"},
	{"sources unknown key", HEAD BUFS "stages:\n  - {name: a, cpu: f}\nsources:\n  c: [noop.comp]\n",
	 P "10:3: error: unknown key 'c' in sources"},
	{"comma in flow list", HEAD BUFS "stages:\n  - name: a\n    vulkan:\n      - {shader: noop.comp, groups: [ceil_div(n, 256)]}\n",
	 P "10:48: error: unexpected end of expression in call (quote expressions that contain ',' inside [ ] or { })"},
	{"io not identifier", HEAD BUFS "stages:\n  - {name: a, cpu: f}\nio: 12\n",
	 P "9:5: error: io symbol '12' is not a C identifier"},
	/* Names are C identifiers of the generated code, checked at load. */
	{"buffer named return", HEAD "buffers:\n  - {name: return, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name 'return' is a C keyword"},
	{"buffer named _Bool", HEAD "buffers:\n  - {name: _Bool, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name '_Bool' is a C keyword"},
	{"buffer reserved", HEAD "buffers:\n  - {name: __x, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name '__x' is reserved in C (a leading '__' or '_' and a capital)"},
	{"buffer reserved capital", HEAD "buffers:\n  - {name: _X, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name '_X' is reserved in C (a leading '__' or '_' and a capital)"},
	{"buffer btrt prefix", HEAD "buffers:\n  - {name: btrt_pool, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name 'btrt_pool' clashes with names of the generated code or the runtime"},
	{"buffer APP_ macro", HEAD "buffers:\n  - {name: APP_TASK, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name 'APP_TASK' clashes with names of the generated code or the runtime"},
	{"buffer pipeline_ prefix", HEAD "buffers:\n  - {name: pipeline_schedules, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name 'pipeline_schedules' clashes with names of the generated code or the runtime"},
	{"buffer app_ prefix", HEAD "buffers:\n  - {name: app_params, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name 'app_params' clashes with names of the generated code or the runtime"},
	{"buffer N_ macro", HEAD "buffers:\n  - {name: N_SCHEDULES, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name 'N_SCHEDULES' clashes with names of the generated code or the runtime"},
	{"cpu symbol pu cores", HEAD BUFS "stages:\n  - {name: a, cpu: pu_service_cores}\n",
	 P "8:20: error: cpu kernel symbol 'pu_service_cores' clashes with names of the generated code or the runtime"},
	{"buffer named NULL", HEAD "buffers:\n  - {name: NULL, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name 'NULL' clashes with names of the generated code or the runtime"},
	{"buffer named base", HEAD "buffers:\n  - {name: base, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name 'base' clashes with a member of the TaskObject struct"},
	{"buffer named params", HEAD "buffers:\n  - {name: params, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name 'params' clashes with a member of the TaskObject struct"},
	{"buffers differ in case", HEAD "buffers:\n  - {name: a, type: f32, count: 1}\n  - {name: A, type: f32, count: 1}\nstages: []\n",
	 P "6:12: error: buffer name 'A' differs from 'a' only in case (the generated code upper-cases buffer names)"},
	{"buffer name too long", HEAD "buffers:\n  - {name: a234567890123456789012345678901234567890123456789012345678901234, type: f32, count: 1}\nstages: []\n",
	 P "5:12: error: buffer name 'a234567890123456789012345678901234567890123456789012345678901234' is longer than 63 characters"},
	{"param keyword", "app: demo\nparams:\n  while: 1\nbuffers: []\nstages: []\n",
	 P "3:3: error: param name 'while' is a C keyword"},
	{"app keyword", "app: int\nbuffers: []\nstages: []\n", P "1:6: error: app name 'int' is a C keyword"},
	{"app named pipeline", "app: Pipeline\nbuffers: []\nstages: []\n",
	 P "1:6: error: app name 'Pipeline' clashes with names of the generated code or the runtime"},
	{"app named btrt", "app: btrt\nbuffers: []\nstages: []\n",
	 P "1:6: error: app name 'btrt' clashes with names of the generated code or the runtime"},
	{"app injection", "app: 'x\" + system(\"id\") + \"'\nbuffers: []\nstages: []\n",
	 P "1:6: error: app name 'x\" + system(\"id\") + \"' is not a C identifier"},
	{"stage keyword", HEAD BUFS "stages:\n  - {name: for, cpu: f}\n",
	 P "8:12: error: stage name 'for' is a C keyword"},
	{"stage with dash", HEAD BUFS "stages:\n  - {name: my-stage, cpu: f}\n",
	 P "8:12: error: stage name 'my-stage' is not a C identifier"},
	{"cpu symbol main", HEAD BUFS "stages:\n  - {name: a, cpu: main}\n",
	 P "8:20: error: cpu kernel symbol 'main' clashes with names of the generated code or the runtime"},
	{"cuda symbol generated", HEAD BUFS "stages:\n  - {name: a, cuda: stage0_cuda}\n",
	 P "8:21: error: cuda launcher symbol 'stage0_cuda' clashes with names of the generated code or the runtime"},
	{"library with quote", HEAD BUFS "stages:\n  - {name: a, cpu: f}\nsources:\n  libs: [\"m')\"]\n",
	 P "10:10: error: library name 'm')' may only hold letters, digits, '_', '.' and '-'"},
	{"push too many", HEAD BUFS "stages:\n  - name: a\n    vulkan:\n      - {shader: noop.comp, groups: [1], push: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}\n",
	 P "10:48: error: push needs at most 32 constants, not 33"},
	{"too many dispatches", HEAD BUFS "stages:\n  - name: a\n    vulkan:\n      - {shader: noop.comp, groups: [1], repeat: 1048576}\n"
	 "      - {shader: noop.comp, groups: [1], repeat: 1}\n",
	 P "11:9: error: too many dispatches (repeats summed over the app exceed 1048576)"},
	{"reads longer than buffers", HEAD BUFS "stages:\n  - {name: a, reads: [input, output, input], cpu: f}\n",
	 P "8:22: error: reads lists 3 buffers; the app has 2"},
	{"input with quote", HEAD BUFS "stages:\n  - {name: a, cpu: f}\ninput: 'a\"b'\n",
	 P "9:8: error: input path must not contain '\"', '\\' or control characters"},
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct btc_diag d;
		btc_diag_init(&d, NULL);
		struct btc_app *app = btc_app_load(APP_PATH, bad[i].text, NULL, 0, &d);
		CU_ASSERT_PTR_NULL(app); /* never a partial result */
		btc_app_free(app);
		assert_first_error(&d, bad[i].name, bad[i].expect);
	}
}

/* A scratch buffer: a stage that reads it writes it too (a sort's
 * ping-pong); the flag reaches the app, other buffers keep it off. */
static void test_scratch(void)
{
	static const char text[] = HEAD BUFS
		"  - {name: tmp, type: u32, count: n, scratch: true}\n"
		"  - {name: kept, type: u32, count: n, scratch: false}\n"
		"stages:\n"
		"  - {name: sort, reads: [input, tmp], writes: [output, tmp, kept], cpu: f}\n";
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_app_load(APP_PATH, text, NULL, 0, &d);
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(app);
	CU_ASSERT_EQUAL(app->n_buffers, 4);
	CU_ASSERT_FALSE(app->buffers[0].scratch);
	CU_ASSERT_FALSE(app->buffers[1].scratch);
	CU_ASSERT_TRUE(app->buffers[2].scratch);
	CU_ASSERT_FALSE(app->buffers[3].scratch);
	btc_app_free(app);
}

static void test_all_errors_reported(void)
{
	static const char text[] = HEAD
		"buffers:\n"
		"  - {name: a, type: f31, count: 1}\n"
		"  - {name: b, type: f32, count: zz}\n"
		"stages:\n"
		"  - {name: s, reads: [c]}\n";
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_app *app = btc_app_load(APP_PATH, text, NULL, 0, &d);
	CU_ASSERT_PTR_NULL(app);
	CU_ASSERT_EQUAL(d.errors, 4);
	CU_ASSERT_STRING_EQUAL(d.last, P "8:5: error: stage 's' has no kernel (needs cpu, cuda or vulkan)");
}

/* Every bad name is reported, each at its own mark. */
static void test_all_bad_names_reported(void)
{
	static const char text[] =
		"app: int\n"
		"params:\n  __p: 1\n"
		"buffers:\n"
		"  - {name: return, type: f32, count: 1}\n"
		"  - {name: btrt_x, type: f32, count: 1}\n"
		"stages:\n"
		"  - {name: if, cpu: main}\n";
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_app *app = btc_app_load(APP_PATH, text, NULL, 0, &d);
	CU_ASSERT_PTR_NULL(app);
	CU_ASSERT_EQUAL(d.errors, 5);
	CU_ASSERT_STRING_EQUAL(d.first, P "1:6: error: app name 'int' is a C keyword");
	CU_ASSERT_STRING_EQUAL(d.last, P "8:12: error: stage name 'if' is a C keyword");
}

static void test_unknown_override(void)
{
	struct btc_param_override ov = {"nn", 3};
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_app *app = btc_app_load(APP_PATH, good_app, &ov, 1, &d);
	CU_ASSERT_PTR_NULL(app);
	assert_first_error(&d, "unknown -D", APP_PATH ": error: -D nn: the app has no param 'nn'");
}

static void test_missing_file(void)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_PTR_NULL(btc_app_load("/nonexistent/app.yaml", NULL, NULL, 0, &d));
	assert_first_error(&d, "missing file", "/nonexistent/app.yaml: error: cannot open: No such file or directory");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void expect_load_error_within(const char *text, const char *name,
				     const char *expect, double max_s)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	double t0 = now_s();
	struct btc_app *app = btc_app_load(APP_PATH, text, NULL, 0, &d);
	double dt = now_s() - t0;
	CU_ASSERT_PTR_NULL(app);
	btc_app_free(app);
	assert_first_error(&d, name, expect);
	/* No timing is asserted (a loaded machine must pass): the loader
	 * stops at the first node past the limit, and a quadratic or hanging
	 * load (over 60 s before the limits) runs into the meson test's
	 * timeout. The time is printed when it is unusually long. */
	if (dt > max_s)
		fprintf(stderr, "\n    %s: %.2f s\n", name, dt);
}

static void expect_load_error(const char *text, const char *name, const char *expect)
{
	expect_load_error_within(text, name, expect, 0.5);
}

/* YAML limits (BTC_YAML_MAX_DEPTH, BTC_YAML_MAX_BYTES), enforced while
 * parsing: 200,000 nested flow lists used to take over a minute. */
static void test_yaml_limits(void)
{
	size_t n = 200000;
	char *s = malloc(2 * n + 2), *p = s;
	memset(p, '[', n);
	memset(p + n, ']', n);
	p[2 * n] = '\n';
	p[2 * n + 1] = '\0';
	expect_load_error(s, "200000 nested lists",
			  P "1:65: error: YAML nested too deeply (more than 64 levels)");
	memset(p, '{', n);
	memset(p + n, '}', n);
	expect_load_error(s, "200000 nested mappings",
			  P "1:65: error: YAML nested too deeply (more than 64 levels)");
	free(s);

	/* Block nesting: 3000 levels of indentation. */
	size_t levels = 3000, len = 0;
	s = malloc(levels * (levels + 4) + 1);
	for (size_t i = 0; i < levels; i++)
		len += (size_t)sprintf(s + len, "%*sa:\n", (int)i, "");
	expect_load_error(s, "3000 nested block mappings",
			  P "65:65: error: YAML nested too deeply (more than 64 levels)");
	free(s);

	/* 64 levels are fine for the parser (the schema then objects). */
	s = malloc(200);
	memset(s, '[', 63);
	strcpy(s + 63, "1");
	memset(s + 64, ']', 63);
	s[127] = '\0';
	expect_load_error(s, "63 nested lists",
			  P "1:1: error: app description must be a mapping, not a list");
	free(s);

	/* Over 16 MiB of text. */
	size_t big = BTC_YAML_MAX_BYTES + 1;
	s = malloc(big + 1);
	memset(s, '#', big);
	s[big] = '\0';
	expect_load_error(s, "17 MiB", APP_PATH ": error: file too large (more than 16777216 bytes)");
	free(s);

	/* Anchors and aliases still work; an alias can never refer to its own
	 * enclosing node. */
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_app_load(APP_PATH,
		"app: demo\nbuffers:\n  - {name: a, type: &t f32, count: 4}\n"
		"  - {name: b, type: *t, count: 4}\nstages:\n  - {name: s, cpu: f}\n",
		NULL, 0, &d);
	CU_ASSERT_PTR_NOT_NULL(app);
	if (app)
		CU_ASSERT_EQUAL(app->buffers[1].elem, BTC_F32);
	btc_app_free(app);
	expect_load_error("app: demo\nbuffers: &b [*b]\nstages: []\n", "self alias",
			  P "2:14: error: YAML: undefined alias 'b'");

	/* 16 MiB of one-character list items: 8 million nodes would take a
	 * gigabyte of libyaml nodes. */
	size_t items = 8 * 1024 * 1024 - 16;
	s = malloc(2 * items + 32);
	p = stpcpy(s, "app: demo\nx: [");
	for (size_t i = 0; i < items; i++) {
		*p++ = '1';
		*p++ = ',';
	}
	strcpy(p, "1]\n");
	/* (a million nodes parsed and freed: allow for a loaded machine) */
	expect_load_error_within(s, "8 million nodes",
				 P "2:2097147: error: YAML: too many nodes (at most 1048576)", 5.0);
	free(s);

	/* Anchors are bounded too (aliases are looked up linearly). */
	size_t cap = 64 * 2000 + 64;
	s = malloc(cap);
	len = (size_t)sprintf(s, "app: demo\nx: [");
	for (int i = 0; i < 2000; i++)
		len += (size_t)sprintf(s + len, "&a%d 1, ", i);
	strcpy(s + len, "]\n");
	expect_load_error(s, "2000 anchors", P "2:9135: error: YAML: too many anchors (at most 1024)");
	free(s);
}

/* The prefix rule (front/names.c): what the generated files and the
 * runtime define is rejected by its prefix; names the pipeline program's
 * skeleton used before it moved into btrt (btrt_program_main) are free. */
static void test_name_prefix_rule(void)
{
	static const char *const clash[] = { "btrt_program_main", "BTRT_E_CHECK", "app_program",
					     "pipeline_schedules", "PIPELINE_APP", "N_SCHEDULES",
					     "profiler_pus", "stage3_cpu", "schedule0_pus",
					     "pu_big_cores", "main", "NULL" };
	static const char *const free_now[] = { "usage", "parse_options", "write_report",
						"catch_signals", "adapt_run", "bind_task" };
	for (size_t i = 0; i < sizeof clash / sizeof clash[0]; i++)
		CU_ASSERT_PTR_NOT_NULL(btc_name_problem(clash[i], BTC_NAME_C));
	for (size_t i = 0; i < sizeof free_now / sizeof free_now[0]; i++)
		CU_ASSERT_PTR_NULL(btc_name_problem(free_now[i], BTC_NAME_C));
}

int register_app_suite(void)
{
	CU_pSuite s = CU_add_suite("app", NULL, NULL);
	return !s || !CU_add_test(s, "good app", test_good) ||
	       !CU_add_test(s, "bad apps", test_bad) ||
	       !CU_add_test(s, "scratch buffer", test_scratch) ||
	       !CU_add_test(s, "all errors reported", test_all_errors_reported) ||
	       !CU_add_test(s, "all bad names reported", test_all_bad_names_reported) ||
	       !CU_add_test(s, "unknown override", test_unknown_override) ||
	       !CU_add_test(s, "missing file", test_missing_file) ||
	       !CU_add_test(s, "YAML limits", test_yaml_limits) ||
	       !CU_add_test(s, "name prefix rule", test_name_prefix_rule);
}
