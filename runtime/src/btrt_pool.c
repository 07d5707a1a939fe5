/* The TaskObject pool; host buffers here, GPU buffers in the backends. */
#include "btrt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BTRT_ALIGN 64

static size_t round_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

int btrt_pool_host_bytes(const struct btrt_pool_config *cfg, uint64_t *bytes)
{
	if (!cfg || (cfg->n_buffers && (!cfg->buffers || !cfg->counts)))
		return -1;
	uint64_t per_task = round_up(cfg->task_size, BTRT_ALIGN), total;
	if (__builtin_add_overflow(per_task, (uint64_t)cfg->n_buffers * sizeof(struct btrt_buffer),
				   &per_task))
		return -1;
	for (uint32_t b = 0; b < cfg->n_buffers; b++) {
		uint64_t n;
		if (cfg->buffers[b].placement == BTRT_PLACE_DEVICE)
			continue;
		if (__builtin_mul_overflow((uint64_t)cfg->counts[b], (uint64_t)cfg->buffers[b].elem_size, &n) ||
		    __builtin_add_overflow(n, (uint64_t)BTRT_ALIGN - 1, &n) ||
		    __builtin_add_overflow(per_task, n / BTRT_ALIGN * BTRT_ALIGN, &per_task))
			return -1;
	}
	if (__builtin_mul_overflow(per_task, (uint64_t)cfg->n_tasks, &total))
		return -1;
	*bytes = total;
	return 0;
}

uint64_t btrt_mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (f) {
		char line[128];
		unsigned long long kb;
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
				fclose(f);
				return (uint64_t)kb * 1024u;
			}
		fclose(f);
	}
#ifdef _SC_AVPHYS_PAGES
	long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	if (pages > 0 && size > 0)
		return (uint64_t)pages * (uint64_t)size;
#endif
	return 0;
}

/* A host buffer of at least this many bytes is an anonymous mapping of
 * its own: zero pages that the kernel fills on first touch, so the part
 * of a buffer sized for the worst case that no task writes (octree's node
 * array for 307200 points, its CUB scratch on a CPU schedule) costs
 * neither time nor memory. Smaller ones come from the heap, zeroed. */
#define BTRT_POOL_MMAP_MIN ((size_t)1 << 20)

/* A host buffer's allocation: its bytes rounded up (64-byte alignment). */
static size_t host_bytes(const struct btrt_buffer *bf)
{
	return round_up(bf->bytes ? bf->bytes : 1, BTRT_ALIGN);
}

int btrt_pool_host_buffer(struct btrt_pool *p, uint32_t b, struct btrt_buffer *bf,
			  struct btrt_error *err)
{
	void *m = NULL;
	size_t bytes = host_bytes(bf);
	uint64_t t0 = btrt_now_ns();
	if (bytes >= BTRT_POOL_MMAP_MIN) {
		m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			m = NULL;
		btrt_pool_alloc_ms(p, b, t0);
	} else if (posix_memalign(&m, BTRT_ALIGN, bytes) == 0) {
		btrt_pool_alloc_ms(p, b, t0);
		btrt_pool_zero(p, m, bytes);
	} else {
		m = NULL;
	}
	if (!m)
		return btrt_error_set(err, BTRT_E_NOMEM, 0,
				      "cannot allocate %zu bytes for buffer '%s'", bf->bytes,
				      p->descs[b].name);
	bf->host = m;
	bf->dev = m;
	return 0;
}

void btrt_pool_host_buffer_free(struct btrt_buffer *bf)
{
	if (bf->host && host_bytes(bf) >= BTRT_POOL_MMAP_MIN)
		munmap(bf->host, host_bytes(bf));
	else
		free(bf->host);
	bf->host = bf->dev = NULL;
}

static int host_alloc(struct btrt_pool *p, struct btrt_error *err)
{
	for (uint32_t b = 0; b < p->cfg.n_buffers; b++)
		p->mem_kind[b] = "host";
	for (uint32_t s = 0; s < p->cfg.n_tasks; s++)
		for (uint32_t b = 0; b < p->cfg.n_buffers; b++)
			if (btrt_pool_host_buffer(p, b, btrt_pool_buf(p, s, b), err))
				return -1;
	return 0;
}

static void host_free(struct btrt_pool *p)
{
	for (size_t i = 0; i < (size_t)p->cfg.n_tasks * p->cfg.n_buffers; i++)
		btrt_pool_host_buffer_free(&p->bufs[i]);
}

int btrt_pool_create(struct btrt_pool **out, const struct btrt_pool_config *cfg,
		     struct btrt_error *err)
{
	*out = NULL;
	if (!cfg || cfg->n_tasks == 0 || cfg->task_size < sizeof(struct btrt_task) ||
	    (cfg->n_buffers && (!cfg->buffers || !cfg->counts)))
		return btrt_error_set(err, BTRT_E_INVAL, 0,
			"pool: need n_tasks >= 1, task_size >= sizeof(struct btrt_task), buffers and counts");
	if (cfg->backend == BTRT_BACKEND_VULKAN && !cfg->vk)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "pool: Vulkan backend without a btrt_vk context");
	if (cfg->backend == BTRT_BACKEND_CUDA && !cfg->cuda)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "pool: CUDA backend without a btrt_cuda context");
	struct btrt_pool *p = calloc(1, sizeof *p);
	if (!p)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "pool: out of memory");
	p->cfg = *cfg;
	uint32_t nb = cfg->n_buffers, nt = cfg->n_tasks;
	p->descs = calloc(nb + 1, sizeof *p->descs);
	p->counts = calloc(nb + 1, sizeof *p->counts);
	p->mem_kind = calloc(nb + 1, sizeof *p->mem_kind);
	p->alloc_ms = calloc(nb + 1, sizeof *p->alloc_ms);
	p->bufs = calloc((size_t)nt * nb + 1, sizeof *p->bufs);
	p->stride = round_up(cfg->task_size, BTRT_ALIGN);
	void *tasks = NULL;
	size_t task_bytes;
	if (__builtin_mul_overflow(p->stride, (size_t)nt, &task_bytes) ||
	    posix_memalign(&tasks, BTRT_ALIGN, task_bytes) != 0)
		tasks = NULL;
	p->tasks = tasks;
	if (!p->descs || !p->counts || !p->mem_kind || !p->alloc_ms || !p->bufs || !p->tasks) {
		btrt_pool_destroy(p);
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "pool: out of memory");
	}
	memset(p->tasks, 0, task_bytes);
	if (nb) {
		memcpy(p->descs, cfg->buffers, nb * sizeof *p->descs);
		memcpy(p->counts, cfg->counts, nb * sizeof *p->counts);
	}
	p->cfg.buffers = p->descs;
	p->cfg.counts = p->counts;
	for (uint32_t s = 0; s < nt; s++) {
		struct btrt_task *t = btrt_pool_task(p, s);
		t->slot = s;
		t->seq = UINT64_MAX;
		t->n_buffers = nb;
		t->buffers = btrt_pool_buf(p, s, 0);
		t->pool = p;
		for (uint32_t b = 0; b < nb; b++) {
			struct btrt_buffer *bf = btrt_pool_buf(p, s, b);
			if (p->descs[b].elem_size && p->counts[b] > SIZE_MAX / p->descs[b].elem_size) {
				btrt_pool_destroy(p);
				return btrt_error_set(err, BTRT_E_INVAL, 0,
					"pool: buffer '%s' size overflows", p->descs[b].name);
			}
			bf->bytes = p->counts[b] * p->descs[b].elem_size;
			bf->placement = p->descs[b].placement;
		}
	}
	int rc = 0;
	switch (cfg->backend) {
	case BTRT_BACKEND_HOST: rc = host_alloc(p, err); break;
	case BTRT_BACKEND_VULKAN: rc = btrt_vk_pool_init(cfg->vk, p, err); break;
	case BTRT_BACKEND_CUDA: rc = btrt_cuda_pool_init(cfg->cuda, p, err); break;
	default: rc = btrt_error_set(err, BTRT_E_INVAL, 0, "pool: unknown backend %d", (int)cfg->backend);
	}
	p->cfg.io_loaded = NULL; /* borrowed during creation only */
	p->cfg.gpu_touched = NULL;
	if (rc) {
		btrt_pool_destroy(p);
		return -1;
	}
	if (p->cfg.print) /* where each buffer lives (a diagnostic) */
		btrt_pool_print(p, stderr);
	*out = p;
	return 0;
}

void btrt_pool_destroy(struct btrt_pool *p)
{
	if (!p)
		return;
	if (p->bufs && p->tasks) {
		switch (p->cfg.backend) {
		case BTRT_BACKEND_HOST: host_free(p); break;
		case BTRT_BACKEND_VULKAN: btrt_vk_pool_fini(p->cfg.vk, p); break;
		case BTRT_BACKEND_CUDA: btrt_cuda_pool_fini(p->cfg.cuda, p); break;
		}
	}
	free(p->tasks);
	free(p->bufs);
	free(p->descs);
	free(p->counts);
	free(p->mem_kind);
	free(p->alloc_ms);
	free(p->probe_managed_us);
	free(p->probe_pinned_us);
	free(p);
}

uint32_t btrt_pool_size(const struct btrt_pool *p)
{
	return p->cfg.n_tasks;
}

void btrt_pool_setup_ms(const struct btrt_pool *p, double *probe_ms, double *zero_ms)
{
	*probe_ms = p->probe_ms;
	*zero_ms = p->zero_ms;
}

void *btrt_pool_task(struct btrt_pool *p, uint32_t i)
{
	if (i >= p->cfg.n_tasks)
		return NULL;
	return p->tasks + (size_t)i * p->stride;
}

enum btrt_backend btrt_pool_backend(const struct btrt_pool *p)
{
	return p->cfg.backend;
}

const char *btrt_pool_buffer_memory(const struct btrt_pool *p, uint32_t b)
{
	if (b >= p->cfg.n_buffers || !p->mem_kind[b])
		return "?";
	return p->mem_kind[b];
}

int btrt_pool_buffer_setup(const struct btrt_pool *p, uint32_t b, uint64_t *bytes, double *alloc_ms)
{
	if (b >= p->cfg.n_buffers)
		return -1;
	*bytes = p->bufs[b].bytes;
	*alloc_ms = p->alloc_ms[b];
	return 0;
}

void btrt_pool_print(const struct btrt_pool *p, FILE *out)
{
	for (uint32_t b = 0; b < p->cfg.n_buffers; b++) {
		fprintf(out, "buffer %-16s %12zu bytes  %s", p->descs[b].name,
			p->bufs[b].bytes, btrt_pool_buffer_memory(p, b));
		if (p->probe_managed_us && p->probe_managed_us[b] > 0)
			fprintf(out, "  (probe: managed+prefetch %.1f us, pinned %.1f us)",
				p->probe_managed_us[b], p->probe_pinned_us[b]);
		fputc('\n', out);
	}
}
