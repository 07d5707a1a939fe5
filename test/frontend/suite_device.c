#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/device.h"
#include "suites.h"

#define DEV_PATH "dev.yaml"
#define P DEV_PATH ":"
#define HEAD "device: testdev\nos: linux\narch: aarch64\n"

static const char good_dev[] =
	"device: testdev\n"
	"description: a test board\n"
	"os: linux\n"
	"arch: aarch64\n"
	"cross_file: cross/aarch64-linux-gnu.txt\n"
	"pus:\n"
	"  - {name: little, kind: cpu, cores: [0, 1, 2, 3], core_type: Cortex-A55, max_freq_mhz: 1800}\n"
	"  - {name: big, kind: cpu, cores: [4, 5], max_freq_mhz: 2800}\n"
	"  - {name: gpu, kind: vulkan, gpu: \"Mali: G710\", subgroup_size: 16, unified_memory: true}\n";

static void test_good(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_device *dev = btc_device_load(DEV_PATH, NULL, good_dev, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	CU_ASSERT_EQUAL(dev->n_pus, 3);
	CU_ASSERT_EQUAL(dev->pus[0].n_cores, 4);
	CU_ASSERT_EQUAL(dev->pus[2].kind, BTC_BACKEND_VULKAN);
	CU_ASSERT_TRUE(dev->pus[2].unified_memory);
	CU_ASSERT_EQUAL(btc_device_pu_index(dev, "big"), 1);

	/* Round trip: what we write reads back to the same model. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	btc_device_write_yaml(dev, f);
	fclose(f);
	struct btc_device *again = btc_device_load(DEV_PATH, NULL, text, &d);
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(again);
	CU_ASSERT_EQUAL(again->n_pus, 3);
	CU_ASSERT_STRING_EQUAL(again->pus[2].gpu_name, "Mali: G710");
	CU_ASSERT_STRING_EQUAL(again->cross_file, "cross/aarch64-linux-gnu.txt");
	free(text);
	btc_device_free(again);

	/* Splitting homogeneous cores into CPU groups. */
	CU_ASSERT_TRUE(btc_device_split_cpus(dev, 2, &d));
	CU_ASSERT_EQUAL(dev->n_pus, 5);
	CU_ASSERT_STRING_EQUAL(dev->pus[0].name, "little0");
	CU_ASSERT_STRING_EQUAL(dev->pus[1].name, "little1");
	CU_ASSERT_EQUAL(dev->pus[1].cores[0], 2);
	CU_ASSERT_STRING_EQUAL(dev->pus[3].name, "big1");
	CU_ASSERT_EQUAL(dev->pus[3].cores[0], 5);
	CU_ASSERT_STRING_EQUAL(dev->pus[4].name, "gpu");
	btc_device_free(dev);
}

static void test_library(void)
{
	static const char *const names[] = {"pixel7a", "oneplus11", "jetson-orin-nano",
					    "jetson-orin-nano-lp"};
	for (size_t i = 0; i < 4; i++) {
		struct btc_diag d;
		btc_diag_init(&d, stderr);
		struct btc_device *dev = btc_device_load(names[i], DEVICE_DIR, NULL, &d);
		CU_ASSERT_PTR_NOT_NULL(dev);
		CU_ASSERT_EQUAL(d.errors, 0);
		if (dev)
			CU_ASSERT(dev->n_pus >= 2);
		btc_device_free(dev);
	}
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_PTR_NULL(btc_device_load("pixel8", DEVICE_DIR, NULL, &d));
	assert_first_error(&d, "unknown device",
			   "error: unknown device 'pixel8' (no " DEVICE_DIR
			   "/pixel8.yaml; `btc devices` lists the known ones)");
}

static void test_host(void)
{
	/* A fake sysfs with two clusters told apart by cpu_capacity. */
	char root[] = "/tmp/btc-sysfs-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdir -p devices/system/cpu && echo 0-3 > devices/system/cpu/online && "
		 "for c in 0 1 2 3; do mkdir -p devices/system/cpu/cpu$c/cpufreq; done && "
		 "echo 400 > devices/system/cpu/cpu0/cpu_capacity && echo 400 > devices/system/cpu/cpu1/cpu_capacity && "
		 "echo 1024 > devices/system/cpu/cpu2/cpu_capacity && echo 1024 > devices/system/cpu/cpu3/cpu_capacity && "
		 "echo 2850000 > devices/system/cpu/cpu3/cpufreq/cpuinfo_max_freq",
		 root);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	setenv("BTC_NO_VULKAN", "1", 1);
	setenv("BTC_NO_CUDA", "1", 1);
	struct btc_device *dev = btc_device_detect_host(root);
	unsetenv("BTC_NO_VULKAN");
	unsetenv("BTC_NO_CUDA");
	CU_ASSERT_EQUAL(dev->n_pus, 2);
	CU_ASSERT_STRING_EQUAL(dev->pus[0].name, "little");
	CU_ASSERT_EQUAL(dev->pus[0].n_cores, 2);
	CU_ASSERT_STRING_EQUAL(dev->pus[1].name, "big");
	CU_ASSERT_EQUAL(dev->pus[1].cores[1], 3);
	CU_ASSERT_EQUAL(dev->pus[1].max_freq_mhz, 2850);

	/* What `btc device host` prints, `--device` accepts back. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	btc_device_write_yaml(dev, f);
	fclose(f);
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_device *again = btc_device_load("host.yaml", NULL, text, &d);
	CU_ASSERT_PTR_NOT_NULL(again);
	btc_device_free(again);
	free(text);
	btc_device_free(dev);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CU_ASSERT_EQUAL(system(cmd), 0);

	/* The real machine: at least one CPU PU, and it round-trips too. */
	dev = btc_device_detect_host("/sys");
	CU_ASSERT(dev->n_pus >= 1);
	CU_ASSERT_EQUAL(dev->pus[0].kind, BTC_BACKEND_CPU);
	CU_ASSERT(dev->pus[0].n_cores >= 1);
	btc_device_free(dev);
}

static const struct bad_case bad[] = {
	{"missing pus", HEAD, P "1:1: error: device description is missing required key 'pus'"},
	{"pus empty", HEAD "pus: []\n", P "4:6: error: a device needs at least one PU"},
	{"cpu without cores", HEAD "pus:\n  - {name: little, kind: cpu}\n",
	 P "5:5: error: CPU PU 'little' has no cores"},
	{"unknown kind", HEAD "pus:\n  - {name: npu, kind: hexagon}\n",
	 P "5:23: error: unknown PU kind 'hexagon' (expected cpu, cuda or vulkan)"},
	{"duplicate PU", HEAD "pus:\n  - {name: a, kind: cpu, cores: [0]}\n  - {name: a, kind: cpu, cores: [1]}\n",
	 P "6:12: error: duplicate PU 'a'"},
	{"core overlap", HEAD "pus:\n  - {name: a, kind: cpu, cores: [0, 1]}\n  - {name: b, kind: cpu, cores: [1, 2]}\n",
	 P "6:5: error: core 1 belongs to both PU 'a' and PU 'b'"},
	{"core twice", HEAD "pus:\n  - {name: a, kind: cpu, cores: [0, 0]}\n",
	 P "5:37: error: core 0 listed twice"},
	{"negative core", HEAD "pus:\n  - {name: a, kind: cpu, cores: [-1]}\n",
	 P "5:34: error: core id must be between 0 and 1023, not -1"},
	{"unknown os", "device: x\nos: windows\narch: aarch64\npus:\n  - {name: a, kind: cpu, cores: [0]}\n",
	 P "2:5: error: unknown os 'windows' (expected linux or android)"},
	{"unknown arch", "device: x\nos: linux\narch: riscv64\npus:\n  - {name: a, kind: cpu, cores: [0]}\n",
	 P "3:7: error: unknown arch 'riscv64' (expected x86_64 or aarch64)"},
	{"cpu with gpu keys", HEAD "pus:\n  - {name: a, kind: cpu, cores: [0], subgroup_size: 16}\n",
	 P "5:5: error: CPU PU 'a' cannot have GPU keys (gpu, select, subgroup_size, unified_memory, cpu_backed)"},
	{"bad bool", HEAD "pus:\n  - {name: g, kind: cuda, unified_memory: maybe}\n",
	 P "5:43: error: unified_memory must be true or false, not 'maybe'"},
	{"cpu groups too many", HEAD "cpu_groups: 3\npus:\n  - {name: a, kind: cpu, cores: [0, 1]}\n",
	 DEV_PATH ": error: cannot split CPU PUs into 3 groups: no CPU PU has 3 cores"},
	{"signed cpu groups", HEAD "cpu_groups: +2\npus:\n  - {name: a, kind: cpu, cores: [0, 1]}\n",
	 P "4:13: error: cpu_groups must be an integer, not '+2'"},
	{"signed compute capability", HEAD "pus:\n  - {name: g, kind: cuda, compute_capability: \"8.+7\"}\n",
	 P "5:47: error: compute_capability must look like 8.7, not '8.+7'"},
	{"unknown PU key", HEAD "pus:\n  - {name: a, kind: cpu, cores: [0], freq: 3}\n",
	 P "5:38: error: unknown key 'freq' in PU"},
	/* Device names become directory and file names; PU names C names. */
	{"code injection", "device: 'x\" + 0 * system(\"touch /tmp/PWNED\") + 0 * sizeof \"'\nos: linux\narch: aarch64\n"
	 "pus:\n  - {name: a, kind: cpu, cores: [0]}\n",
	 P "1:9: error: device name 'x\" + 0 * system(\"touch /tmp/PWNED\") + 0 * sizeof \"' may only hold letters, digits, '_', '.' and '-'"},
	{"path traversal", "device: ../../../../victim\nos: linux\narch: aarch64\npus:\n  - {name: a, kind: cpu, cores: [0]}\n",
	 P "1:9: error: device name '../../../../victim' must start with a letter or a digit"},
	{"dot dot", "device: a..b\nos: linux\narch: aarch64\npus:\n  - {name: a, kind: cpu, cores: [0]}\n",
	 P "1:9: error: device name 'a..b' must not contain '..'"},
	{"slash", "device: a/b\nos: linux\narch: aarch64\npus:\n  - {name: a, kind: cpu, cores: [0]}\n",
	 P "1:9: error: device name 'a/b' may only hold letters, digits, '_', '.' and '-'"},
	{"PU keyword", HEAD "pus:\n  - {name: int, kind: cpu, cores: [0]}\n",
	 P "5:12: error: PU name 'int' is a C keyword"},
	{"PU with dash", HEAD "pus:\n  - {name: big-core, kind: cpu, cores: [0]}\n",
	 P "5:12: error: PU name 'big-core' is not a C identifier"},
	{"split name clash", HEAD "cpu_groups: 2\npus:\n  - {name: a, kind: cpu, cores: [0, 1]}\n  - {name: a1, kind: cuda}\n",
	 DEV_PATH ": error: splitting CPU PUs into 2 groups makes two PUs named 'a1'"},
};

/* Every bad name is reported; names from the command line too. */
static void test_bad_names(void)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_PTR_NULL(btc_device_load(DEV_PATH, NULL,
		"device: 'a b'\nos: linux\narch: aarch64\npus:\n"
		"  - {name: return, kind: cpu, cores: [0]}\n  - {name: __g, kind: cuda}\n", &d));
	CU_ASSERT_EQUAL(d.errors, 3);
	CU_ASSERT_STRING_EQUAL(d.last, P "6:12: error: PU name '__g' is reserved in C (a leading '__' or '_' and a capital)");
	btc_diag_init(&d, NULL);
	CU_ASSERT_PTR_NULL(btc_device_load("..", DEVICE_DIR, NULL, &d));
	assert_first_error(&d, "name '..'", "error: device name '..' must start with a letter or a digit");
}

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct btc_diag d;
		btc_diag_init(&d, NULL);
		struct btc_device *dev = btc_device_load(DEV_PATH, NULL, bad[i].text, &d);
		CU_ASSERT_PTR_NULL(dev);
		btc_device_free(dev);
		assert_first_error(&d, bad[i].name, bad[i].expect);
	}
}

/* A device file's errors are capped like an app's or a table's: 20
 * printed, then "FILE: ... and N more errors", every one counted
 * (issue 26; btc_diag_flush at the end of the device loader). */
static void test_error_cap(void)
{
	char text[4096];
	char *p = stpcpy(text, "device: capped\nos: linux\narch: x86_64\npus:\n");
	for (int i = 0; i < 30; i++)
		p = stpcpy(p, "  - {name: p, kind: cpu, cores: [0]}\n");
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	struct btc_diag d;
	btc_diag_init(&d, f);
	struct btc_device *dev = btc_device_load("capped.yaml", NULL, text, &d);
	fclose(f);
	CU_ASSERT_PTR_NULL(dev);
	CU_ASSERT_EQUAL(d.errors, 29); /* every PU after the first: a duplicate */
	int lines = 0;
	for (const char *q = out; *q; q++)
		lines += *q == '\n';
	CU_ASSERT_EQUAL(lines, BTC_DIAG_MAX_PER_FILE + 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "capped.yaml: ... and 9 more errors\n"));
	free(out);
}

int register_device_suite(void)
{
	CU_pSuite s = CU_add_suite("device", NULL, NULL);
	return !s || !CU_add_test(s, "good device", test_good) ||
	       !CU_add_test(s, "error cap", test_error_cap) ||
	       !CU_add_test(s, "device library", test_library) ||
	       !CU_add_test(s, "host detection", test_host) ||
	       !CU_add_test(s, "bad devices", test_bad) ||
	       !CU_add_test(s, "bad names", test_bad_names);
}
