/* Vulkan backend, instance and device: the instance (validation layer),
 * the physical device's selection, the logical device, the compute
 * pipelines and the timestamp period. The buffers are in btrt_vk_pool.c,
 * the chunks' command buffers and fences in btrt_vk_chunk.c. */
#include "btrt_vk_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *btrt_vk_result_name(VkResult r)
{
	switch (r) {
#define C(x) case x: return #x;
	C(VK_SUCCESS) C(VK_NOT_READY) C(VK_TIMEOUT) C(VK_INCOMPLETE)
	C(VK_ERROR_OUT_OF_HOST_MEMORY) C(VK_ERROR_OUT_OF_DEVICE_MEMORY)
	C(VK_ERROR_INITIALIZATION_FAILED) C(VK_ERROR_DEVICE_LOST)
	C(VK_ERROR_MEMORY_MAP_FAILED) C(VK_ERROR_LAYER_NOT_PRESENT)
	C(VK_ERROR_EXTENSION_NOT_PRESENT) C(VK_ERROR_FEATURE_NOT_PRESENT)
	C(VK_ERROR_INCOMPATIBLE_DRIVER) C(VK_ERROR_TOO_MANY_OBJECTS)
	C(VK_ERROR_FORMAT_NOT_SUPPORTED) C(VK_ERROR_FRAGMENTED_POOL)
	C(VK_ERROR_OUT_OF_POOL_MEMORY) C(VK_ERROR_INVALID_SHADER_NV)
#undef C
	default: return "VkResult";
	}
}

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_cb(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
					     VkDebugUtilsMessageTypeFlagsEXT type,
					     const VkDebugUtilsMessengerCallbackDataEXT *d, void *user)
{
	struct btrt_vk_device *dev = user;
	if (sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
		atomic_fetch_add(&dev->val_errors, 1);
	if (sev & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT))
		fprintf(stderr, "btrt: vulkan validation: %s\n", d->pMessage);
	return VK_FALSE;
}

static int has_layer(const char *name)
{
	uint32_t n = 0;
	vkEnumerateInstanceLayerProperties(&n, NULL);
	VkLayerProperties *l = calloc(n + 1, sizeof *l);
	if (!l)
		return 0;
	vkEnumerateInstanceLayerProperties(&n, l);
	int found = 0;
	for (uint32_t i = 0; i < n; i++)
		found |= strcmp(l[i].layerName, name) == 0;
	free(l);
	return found;
}

static int has_inst_ext(const char *name)
{
	uint32_t n = 0;
	vkEnumerateInstanceExtensionProperties(NULL, &n, NULL);
	VkExtensionProperties *e = calloc(n + 1, sizeof *e);
	if (!e)
		return 0;
	vkEnumerateInstanceExtensionProperties(NULL, &n, e);
	int found = 0;
	for (uint32_t i = 0; i < n; i++)
		found |= strcmp(e[i].extensionName, name) == 0;
	free(e);
	return found;
}

static VkResult make_instance(int validation, VkInstance *inst, int *debug)
{
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "btrt",
		.pEngineName = "btrt",
		.apiVersion = VK_API_VERSION_1_1,
	};
	const char *layers[1], *exts[1];
	uint32_t nl = 0, ne = 0;
	*debug = 0;
	if (validation) {
		if (has_layer("VK_LAYER_KHRONOS_validation"))
			layers[nl++] = "VK_LAYER_KHRONOS_validation";
		else
			fprintf(stderr, "btrt: BTRT_VK_VALIDATION set but VK_LAYER_KHRONOS_validation is not installed\n");
		if (has_inst_ext(VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
			exts[ne++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
			*debug = 1;
		}
	}
	VkInstanceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
		.enabledLayerCount = nl,
		.ppEnabledLayerNames = layers,
		.enabledExtensionCount = ne,
		.ppEnabledExtensionNames = exts,
	};
	return vkCreateInstance(&ci, NULL, inst);
}

static const char *type_name(VkPhysicalDeviceType t)
{
	switch (t) {
	case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
	case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
	case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
	case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
	default: return "other";
	}
}

static int type_rank(VkPhysicalDeviceType t)
{
	switch (t) {
	case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
	case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
	case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
	case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
	default: return 4;
	}
}

static int ci_contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return 1;
	}
	return n == 0;
}

static int compute_family(VkPhysicalDevice pd, uint32_t *fam, uint32_t *ts_bits, uint32_t *count)
{
	uint32_t n = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
	VkQueueFamilyProperties *q = calloc(n + 1, sizeof *q);
	if (!q)
		return -1;
	vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
	int found = -1;
	for (uint32_t i = 0; i < n && found < 0; i++)
		if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
			*fam = i;
			*ts_bits = q[i].timestampValidBits;
			if (count)
				*count = q[i].queueCount;
			found = 0;
		}
	free(q);
	return found;
}

int btrt_vk_list_devices(FILE *out)
{
	VkInstance inst;
	int dbg;
	if (make_instance(0, &inst, &dbg) != VK_SUCCESS)
		return -1;
	uint32_t n = 0;
	vkEnumeratePhysicalDevices(inst, &n, NULL);
	VkPhysicalDevice *pd = calloc(n + 1, sizeof *pd);
	if (pd) {
		vkEnumeratePhysicalDevices(inst, &n, pd);
		for (uint32_t i = 0; i < n; i++) {
			VkPhysicalDeviceProperties p;
			vkGetPhysicalDeviceProperties(pd[i], &p);
			fprintf(out, "%u: %s (%s)\n", i, p.deviceName, type_name(p.deviceType));
		}
	}
	free(pd);
	vkDestroyInstance(inst, NULL);
	return (int)n;
}

static int select_device(struct btrt_vk *vk, const char *want, struct btrt_error *err)
{
	uint32_t n = 0;
	VkPhysicalDevice *pd = NULL;
	vkEnumeratePhysicalDevices(vk->inst, &n, NULL);
	if (n == 0)
		return btrt_error_set(err, BTRT_E_NODEV, 0, "no Vulkan physical device");
	pd = calloc(n, sizeof *pd);
	if (!pd)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	vkEnumeratePhysicalDevices(vk->inst, &n, pd);
	int best = -1, best_rank = 99;
	char *end = NULL;
	long idx = want && *want ? strtol(want, &end, 10) : -1;
	int by_index = want && *want && end && *end == '\0';
	for (uint32_t i = 0; i < n; i++) {
		VkPhysicalDeviceProperties p;
		uint32_t fam, bits;
		vkGetPhysicalDeviceProperties(pd[i], &p);
		if (compute_family(pd[i], &fam, &bits, NULL))
			continue;
		int ok = !want || !*want || (by_index ? (long)i == idx : ci_contains(p.deviceName, want));
		if (!ok)
			continue;
		int rank = type_rank(p.deviceType);
		if (rank < best_rank) {
			best = (int)i;
			best_rank = rank;
		}
	}
	if (best < 0) {
		free(pd);
		return btrt_error_set(err, BTRT_E_NODEV, 0,
			"no Vulkan device with a compute queue matches '%s' (%u devices)",
			want ? want : "", n);
	}
	vk->phys = pd[best];
	free(pd);
	return 0;
}

/* Drops one context's hold on d; the last one waits for the device to
 * go idle and destroys it (NULL allowed). */
static void device_release(struct btrt_vk_device *d)
{
	if (!d || atomic_fetch_sub(&d->refs, 1) != 1)
		return;
	if (d->dev) {
		vkDeviceWaitIdle(d->dev);
		vkDestroyDevice(d->dev, NULL);
	}
	if (d->msgr) {
		PFN_vkDestroyDebugUtilsMessengerEXT f = (PFN_vkDestroyDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(d->inst, "vkDestroyDebugUtilsMessengerEXT");
		if (f)
			f(d->inst, d->msgr, NULL);
	}
	if (d->inst)
		vkDestroyInstance(d->inst, NULL);
	for (uint32_t i = 0; i < d->n_queues; i++)
		pthread_mutex_destroy(&d->qmu[i]);
	free(d->qmu);
	free(d->queues);
	pthread_mutex_destroy(&d->mu);
	free(d);
}

/* A new instance and logical device for vk (vk->d, one hold), with
 * cfg->queues queues (at least 1, at most the compute family's). Returns
 * 0, or -1 with err (vk->d set, for btrt_vk_destroy). */
static int device_create(struct btrt_vk *vk, const struct btrt_vk_config *cfg, struct btrt_error *err)
{
	struct btrt_vk_device *d = calloc(1, sizeof *d);
	if (!d)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	pthread_mutex_init(&d->mu, NULL);
	atomic_init(&d->val_errors, 0);
	atomic_init(&d->refs, 1);
	vk->d = d;
	int validation = cfg->validation > 0;
	int debug = 0;
	VkResult r = make_instance(validation, &d->inst, &debug);
	if (r != VK_SUCCESS) {
		d->inst = VK_NULL_HANDLE;
		return btrt_error_set(err, r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED
				      ? BTRT_E_NODEV : BTRT_E_VULKAN, (int)r,
				      "vkCreateInstance: %s (%d)", btrt_vk_result_name(r), (int)r);
	}
	vk->inst = d->inst;
	if (debug) {
		PFN_vkCreateDebugUtilsMessengerEXT f = (PFN_vkCreateDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(d->inst, "vkCreateDebugUtilsMessengerEXT");
		VkDebugUtilsMessengerCreateInfoEXT mi = {
			.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
			.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
					   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
			.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
				       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
				       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
			.pfnUserCallback = debug_cb,
			.pUserData = d,
		};
		if (f)
			f(d->inst, &mi, NULL, &d->msgr);
	}
	if (select_device(vk, cfg->device, err))
		return -1;
	uint32_t ts_bits = 0, family_queues = 1;
	compute_family(vk->phys, &vk->qfam, &ts_bits, &family_queues);
	uint32_t nq = cfg->queues ? cfg->queues : 1;
	nq = nq < family_queues ? nq : family_queues ? family_queues : 1;
	float *prio = calloc(nq, sizeof *prio);
	VkQueue *queues = calloc(nq, sizeof *queues);
	pthread_mutex_t *qmu = calloc(nq, sizeof *qmu);
	if (!prio || !queues || !qmu) {
		free(prio);
		free(queues);
		free(qmu);
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	}
	for (uint32_t i = 0; i < nq; i++)
		prio[i] = 1.0f;
	VkDeviceQueueCreateInfo qi = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = vk->qfam,
		.queueCount = nq,
		.pQueuePriorities = prio,
	};
	VkDeviceCreateInfo di = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qi,
	};
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(vk->phys, &props);
	r = vkCreateDevice(vk->phys, &di, NULL, &d->dev);
	free(prio);
	if (r != VK_SUCCESS) {
		d->dev = VK_NULL_HANDLE;
		free(queues);
		free(qmu);
		return btrt_error_set(err, BTRT_E_VULKAN, (int)r, "vkCreateDevice(%.100s): %s (%d)",
				      props.deviceName, btrt_vk_result_name(r), (int)r);
	}
	for (uint32_t i = 0; i < nq; i++) {
		vkGetDeviceQueue(d->dev, vk->qfam, i, &queues[i]);
		pthread_mutex_init(&qmu[i], NULL);
	}
	d->queues = queues;
	d->qmu = qmu;
	d->n_queues = nq;
	return 0;
}

int btrt_vk_create(struct btrt_vk **out, const struct btrt_vk_config *cfg, struct btrt_error *err)
{
	*out = NULL;
	if (!cfg || (cfg->n_shaders && !cfg->shaders) || (unsigned)cfg->wait > BTRT_VK_WAIT_SPIN)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "btrt_vk_create: bad config");
	struct btrt_vk *vk = calloc(1, sizeof *vk);
	if (!vk)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	vk->n_buffers = cfg->n_buffers;
	vk->push_bytes = cfg->push_bytes ? cfg->push_bytes : 128;
	vk->force_noncoherent = cfg->force_noncoherent != 0;
	vk->wait_spin = cfg->wait == BTRT_VK_WAIT_SPIN;
	vk->host_private = cfg->host_private != 0;
	VkResult r;
	if (cfg->share) {
		/* the same GPU context: its instance, device and queues */
		const struct btrt_vk *sh = cfg->share;
		vk->d = sh->d;
		atomic_fetch_add(&vk->d->refs, 1);
		vk->inst = sh->inst;
		vk->phys = sh->phys;
		vk->qfam = sh->qfam;
	} else if (device_create(vk, cfg, err)) {
		goto fail;
	}
	struct btrt_vk_device *d = vk->d;
	vk->dev = d->dev;
	vkGetPhysicalDeviceProperties(vk->phys, &vk->props);
	vkGetPhysicalDeviceMemoryProperties(vk->phys, &vk->memp);
	uint32_t ts_bits = 0;
	compute_family(vk->phys, &vk->qfam, &ts_bits, NULL);
	vk->ts_ok = ts_bits > 0 && vk->props.limits.timestampPeriod > 0;
	vk->ts_period = vk->props.limits.timestampPeriod;
	vk->ts_mask = ts_bits >= 64 ? ~0ull : (1ull << ts_bits) - 1;
	/* share's queue (same_queue), else the queues in turn: a queue of its
	 * own while the device has one */
	if (cfg->share && cfg->same_queue) {
		vk->queue_index = cfg->share->queue_index;
	} else {
		pthread_mutex_lock(&d->mu);
		vk->queue_index = d->next++ % d->n_queues;
		pthread_mutex_unlock(&d->mu);
	}
	vk->queue = d->queues[vk->queue_index];
	vk->qmu = &d->qmu[vk->queue_index];

	/* One set layout for the whole app: binding b = buffer b. */
	VkDescriptorSetLayoutBinding *bind = calloc(vk->n_buffers + 1, sizeof *bind);
	if (!bind) {
		btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
		goto fail;
	}
	for (uint32_t b = 0; b < vk->n_buffers; b++)
		bind[b] = (VkDescriptorSetLayoutBinding){
			.binding = b,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.descriptorCount = 1,
			.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	VkDescriptorSetLayoutCreateInfo li = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = vk->n_buffers,
		.pBindings = bind,
	};
	r = vkCreateDescriptorSetLayout(vk->dev, &li, NULL, &vk->dsl);
	free(bind);
	VKCHECK(r, err, "vkCreateDescriptorSetLayout");
	VkPushConstantRange pr = {
		.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		.offset = 0,
		.size = vk->push_bytes,
	};
	VkPipelineLayoutCreateInfo pli = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &vk->dsl,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &pr,
	};
	VKCHECK(vkCreatePipelineLayout(vk->dev, &pli, NULL, &vk->layout), err, "vkCreatePipelineLayout");
	vk->pipes = calloc(cfg->n_shaders + 1, sizeof *vk->pipes);
	if (!vk->pipes) {
		btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < cfg->n_shaders; i++) {
		const struct btrt_vk_shader *sh = &cfg->shaders[i];
		VkShaderModuleCreateInfo mi = {
			.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
			.codeSize = sh->bytes,
			.pCode = sh->spirv,
		};
		VkShaderModule mod;
		VKCHECK(vkCreateShaderModule(vk->dev, &mi, NULL, &mod), err,
			"vkCreateShaderModule(%s)", sh->name ? sh->name : "?");
		VkComputePipelineCreateInfo ci = {
			.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
			.stage = {
				.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				.stage = VK_SHADER_STAGE_COMPUTE_BIT,
				.module = mod,
				.pName = sh->entry ? sh->entry : "main",
			},
			.layout = vk->layout,
		};
		r = vkCreateComputePipelines(vk->dev, VK_NULL_HANDLE, 1, &ci, NULL, &vk->pipes[i]);
		vkDestroyShaderModule(vk->dev, mod, NULL);
		VKCHECK(r, err, "vkCreateComputePipelines(%s)", sh->name ? sh->name : "?");
		vk->n_pipes = i + 1;
	}
	*out = vk;
	return 0;
fail:
	btrt_vk_destroy(vk);
	return -1;
}

void btrt_vk_queue_idle(struct btrt_vk *vk)
{
	if (!vk->queue)
		return;
	pthread_mutex_lock(vk->qmu);
	vkQueueWaitIdle(vk->queue);
	pthread_mutex_unlock(vk->qmu);
}

void btrt_vk_destroy(struct btrt_vk *vk)
{
	if (!vk)
		return;
	if (vk->dev) {
		btrt_vk_queue_idle(vk);
		for (uint32_t i = 0; i < vk->n_pipes; i++)
			vkDestroyPipeline(vk->dev, vk->pipes[i], NULL);
		if (vk->layout)
			vkDestroyPipelineLayout(vk->dev, vk->layout, NULL);
		if (vk->dsl)
			vkDestroyDescriptorSetLayout(vk->dev, vk->dsl, NULL);
	}
	device_release(vk->d);
	free(vk->pipes);
	free(vk);
}

const char *btrt_vk_device_name(const struct btrt_vk *vk)
{
	return vk->props.deviceName;
}

uint32_t btrt_vk_queue_index(const struct btrt_vk *vk)
{
	return vk->queue_index;
}

uint32_t btrt_vk_queue_count(const struct btrt_vk *vk)
{
	return vk->d->n_queues;
}

int btrt_vk_cpu_device(const struct btrt_vk *vk)
{
	return vk->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
}

int btrt_vk_same_device(const struct btrt_vk *a, const struct btrt_vk *b)
{
	return a && b && a->d == b->d;
}

uint32_t btrt_vk_validation_errors(const struct btrt_vk *vk)
{
	return atomic_load(&vk->d->val_errors);
}
