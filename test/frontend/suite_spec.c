/* --chunks specs with farms and core counts (issue 16): what parses, how
 * btc_plan_schedule_label prints it back (the same notation), and every
 * refused spec with its exact message. Also the device's `pinnable` list. */
#include <stdlib.h>
#include <string.h>

#include "front/app.h"
#include "front/device.h"
#include "sched/plan.h"
#include "suites.h"

#define APP_PATH FRONTEND_DATA_DIR "/demo.yaml"

/* Four stages: a, b, c with cpu, cuda and vulkan kernels, d with cpu only. */
static const char app_text[] =
	"app: demo\nparams:\n  n: 1000\n"
	"buffers:\n"
	"  - {name: x, type: f32, count: n}\n"
	"stages:\n"
	"  - {name: a, cpu: demo_a_cpu, cuda: demo_a_cuda, vulkan: [{shader: noop.comp, groups: [1]}]}\n"
	"  - {name: b, cpu: demo_b_cpu, cuda: demo_b_cuda, vulkan: [{shader: noop.comp, groups: [1]}]}\n"
	"  - {name: c, cpu: demo_c_cpu, cuda: demo_c_cuda, vulkan: [{shader: noop.comp, groups: [1]}]}\n"
	"  - {name: d, cpu: demo_d_cpu}\n"
	"io: demo_io\n";

/* little: 4 cores, all pinnable; big: 4 cores of which 3 pinnable. */
static const char dev_text[] =
	"device: board\nos: linux\narch: aarch64\n"
	"pus:\n"
	"  - {name: little, kind: cpu, cores: [0, 1, 2, 3]}\n"
	"  - {name: big, kind: cpu, cores: [4, 5, 6, 7], pinnable: [7, 5, 6]}\n"
	"  - {name: gpu, kind: vulkan}\n"
	"  - {name: cu, kind: cuda}\n";

static struct btc_app *app;
static struct btc_device *dev;

static int init(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	app = btc_app_load(APP_PATH, app_text, NULL, 0, &d);
	dev = btc_device_load("board.yaml", NULL, dev_text, &d);
	return app && dev ? 0 : -1;
}

static int cleanup(void)
{
	btc_app_free(app);
	btc_device_free(dev);
	return 0;
}

/* Parses spec; its label must be `label`. */
static void good(const char *spec, const char *label)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_schedule s;
	bool ok = btc_plan_parse_spec(spec, app, dev, &s, &d);
	CU_ASSERT_TRUE(ok);
	if (!ok)
		return;
	char *l = btc_plan_schedule_label(&s, dev);
	if (strcmp(l, label))
		fprintf(stderr, "\n  %s: label '%s', expected '%s'\n", spec, l, label);
	CU_ASSERT_STRING_EQUAL(l, label);
	/* The label, commas for blanks, parses back to the same schedule. */
	for (char *q = l; *q; q++)
		*q = *q == ' ' ? ',' : *q;
	struct btc_schedule s2;
	CU_ASSERT_TRUE(btc_plan_parse_spec(l, app, dev, &s2, &d));
	CU_ASSERT_EQUAL(s2.n_chunks, s.n_chunks);
	for (int c = 0; c < s.n_chunks && c < s2.n_chunks; c++) {
		CU_ASSERT_EQUAL(s2.chunks[c].pu, s.chunks[c].pu);
		CU_ASSERT_EQUAL(s2.chunks[c].farm, s.chunks[c].farm);
		CU_ASSERT_EQUAL(s2.chunks[c].cores, s.chunks[c].cores);
		CU_ASSERT_EQUAL(s2.chunks[c].first_stage, s.chunks[c].first_stage);
		CU_ASSERT_EQUAL(s2.chunks[c].last_stage, s.chunks[c].last_stage);
	}
	free(l);
}

static void test_good_specs(void)
{
	good("little:0-1,gpu:2,big:3", "little:0-1 gpu:2 big:3");
	good("{little,gpu}:0-2,big:3", "{little,gpu}:0-2 big:3");
	good("{gpu,big}:0-2,little:3", "{big,gpu}:0-2 little:3");
	good("little[2]:0-1,little[2]:2-3", "little[2]:0-1 little[2]:2-3");
	good("big[2]:0,gpu:1-2,big[1]:3", "big[2]:0 gpu:1-2 big[1]:3");
	good("little[4]:0-3", "little:0-3"); /* all of its cores */
	good("{little,big}:0-3", "{little,big}:0-3");
	good("little[3]:0,{big,gpu}:1-2,little[1]:3", "little[3]:0 {big,gpu}:1-2 little[1]:3");
}

static void test_fields(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_schedule s;
	CU_ASSERT_TRUE_FATAL(btc_plan_parse_spec("{gpu,big}:0-2,little[3]:3", app, dev, &s, &d));
	CU_ASSERT_EQUAL(s.n_chunks, 2);
	CU_ASSERT_EQUAL(s.chunks[0].farm, (1u << 1) | (1u << 2));
	CU_ASSERT_EQUAL(s.chunks[0].pu, 1); /* the lowest member */
	CU_ASSERT_EQUAL(s.chunks[0].cores, 0);
	CU_ASSERT_EQUAL(s.chunks[1].farm, 0);
	CU_ASSERT_EQUAL(s.chunks[1].pu, 0);
	CU_ASSERT_EQUAL(s.chunks[1].cores, 3);
}

#define S "error: --chunks '"
static const struct bad_case bad[] = {
	{"core count over the PU", "little[5]:0-3",
	 S "little[5]:0-3': 'little[5]': PU 'little' has 4 cores (1..4)"},
	{"zero cores", "little[0]:0-3", S "little[0]:0-3': 'little[0]': PU 'little' has 4 cores (1..4)"},
	{"bad core count", "little[x]:0-3", S "little[x]:0-3': bad core count '[x]' (PU[CORES])"},
	{"unclosed core count", "little[2:0-3", S "little[2:0-3': bad core count '[2' (PU[CORES])"},
	/* issue 26: 32-bit wrap read these as little[1] and stages 0-2 */
	{"core count past 2^32", "little[4294967297]:0-3",
	 S "little[4294967297]:0-3': core count '[4294967297]' is out of range"},
	{"stage past 2^32", "little:0-4294967298",
	 S "little:0-4294967298': bad stage range '0-4294967298' (FIRST-LAST or STAGE, decimal)"},
	{"stage in hexadecimal", "little:0-0x3",
	 S "little:0-0x3': bad stage range '0-0x3' (FIRST-LAST or STAGE, decimal)"},
	{"signed core count", "little[+2]:0-3", S "little[+2]:0-3': bad core count '[+2]' (PU[CORES])"},
	{"core count of a GPU", "gpu[1]:0-2,big:3",
	 S "gpu[1]:0-2,big:3': 'gpu[1]': a core count applies to CPU PUs only ('gpu' is vulkan)"},
	{"a whole PU and a core", "little[4]:0-1,little[1]:2-3",
	 S "little[4]:0-1,little[1]:2-3': the chunks on PU 'little' ask for 5 cores; it has 4"},
	{"cores sum over the PU", "little[2]:0-1,little[3]:2-3",
	 S "little[2]:0-1,little[3]:2-3': the chunks on PU 'little' ask for 5 cores; it has 4"},
	{"more than the pinnable cores", "big[2]:0-1,big[2]:2-3",
	 S "big[2]:0-1,big[2]:2-3': the chunks on PU 'big' need 4 pinnable cores; it has 3 (board's `pinnable`)"},
	{"all cores but only 3 pinnable", "big[3]:0-1,big[1]:2-3",
	 S "big[3]:0-1,big[1]:2-3': the chunks on PU 'big' need 4 pinnable cores; it has 3 (board's `pinnable`)"},
	{"duplicate PU without core counts", "little:0-1,little:2-3",
	 S "little:0-1,little:2-3': PU 'little' runs two chunks (split its cores: little[K]:..., little[K]:...)"},
	{"whole PU and a split", "little:0-1,little[2]:2-3",
	 S "little:0-1,little[2]:2-3': PU 'little' runs two chunks (split its cores: little[K]:..., little[K]:...)"},
	{"farm member without kernels", "{little,gpu}:0-3",
	 S "{little,gpu}:0-3': stage 3 'd' has no vulkan kernel for farm member PU 'gpu'"},
	{"farm of one", "{little}:0-3",
	 S "{little}:0-3': a farm {...} needs at least two PUs (one PU is PU:FIRST-LAST)"},
	{"farm member twice", "{little,little}:0-3", S "{little,little}:0-3': PU 'little' is twice in one farm"},
	{"farm member with a core count", "{little[2],big}:0-3",
	 S "{little[2],big}:0-3': farm member 'little[2]': a farm's PUs take all their cores"},
	{"farm member elsewhere", "{little,gpu}:0-2,little[1]:3",
	 S "{little,gpu}:0-2,little[1]:3': PU 'little' is a farm member and runs another chunk"},
	{"unclosed farm", "{little,gpu:0-2,big:3", S "{little,gpu:0-2,big:3': farm '{little,gpu:0-2,big' must be {PU,PU,...}"},
	{"unknown farm member", "{little,npu}:0-3", S "{little,npu}:0-3': device 'board' has no PU 'npu'"},
	{"farm out of order", "{little,big}:1-3", S "{little,big}:1-3': chunk {...}:1-3 must start at stage 0 and end by stage 3"},
	{"stages left", "{little,big}:0-2", S "{little,big}:0-2': stages 3..3 are not scheduled"},
	{"no range", "little", S "little': 'little' is not PU:FIRST-LAST"},
	{"two GPU APIs in a farm", "{gpu,cu}:0-2,little:3",
	 S "{gpu,cu}:0-2,little:3': PUs 'cu' (cuda) and 'gpu' (vulkan): a pipeline uses one GPU API"},
};

static void test_bad_specs(void)
{
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct btc_diag d;
		btc_diag_init(&d, NULL);
		struct btc_schedule s;
		CU_ASSERT_FALSE(btc_plan_parse_spec(bad[i].text, app, dev, &s, &d));
		assert_first_error(&d, bad[i].name, bad[i].expect);
	}
}

static void test_pinnable(void)
{
	const int *pin;
	CU_ASSERT_EQUAL(btc_pu_pinnable(&dev->pus[0], &pin), 4);
	CU_ASSERT_EQUAL(pin[0], 0);
	CU_ASSERT_EQUAL(btc_pu_pinnable(&dev->pus[1], &pin), 3);
	CU_ASSERT_EQUAL(pin[0], 7); /* in the order listed */
	CU_ASSERT_EQUAL(pin[2], 6);
	static const struct bad_case bad_dev[] = {
		{"not a core", "device: x\nos: linux\narch: x86_64\npus:\n  - {name: c, kind: cpu, cores: [0, 1], pinnable: [2]}\n",
		 "x.yaml:5:52: error: pinnable core 2 is not one of PU 'c''s cores"},
		{"twice", "device: x\nos: linux\narch: x86_64\npus:\n  - {name: c, kind: cpu, cores: [0, 1], pinnable: [1, 1]}\n",
		 "x.yaml:5:55: error: pinnable core 1 listed twice"},
		{"empty", "device: x\nos: linux\narch: x86_64\npus:\n  - {name: c, kind: cpu, cores: [0, 1], pinnable: []}\n",
		 "x.yaml:5:51: error: PU 'c': pinnable lists no core (a CPU PU needs one to run on)"},
		{"gpu", "device: x\nos: linux\narch: x86_64\npus:\n  - {name: g, kind: vulkan, pinnable: [0]}\n",
		 "x.yaml:5:39: error: pinnable is only for CPU PUs"},
	};
	for (size_t i = 0; i < sizeof bad_dev / sizeof bad_dev[0]; i++) {
		struct btc_diag d;
		btc_diag_init(&d, NULL);
		struct btc_device *x = btc_device_load("x.yaml", NULL, bad_dev[i].text, &d);
		CU_ASSERT_PTR_NULL(x);
		btc_device_free(x);
		assert_first_error(&d, bad_dev[i].name, bad_dev[i].expect);
	}
	/* --cpu-groups: each group keeps its share of the pinnable cores. */
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_device *x = btc_device_load("board.yaml", NULL, dev_text, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_TRUE(btc_device_split_cpus(x, 2, &d));
	CU_ASSERT_STRING_EQUAL(x->pus[2].name, "big0"); /* cores 4, 5 */
	CU_ASSERT_EQUAL(btc_pu_pinnable(&x->pus[2], &pin), 1);
	CU_ASSERT_EQUAL(pin[0], 5);
	CU_ASSERT_EQUAL(btc_pu_pinnable(&x->pus[3], &pin), 2); /* cores 6, 7 */
	CU_ASSERT_EQUAL(pin[0], 7);
	CU_ASSERT_EQUAL(btc_pu_pinnable(&x->pus[0], &pin), 2); /* little0: all */
	/* Written back and read again. */
	char buf[2048];
	FILE *f = fmemopen(buf, sizeof buf, "w");
	btc_device_write_yaml(x, f);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "pinnable: [5]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "pinnable: [7, 6]"));
	struct btc_device *y = btc_device_load("y.yaml", NULL, buf, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(y);
	CU_ASSERT_EQUAL(btc_pu_pinnable(&y->pus[3], &pin), 2);
	btc_device_free(y);
	btc_device_free(x);
}

int register_spec_suite(void)
{
	CU_pSuite s = CU_add_suite("spec", init, cleanup);
	if (!s || !CU_add_test(s, "farms and core counts parse and print back", test_good_specs) ||
	    !CU_add_test(s, "farm and core fields", test_fields) ||
	    !CU_add_test(s, "refused specs", test_bad_specs) ||
	    !CU_add_test(s, "pinnable cores", test_pinnable))
		return -1;
	return 0;
}
