/* Vulkan backend: instance/device selection, compute pipelines, unified
 * buffers (HOST_VISIBLE, persistently mapped), descriptor sets per
 * TaskObject, pre-recorded command buffers per (chunk, TaskObject), one
 * fence per chunk submission, timestamp queries per stage. */
#include "btrt_internal.h"
#include "btrt_vk.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

/* How long one chunk submission may take before it is reported as hung. */
#define BTRT_VK_FENCE_TIMEOUT_NS (120ull * 1000000000ull)

struct btrt_vk {
	VkInstance inst;
	VkPhysicalDevice phys;
	VkDevice dev;
	VkQueue queue;
	uint32_t qfam;
	pthread_mutex_t qmu;               /* vkQueueSubmit needs external sync */
	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties memp;
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;
	VkPipeline *pipes;                 /* [n_pipes] */
	uint32_t n_pipes;
	uint32_t n_buffers, push_bytes;
	int ts_ok;                         /* queue family has timestamps */
	double ts_period;                  /* ns per tick */
	uint64_t ts_mask;
	VkDebugUtilsMessengerEXT msgr;
	atomic_uint val_errors;
};

/* One Vulkan buffer of one TaskObject (btrt_buffer.backend). */
struct vkbuf {
	VkBuffer buf;
	VkDeviceMemory mem;
	int coherent;                      /* HOST_COHERENT, or device-only */
};

struct vk_pool_state {
	VkDescriptorPool dp;
	VkDescriptorSet *sets;             /* [n_tasks] */
	struct vkbuf *bufs;                /* [n_tasks * n_buffers] */
};

struct vk_chunk {
	struct btrt_vk *vk;
	struct btrt_pool *pool;
	uint32_t n_stages, n_slots;
	VkCommandPool cp;
	VkCommandBuffer *cbs;              /* [n_slots] */
	VkFence fence;
	VkQueryPool qp;                    /* 2 queries per stage per slot */
	uint32_t *flush;                   /* buffers read or written (flush before) */
	uint32_t n_flush;
	uint32_t *inval;                   /* buffers written (invalidate after) */
	uint32_t n_inval;
	int noncoherent;                   /* any of them non-coherent */
	uint64_t *ts;                      /* [2 * n_stages] scratch */
};

static const char *vkres(VkResult r)
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

#define VKCHECK(call, err, ...)                                                   \
	do {                                                                      \
		VkResult r_ = (call);                                             \
		if (r_ != VK_SUCCESS) {                                           \
			char w_[160];                                             \
			snprintf(w_, sizeof w_, __VA_ARGS__);                     \
			btrt_error_set(err, BTRT_E_VULKAN, (int)r_, "%s: %s (%d)", \
				       w_, vkres(r_), (int)r_);                   \
			goto fail;                                                \
		}                                                                 \
	} while (0)

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_cb(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
					     VkDebugUtilsMessageTypeFlagsEXT type,
					     const VkDebugUtilsMessengerCallbackDataEXT *d, void *user)
{
	struct btrt_vk *vk = user;
	if (sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
		atomic_fetch_add(&vk->val_errors, 1);
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

static int compute_family(VkPhysicalDevice pd, uint32_t *fam, uint32_t *ts_bits)
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
		if (compute_family(pd[i], &fam, &bits))
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

int btrt_vk_create(struct btrt_vk **out, const struct btrt_vk_config *cfg, struct btrt_error *err)
{
	*out = NULL;
	if (!cfg || (cfg->n_shaders && !cfg->shaders))
		return btrt_error_set(err, BTRT_E_INVAL, 0, "btrt_vk_create: bad config");
	struct btrt_vk *vk = calloc(1, sizeof *vk);
	if (!vk)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	pthread_mutex_init(&vk->qmu, NULL);
	atomic_init(&vk->val_errors, 0);
	vk->n_buffers = cfg->n_buffers;
	vk->push_bytes = cfg->push_bytes ? cfg->push_bytes : 128;
	int validation = cfg->validation;
	if (validation < 0) {
		const char *v = getenv("BTRT_VK_VALIDATION");
		validation = v && *v && strcmp(v, "0") != 0;
	}
	const char *want = cfg->device ? cfg->device : getenv("BTRT_VK_DEVICE");
	int debug = 0;
	VkResult r = make_instance(validation, &vk->inst, &debug);
	if (r != VK_SUCCESS) {
		btrt_error_set(err, r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED
			       ? BTRT_E_NODEV : BTRT_E_VULKAN, (int)r,
			       "vkCreateInstance: %s (%d)", vkres(r), (int)r);
		vk->inst = VK_NULL_HANDLE;
		goto fail;
	}
	if (debug) {
		PFN_vkCreateDebugUtilsMessengerEXT f = (PFN_vkCreateDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(vk->inst, "vkCreateDebugUtilsMessengerEXT");
		VkDebugUtilsMessengerCreateInfoEXT mi = {
			.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
			.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
					   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
			.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
				       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
				       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
			.pfnUserCallback = debug_cb,
			.pUserData = vk,
		};
		if (f)
			f(vk->inst, &mi, NULL, &vk->msgr);
	}
	if (select_device(vk, want, err))
		goto fail;
	vkGetPhysicalDeviceProperties(vk->phys, &vk->props);
	vkGetPhysicalDeviceMemoryProperties(vk->phys, &vk->memp);
	uint32_t ts_bits = 0;
	compute_family(vk->phys, &vk->qfam, &ts_bits);
	vk->ts_ok = ts_bits > 0 && vk->props.limits.timestampPeriod > 0;
	vk->ts_period = vk->props.limits.timestampPeriod;
	vk->ts_mask = ts_bits >= 64 ? ~0ull : (1ull << ts_bits) - 1;
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qi = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = vk->qfam,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	VkDeviceCreateInfo di = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qi,
	};
	VKCHECK(vkCreateDevice(vk->phys, &di, NULL, &vk->dev), err, "vkCreateDevice(%.100s)",
		vk->props.deviceName);
	vkGetDeviceQueue(vk->dev, vk->qfam, 0, &vk->queue);

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

void btrt_vk_destroy(struct btrt_vk *vk)
{
	if (!vk)
		return;
	if (vk->dev) {
		vkDeviceWaitIdle(vk->dev);
		for (uint32_t i = 0; i < vk->n_pipes; i++)
			vkDestroyPipeline(vk->dev, vk->pipes[i], NULL);
		if (vk->layout)
			vkDestroyPipelineLayout(vk->dev, vk->layout, NULL);
		if (vk->dsl)
			vkDestroyDescriptorSetLayout(vk->dev, vk->dsl, NULL);
		vkDestroyDevice(vk->dev, NULL);
	}
	if (vk->msgr) {
		PFN_vkDestroyDebugUtilsMessengerEXT f = (PFN_vkDestroyDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(vk->inst, "vkDestroyDebugUtilsMessengerEXT");
		if (f)
			f(vk->inst, vk->msgr, NULL);
	}
	if (vk->inst)
		vkDestroyInstance(vk->inst, NULL);
	free(vk->pipes);
	pthread_mutex_destroy(&vk->qmu);
	free(vk);
}

const char *btrt_vk_device_name(const struct btrt_vk *vk)
{
	return vk->props.deviceName;
}

uint32_t btrt_vk_validation_errors(const struct btrt_vk *vk)
{
	return atomic_load(&((struct btrt_vk *)vk)->val_errors);
}

/* ---- buffers ---------------------------------------------------------- */

/* Memory type for bits with the best of the listed property sets. */
static int pick_type(const struct btrt_vk *vk, uint32_t bits, const VkMemoryPropertyFlags *want, int n)
{
	for (int w = 0; w < n; w++)
		for (uint32_t i = 0; i < vk->memp.memoryTypeCount; i++)
			if ((bits & (1u << i)) &&
			    (vk->memp.memoryTypes[i].propertyFlags & want[w]) == want[w])
				return (int)i;
	return -1;
}

int btrt_vk_pool_init(struct btrt_vk *vk, struct btrt_pool *pool, struct btrt_error *err)
{
	uint32_t nb = pool->cfg.n_buffers, nt = pool->cfg.n_tasks;
	if (nb != vk->n_buffers)
		return btrt_error_set(err, BTRT_E_INVAL, 0,
			"pool has %u buffers, the Vulkan layout %u", nb, vk->n_buffers);
	struct vk_pool_state *ps = calloc(1, sizeof *ps);
	if (!ps)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	pool->backend_state = ps;
	ps->sets = calloc(nt, sizeof *ps->sets);
	ps->bufs = calloc((size_t)nt * nb + 1, sizeof *ps->bufs);
	if (!ps->sets || !ps->bufs)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	/* Unified: cached+coherent, coherent, cached (flush/invalidate), any
	 * host-visible. Device-local-only types of a discrete GPU's BAR would
	 * make CPU kernels crawl, so they come last for unified buffers. */
	static const VkMemoryPropertyFlags unified[] = {
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
	};
	static const VkMemoryPropertyFlags devonly[] = { VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0 };
	/* Test knob: treat coherent memory as non-coherent, so the flush /
	 * invalidate path runs on devices (llvmpipe, NVIDIA) that never need it. */
	const char *fnc = getenv("BTRT_VK_FORCE_NONCOHERENT");
	int force_nc = fnc && *fnc && strcmp(fnc, "0") != 0;
	for (uint32_t s = 0; s < nt; s++) {
		for (uint32_t b = 0; b < nb; b++) {
			struct btrt_buffer *bf = btrt_pool_buf(pool, s, b);
			struct vkbuf *vb = &ps->bufs[(size_t)s * nb + b];
			const char *name = pool->descs[b].name;
			if (bf->placement == BTRT_PLACE_HOST) {
				void *m = NULL;
				size_t bytes = (bf->bytes + 63) / 64 * 64 + 64;
				if (posix_memalign(&m, 64, bytes))
					return btrt_error_set(err, BTRT_E_NOMEM, 0, "cannot allocate '%s'", name);
				memset(m, 0, bytes);
				bf->host = bf->dev = m;
				pool->mem_kind[b] = "host";
				continue;
			}
			VkBufferCreateInfo bi = {
				.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				.size = bf->bytes ? (bf->bytes + 3) / 4 * 4 : 4,
				.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
					 VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
				.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
			};
			VKCHECK(vkCreateBuffer(vk->dev, &bi, NULL, &vb->buf), err, "vkCreateBuffer(%s)", name);
			VkMemoryRequirements mr;
			vkGetBufferMemoryRequirements(vk->dev, vb->buf, &mr);
			int dev = bf->placement == BTRT_PLACE_DEVICE;
			int ti = dev ? pick_type(vk, mr.memoryTypeBits, devonly, 2)
				     : pick_type(vk, mr.memoryTypeBits, unified, 4);
			if (ti < 0)
				return btrt_error_set(err, BTRT_E_VULKAN, 0,
					"no suitable memory type for buffer '%s'", name);
			VkMemoryPropertyFlags fl = vk->memp.memoryTypes[ti].propertyFlags;
			VkMemoryAllocateInfo ai = {
				.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
				.allocationSize = mr.size,
				.memoryTypeIndex = (uint32_t)ti,
			};
			VKCHECK(vkAllocateMemory(vk->dev, &ai, NULL, &vb->mem), err,
				"vkAllocateMemory(%s, %llu bytes)", name, (unsigned long long)mr.size);
			VKCHECK(vkBindBufferMemory(vk->dev, vb->buf, vb->mem, 0), err, "vkBindBufferMemory(%s)", name);
			vb->coherent = dev || ((fl & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) && !force_nc);
			if (!dev) {
				void *m = NULL;
				VKCHECK(vkMapMemory(vk->dev, vb->mem, 0, VK_WHOLE_SIZE, 0, &m), err,
					"vkMapMemory(%s)", name);
				memset(m, 0, bf->bytes);
				if (!vb->coherent) {
					VkMappedMemoryRange rg = {
						.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
						.memory = vb->mem, .offset = 0, .size = VK_WHOLE_SIZE,
					};
					vkFlushMappedMemoryRanges(vk->dev, 1, &rg);
				}
				bf->host = m;
			}
			bf->dev = NULL;
			bf->backend = vb;
			pool->mem_kind[b] = dev ? "vk-device" : vb->coherent ? "vk-coherent" : "vk-noncoherent";
		}
	}
	/* One descriptor set per TaskObject covering every GPU-visible buffer. */
	if (nb) {
		VkDescriptorPoolSize sz = {
			.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.descriptorCount = nt * nb,
		};
		VkDescriptorPoolCreateInfo dpi = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
			.maxSets = nt,
			.poolSizeCount = 1,
			.pPoolSizes = &sz,
		};
		VKCHECK(vkCreateDescriptorPool(vk->dev, &dpi, NULL, &ps->dp), err, "vkCreateDescriptorPool");
		for (uint32_t s = 0; s < nt; s++) {
			VkDescriptorSetAllocateInfo ai = {
				.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
				.descriptorPool = ps->dp,
				.descriptorSetCount = 1,
				.pSetLayouts = &vk->dsl,
			};
			VKCHECK(vkAllocateDescriptorSets(vk->dev, &ai, &ps->sets[s]), err, "vkAllocateDescriptorSets");
			for (uint32_t b = 0; b < nb; b++) {
				struct vkbuf *vb = &ps->bufs[(size_t)s * nb + b];
				if (!vb->buf)
					continue; /* host placement: never bound by a shader */
				VkDescriptorBufferInfo info = { .buffer = vb->buf, .offset = 0, .range = VK_WHOLE_SIZE };
				VkWriteDescriptorSet w = {
					.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
					.dstSet = ps->sets[s],
					.dstBinding = b,
					.descriptorCount = 1,
					.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
					.pBufferInfo = &info,
				};
				vkUpdateDescriptorSets(vk->dev, 1, &w, 0, NULL);
			}
			struct btrt_task *t = btrt_pool_task(pool, s);
			t->vk_set = (void *)ps->sets[s];
		}
	}
	return 0;
fail:
	return -1;
}

void btrt_vk_pool_fini(struct btrt_vk *vk, struct btrt_pool *pool)
{
	struct vk_pool_state *ps = pool->backend_state;
	if (!ps)
		return;
	vkDeviceWaitIdle(vk->dev);
	uint32_t nb = pool->cfg.n_buffers, nt = pool->cfg.n_tasks;
	if (ps->dp)
		vkDestroyDescriptorPool(vk->dev, ps->dp, NULL);
	for (uint32_t s = 0; ps->bufs && s < nt; s++)
		for (uint32_t b = 0; b < nb; b++) {
			struct vkbuf *vb = &ps->bufs[(size_t)s * nb + b];
			struct btrt_buffer *bf = btrt_pool_buf(pool, s, b);
			if (bf->placement == BTRT_PLACE_HOST) {
				free(bf->host);
				continue;
			}
			if (vb->buf)
				vkDestroyBuffer(vk->dev, vb->buf, NULL);
			if (vb->mem)
				vkFreeMemory(vk->dev, vb->mem, NULL); /* unmaps */
		}
	free(ps->sets);
	free(ps->bufs);
	free(ps);
	pool->backend_state = NULL;
}

/* ---- chunks ----------------------------------------------------------- */

static int in_list(const uint32_t *l, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (l[i] == x)
			return 1;
	return 0;
}

static void add_unique(uint32_t *l, uint32_t *n, uint32_t x)
{
	if (!in_list(l, *n, x))
		l[(*n)++] = x;
}

static void barrier(VkCommandBuffer cb, VkPipelineStageFlags dst_stage, VkAccessFlags dst)
{
	VkMemoryBarrier mb = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
		.dstAccessMask = dst,
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dst_stage, 0,
			     1, &mb, 0, NULL, 0, NULL);
}

/* Records chunk c's stages for TaskObject slot s into cb. A barrier goes in
 * front of a dispatch when it touches a buffer written since the last
 * barrier (RAW, WAW), writes one read since then (WAR), or follows another
 * dispatch of the same stage (a stage's dispatches are assumed dependent). */
static void record(struct vk_chunk *vc, const struct btrt_pipeline_config *cfg,
		   const struct btrt_chunk *c, uint32_t s, VkCommandBuffer cb,
		   uint8_t *wr, uint8_t *rd)
{
	struct btrt_vk *vk = vc->vk;
	uint32_t nb = vk->n_buffers;
	struct btrt_task *t = btrt_pool_task(vc->pool, s);
	VkDescriptorSet set = (VkDescriptorSet)t->vk_set;
	if (set)
		vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, vk->layout, 0, 1, &set, 0, NULL);
	if (vk->ts_ok)
		vkCmdResetQueryPool(cb, vc->qp, s * 2 * vc->n_stages, 2 * vc->n_stages);
	memset(wr, 0, nb + 1);
	memset(rd, 0, nb + 1);
	uint32_t bound = UINT32_MAX;
	for (uint32_t k = 0; k < c->n_stages; k++) {
		const struct btrt_stage *st = &cfg->stages[c->first_stage + k];
		for (uint32_t d = 0; d < st->n_vk; d++) {
			const struct btrt_vk_dispatch *dp = &st->vk[d];
			int need = d > 0;
			for (uint32_t i = 0; i < st->n_reads; i++)
				need |= st->reads[i] < nb && wr[st->reads[i]];
			for (uint32_t i = 0; i < st->n_writes; i++)
				need |= st->writes[i] < nb && (wr[st->writes[i]] || rd[st->writes[i]]);
			if (need) {
				barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
					VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
				memset(wr, 0, nb + 1);
				memset(rd, 0, nb + 1);
			}
			if (d == 0 && vk->ts_ok)
				vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, vc->qp,
						    s * 2 * vc->n_stages + 2 * k);
			if (dp->pipeline != bound) {
				vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipes[dp->pipeline]);
				bound = dp->pipeline;
			}
			if (dp->n_push)
				vkCmdPushConstants(cb, vk->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
						   dp->n_push * 4, dp->push);
			vkCmdDispatch(cb, dp->groups[0] ? dp->groups[0] : 1, dp->groups[1] ? dp->groups[1] : 1,
				      dp->groups[2] ? dp->groups[2] : 1);
			for (uint32_t i = 0; i < st->n_reads; i++)
				if (st->reads[i] < nb)
					rd[st->reads[i]] = 1;
			for (uint32_t i = 0; i < st->n_writes; i++)
				if (st->writes[i] < nb)
					wr[st->writes[i]] = 1;
		}
		if (vk->ts_ok)
			vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vc->qp,
					    s * 2 * vc->n_stages + 2 * k + 1);
	}
	/* Make shader writes visible to the host after the fence. */
	barrier(cb, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

int btrt_vk_chunk_init(struct btrt_vk *vk, const struct btrt_pipeline_config *cfg, uint32_t ci,
		       void **state, struct btrt_error *err)
{
	const struct btrt_chunk *c = &cfg->chunks[ci];
	struct btrt_pool *pool = cfg->pool;
	uint32_t nb = vk->n_buffers;
	uint8_t *wr = NULL, *rd = NULL;
	struct vk_chunk *vc = calloc(1, sizeof *vc);
	*state = NULL;
	if (!vc)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	vc->vk = vk;
	vc->pool = pool;
	vc->n_stages = c->n_stages;
	vc->n_slots = btrt_pool_size(pool);
	vc->cbs = calloc(vc->n_slots, sizeof *vc->cbs);
	vc->flush = calloc(nb + 1, sizeof *vc->flush);
	vc->inval = calloc(nb + 1, sizeof *vc->inval);
	vc->ts = calloc(2 * c->n_stages, sizeof *vc->ts);
	wr = calloc(nb + 1, 1);
	rd = calloc(nb + 1, 1);
	if (!vc->cbs || !vc->flush || !vc->inval || !vc->ts || !wr || !rd) {
		btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
		goto fail;
	}
	for (uint32_t s = c->first_stage; s < c->first_stage + c->n_stages; s++) {
		const struct btrt_stage *st = &cfg->stages[s];
		for (uint32_t d = 0; d < st->n_vk; d++)
			if (st->vk[d].pipeline >= vk->n_pipes || st->vk[d].n_push > BTRT_VK_MAX_PUSH ||
			    st->vk[d].n_push * 4 > vk->push_bytes) {
				err->stage = (int)s;
				btrt_error_set(err, BTRT_E_INVAL, 0,
					"dispatch %u: pipeline %u of %u, %u push constants (range %u bytes)",
					d, st->vk[d].pipeline, vk->n_pipes, st->vk[d].n_push, vk->push_bytes);
				goto fail;
			}
		for (uint32_t i = 0; i < st->n_reads; i++)
			if (st->reads[i] < nb)
				add_unique(vc->flush, &vc->n_flush, st->reads[i]);
		for (uint32_t i = 0; i < st->n_writes; i++)
			if (st->writes[i] < nb) {
				add_unique(vc->flush, &vc->n_flush, st->writes[i]);
				add_unique(vc->inval, &vc->n_inval, st->writes[i]);
			}
	}
	struct vk_pool_state *ps = pool->backend_state;
	for (uint32_t i = 0; i < vc->n_flush; i++)
		for (uint32_t s = 0; s < vc->n_slots; s++) {
			struct vkbuf *vb = &ps->bufs[(size_t)s * nb + vc->flush[i]];
			vc->noncoherent |= vb->buf && !vb->coherent;
		}
	VkCommandPoolCreateInfo cpi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.queueFamilyIndex = vk->qfam,
	};
	VKCHECK(vkCreateCommandPool(vk->dev, &cpi, NULL, &vc->cp), err, "vkCreateCommandPool");
	VkCommandBufferAllocateInfo cai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = vc->cp,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = vc->n_slots,
	};
	VKCHECK(vkAllocateCommandBuffers(vk->dev, &cai, vc->cbs), err, "vkAllocateCommandBuffers");
	VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VKCHECK(vkCreateFence(vk->dev, &fi, NULL, &vc->fence), err, "vkCreateFence");
	if (vk->ts_ok) {
		VkQueryPoolCreateInfo qi = {
			.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
			.queryType = VK_QUERY_TYPE_TIMESTAMP,
			.queryCount = 2 * c->n_stages * vc->n_slots,
		};
		VKCHECK(vkCreateQueryPool(vk->dev, &qi, NULL, &vc->qp), err, "vkCreateQueryPool");
	}
	for (uint32_t s = 0; s < vc->n_slots; s++) {
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		VKCHECK(vkBeginCommandBuffer(vc->cbs[s], &bi), err, "vkBeginCommandBuffer");
		record(vc, cfg, c, s, vc->cbs[s], wr, rd);
		VKCHECK(vkEndCommandBuffer(vc->cbs[s]), err, "vkEndCommandBuffer");
	}
	free(wr);
	free(rd);
	*state = vc;
	return 0;
fail:
	free(wr);
	free(rd);
	btrt_vk_chunk_fini(vc);
	return -1;
}

static VkResult sync_ranges(struct vk_chunk *vc, uint32_t slot, const uint32_t *l, uint32_t n, int flush)
{
	struct vk_pool_state *ps = vc->pool->backend_state;
	uint32_t nb = vc->vk->n_buffers;
	VkResult r = VK_SUCCESS;
	for (uint32_t i = 0; i < n && r == VK_SUCCESS; i++) {
		struct vkbuf *vb = &ps->bufs[(size_t)slot * nb + l[i]];
		if (!vb->buf || vb->coherent)
			continue;
		VkMappedMemoryRange rg = {
			.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
			.memory = vb->mem, .offset = 0, .size = VK_WHOLE_SIZE,
		};
		r = flush ? vkFlushMappedMemoryRanges(vc->vk->dev, 1, &rg)
			  : vkInvalidateMappedMemoryRanges(vc->vk->dev, 1, &rg);
	}
	return r;
}

int btrt_vk_chunk_exec(void *state, struct btrt_task *t, struct btrt_gpu_time *times,
		       struct btrt_error *err)
{
	struct vk_chunk *vc = state;
	struct btrt_vk *vk = vc->vk;
	uint32_t s = t->slot;
	/* Host writes of the declared buffers reach the device (non-coherent). */
	if (vc->noncoherent)
		VKCHECK(sync_ranges(vc, s, vc->flush, vc->n_flush, 1), err, "vkFlushMappedMemoryRanges");
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &vc->cbs[s],
	};
	pthread_mutex_lock(&vk->qmu);
	uint64_t t_submit = btrt_now_ns();
	VkResult r = vkQueueSubmit(vk->queue, 1, &si, vc->fence);
	pthread_mutex_unlock(&vk->qmu);
	VKCHECK(r, err, "vkQueueSubmit");
	r = vkWaitForFences(vk->dev, 1, &vc->fence, VK_TRUE, BTRT_VK_FENCE_TIMEOUT_NS);
	if (r == VK_TIMEOUT) {
		/* The command buffer may still be pending; wait it out so that
		 * teardown is safe, then report the hang. */
		vkDeviceWaitIdle(vk->dev);
		vkResetFences(vk->dev, 1, &vc->fence);
	}
	VKCHECK(r, err, "vkWaitForFences");
	VKCHECK(vkResetFences(vk->dev, 1, &vc->fence), err, "vkResetFences");
	if (vc->noncoherent)
		VKCHECK(sync_ranges(vc, s, vc->inval, vc->n_inval, 0), err, "vkInvalidateMappedMemoryRanges");
	if (vk->ts_ok) {
		uint32_t n = 2 * vc->n_stages;
		VKCHECK(vkGetQueryPoolResults(vk->dev, vc->qp, s * n, n, n * sizeof(uint64_t), vc->ts,
					      sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
			err, "vkGetQueryPoolResults");
		uint64_t base = vc->ts[0] & vk->ts_mask;
		for (uint32_t k = 0; k < vc->n_stages; k++) {
			uint64_t a = ((vc->ts[2 * k] & vk->ts_mask) - base) & vk->ts_mask;
			uint64_t b = ((vc->ts[2 * k + 1] & vk->ts_mask) - base) & vk->ts_mask;
			times[k].start_ns = t_submit + (uint64_t)((double)a * vk->ts_period);
			times[k].end_ns = t_submit + (uint64_t)((double)b * vk->ts_period);
			if (times[k].end_ns <= times[k].start_ns)
				times[k].end_ns = times[k].start_ns + 1;
		}
	}
	return 0;
fail:
	return -1;
}

void btrt_vk_chunk_fini(void *state)
{
	struct vk_chunk *vc = state;
	if (!vc)
		return;
	VkDevice dev = vc->vk->dev;
	if (vc->qp)
		vkDestroyQueryPool(dev, vc->qp, NULL);
	if (vc->fence)
		vkDestroyFence(dev, vc->fence, NULL);
	if (vc->cp)
		vkDestroyCommandPool(dev, vc->cp, NULL);
	free(vc->cbs);
	free(vc->flush);
	free(vc->inval);
	free(vc->ts);
	free(vc);
}
