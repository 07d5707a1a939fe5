/* Vulkan backend, chunks: command buffers pre-recorded per (chunk,
 * TaskObject), one fence per chunk submission, timestamp queries per
 * stage, and the flush / invalidate of non-coherent memory. */
#include "btrt_vk_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

static void add_unique(uint32_t *l, uint32_t *n, uint32_t x)
{
	if (!btrt_u32_listed(l, *n, x))
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
	struct btrt_task *t = btrt_pool_slot(vc->pool, s);
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
	vc->n_slots = pool->cfg.n_tasks;
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

/* Waits for fence f of vk's device as vk->wait_spin says (btrt_vk_config.
 * wait): vkWaitForFences, or vkGetFenceStatus polled with a sched_yield
 * between polls until it is not VK_NOT_READY. Returns VK_SUCCESS, VK_TIMEOUT
 * after BTRT_VK_FENCE_TIMEOUT_NS (btrt_now_ns when spinning), or the
 * driver's error (VK_ERROR_DEVICE_LOST, ...). */
static VkResult fence_wait(struct btrt_vk *vk, VkFence f)
{
	if (!vk->wait_spin)
		return vkWaitForFences(vk->dev, 1, &f, VK_TRUE, BTRT_VK_FENCE_TIMEOUT_NS);
	uint64_t t0 = btrt_now_ns();
	for (;;) {
		VkResult r = vkGetFenceStatus(vk->dev, f);
		if (r != VK_NOT_READY)
			return r;
		if (btrt_now_ns() - t0 >= BTRT_VK_FENCE_TIMEOUT_NS)
			return VK_TIMEOUT;
		sched_yield();
	}
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
	pthread_mutex_lock(vk->qmu);
	uint64_t t_submit = btrt_now_ns();
	VkResult r = vkQueueSubmit(vk->queue, 1, &si, vc->fence);
	pthread_mutex_unlock(vk->qmu);
	VKCHECK(r, err, "vkQueueSubmit");
	r = fence_wait(vk, vc->fence);
	if (r == VK_TIMEOUT) {
		/* The command buffer may still be pending; wait it out so that
		 * teardown is safe, then report the hang. Only this
		 * context's queue: other streams may share the device. */
		btrt_vk_queue_idle(vk);
		vkResetFences(vk->dev, 1, &vc->fence);
	}
	VKCHECK(r, err, "%s", vk->wait_spin ? "vkGetFenceStatus" : "vkWaitForFences");
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
