/* Detection of the machine btc runs on (`--device host`). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "front/device.h"

#if __has_include(<vulkan/vulkan.h>)
#include <vulkan/vulkan.h>
#define HAVE_VULKAN_HEADERS 1
#endif

/* Reads one integer from a sysfs-style file; returns -1 when absent. */
static long read_long(const char *root, const char *fmt, int cpu)
{
	char path[512], rel[256];
	snprintf(rel, sizeof(rel), fmt, cpu);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long v = -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Parses a cpulist ("0-3,6") into ids; returns the count. */
static int parse_cpulist(const char *s, int *ids, int max)
{
	int n = 0;
	while (*s && n < max) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s)
			break;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		for (long c = a; c <= b && n < max; c++)
			ids[n++] = (int)c;
		if (*s == ',')
			s++;
		else
			break;
	}
	return n;
}

static int online_cpus(const char *root, int *ids, int max)
{
	char path[512], buf[1024];
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", root);
	FILE *f = fopen(path, "r");
	if (f) {
		int n = 0;
		if (fgets(buf, sizeof(buf), f))
			n = parse_cpulist(buf, ids, max);
		fclose(f);
		if (n > 0)
			return n;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	for (int i = 0; i < n && i < max; i++)
		ids[i] = i;
	return n < max ? (int)n : max;
}

static char *cpu_model_name(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return NULL;
	char line[512];
	char *name = NULL;
	while (!name && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		char *p = strchr(line, ':');
		if (!p)
			continue;
		p++;
		while (*p == ' ')
			p++;
		p[strcspn(p, "\n")] = '\0';
		name = btc_xstrdup(p);
	}
	fclose(f);
	return name;
}

static void detect_cpus(struct btc_device *dev, const char *root)
{
	int ids[1024];
	long key[1024];
	int n = online_cpus(root, ids, 1024);
	long freq_khz[1024];
	bool have_capacity = true;
	for (int i = 0; i < n; i++) {
		key[i] = read_long(root, "devices/system/cpu/cpu%d/cpu_capacity", ids[i]);
		freq_khz[i] = read_long(root, "devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq",
					ids[i]);
		have_capacity &= key[i] >= 0;
	}
	if (!have_capacity)
		for (int i = 0; i < n; i++)
			key[i] = freq_khz[i];
	/* Distinct keys in ascending order: one cluster each. */
	long keys[16];
	int n_keys = 0;
	for (int i = 0; i < n; i++) {
		int k;
		for (k = 0; k < n_keys && keys[k] != key[i]; k++)
			;
		if (k == n_keys && n_keys < 16)
			keys[n_keys++] = key[i];
	}
	for (int a = 0; a < n_keys; a++)
		for (int b = a + 1; b < n_keys; b++)
			if (keys[b] < keys[a]) {
				long t = keys[a];
				keys[a] = keys[b];
				keys[b] = t;
			}
	static const char *const names2[] = {"little", "big"};
	static const char *const names3[] = {"little", "medium", "big"};
	char *model = cpu_model_name();
	for (int k = 0; k < n_keys && dev->n_pus < BTC_MAX_PUS - 4; k++) {
		struct btc_pu *pu = &dev->pus[dev->n_pus++];
		if (n_keys == 1)
			pu->name = btc_xstrdup("cpu");
		else if (n_keys == 2)
			pu->name = btc_xstrdup(names2[k]);
		else if (n_keys == 3)
			pu->name = btc_xstrdup(names3[k]);
		else
			pu->name = btc_xasprintf("cpu%d", k);
		pu->kind = BTC_BACKEND_CPU;
		pu->cores = btc_xcalloc((size_t)n, sizeof(int));
		long max_khz = 0;
		for (int i = 0; i < n; i++)
			if (key[i] == keys[k]) {
				pu->cores[pu->n_cores++] = ids[i];
				if (freq_khz[i] > max_khz)
					max_khz = freq_khz[i];
			}
		pu->max_freq_mhz = (int)(max_khz / 1000);
		pu->core_type = model && n_keys == 1 ? btc_xstrdup(model) : NULL;
	}
	free(model);
}

#ifdef HAVE_VULKAN_HEADERS
static void detect_vulkan(struct btc_device *dev)
{
	void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return;
	PFN_vkGetInstanceProcAddr gipa;
	*(void **)&gipa = dlsym(lib, "vkGetInstanceProcAddr");
	if (!gipa)
		goto out;
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
	if (!create)
		goto out;
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
				 .pApplicationName = "btc",
				 .apiVersion = VK_API_VERSION_1_1};
	VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
				   .pApplicationInfo = &app};
	VkInstance inst;
	if (create(&ci, NULL, &inst) != VK_SUCCESS)
		goto out;
	PFN_vkEnumeratePhysicalDevices enumerate = (PFN_vkEnumeratePhysicalDevices)gipa(
		inst, "vkEnumeratePhysicalDevices");
	PFN_vkGetPhysicalDeviceProperties2 props2 = (PFN_vkGetPhysicalDeviceProperties2)gipa(
		inst, "vkGetPhysicalDeviceProperties2");
	PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)gipa(inst, "vkDestroyInstance");
	VkPhysicalDevice pds[8];
	uint32_t n = 8;
	if (enumerate && props2 && enumerate(inst, &n, pds) >= 0) {
		for (uint32_t i = 0; i < n && dev->n_pus < BTC_MAX_PUS - 2; i++) {
			VkPhysicalDeviceSubgroupProperties sg = {
				.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
			VkPhysicalDeviceProperties2 p = {
				.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
				.pNext = &sg};
			props2(pds[i], &p);
			struct btc_pu *pu = &dev->pus[dev->n_pus++];
			pu->name = n == 1 ? btc_xstrdup("vulkan") : btc_xasprintf("vulkan%u", i);
			pu->kind = BTC_BACKEND_VULKAN;
			pu->gpu_name = btc_xstrdup(p.properties.deviceName);
			pu->select = btc_xasprintf("%u", i);
			pu->subgroup_size = (int)sg.subgroupSize;
			pu->cpu_backed = p.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
			pu->unified_memory = pu->cpu_backed ||
					     p.properties.deviceType ==
						     VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
			pu->ref_column = btc_xstrdup("vulkan");
		}
	}
	if (destroy)
		destroy(inst, NULL);
out:
	dlclose(lib);
}
#endif

/* The few CUDA driver API entry points we need, declared here so that btc
 * neither includes nor links CUDA. */
typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_attr_fn)(int *, int, int);
enum {
	CU_ATTR_WARP_SIZE = 10,
	CU_ATTR_INTEGRATED = 18,
	CU_ATTR_CC_MAJOR = 75,
	CU_ATTR_CC_MINOR = 76
};

static void detect_cuda(struct btc_device *dev)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return;
	cu_init_fn init;
	cu_count_fn count;
	cu_get_fn get;
	cu_name_fn name;
	cu_attr_fn attr;
	*(void **)&init = dlsym(lib, "cuInit");
	*(void **)&count = dlsym(lib, "cuDeviceGetCount");
	*(void **)&get = dlsym(lib, "cuDeviceGet");
	*(void **)&name = dlsym(lib, "cuDeviceGetName");
	*(void **)&attr = dlsym(lib, "cuDeviceGetAttribute");
	int n = 0;
	if (init && count && get && name && attr && init(0) == 0 && count(&n) == 0) {
		for (int i = 0; i < n && dev->n_pus < BTC_MAX_PUS; i++) {
			int d, warp = 0, integrated = 0, major = 0, minor = 0;
			char buf[256] = "";
			if (get(&d, i) != 0)
				continue;
			name(buf, sizeof(buf), d);
			attr(&warp, CU_ATTR_WARP_SIZE, d);
			attr(&integrated, CU_ATTR_INTEGRATED, d);
			attr(&major, CU_ATTR_CC_MAJOR, d);
			attr(&minor, CU_ATTR_CC_MINOR, d);
			struct btc_pu *pu = &dev->pus[dev->n_pus++];
			pu->name = n == 1 ? btc_xstrdup("cuda") : btc_xasprintf("cuda%d", i);
			pu->kind = BTC_BACKEND_CUDA;
			pu->gpu_name = btc_xstrdup(buf);
			pu->select = btc_xasprintf("%d", i);
			pu->subgroup_size = warp;
			pu->unified_memory = integrated != 0;
			pu->cuda_arch = major * 10 + minor;
			pu->ref_column = btc_xstrdup("cuda");
		}
	}
	dlclose(lib);
}

struct btc_device *btc_device_detect_host(const char *sysfs_root)
{
	struct btc_device *dev = btc_xcalloc(1, sizeof(*dev));
	struct utsname u;
	dev->name = btc_xstrdup("host");
	dev->path = btc_xstrdup("host");
	dev->os = btc_xstrdup("linux");
	dev->arch = btc_xstrdup(uname(&u) == 0 && !strcmp(u.machine, "aarch64") ? "aarch64"
										: "x86_64");
	char host[256] = "this machine";
	gethostname(host, sizeof(host) - 1);
	dev->description = btc_xasprintf("detected on %s", host);
	detect_cpus(dev, sysfs_root);
#ifdef HAVE_VULKAN_HEADERS
	if (!getenv("BTC_NO_VULKAN"))
		detect_vulkan(dev);
#endif
	if (!getenv("BTC_NO_CUDA"))
		detect_cuda(dev);
	return dev;
}
