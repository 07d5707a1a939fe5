/* The runtime's environment, read once (btrt_env.h): the only place in
 * btrt that reads a BTRT_* variable. Each variable is parsed strictly; a
 * bad value is an error that names it, never a silent default. */
#include "btrt_env.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Flag name: unset or empty 0; "0" or "1"; else an error. */
static int read_flag(const char *name, int *out, struct btrt_error *err)
{
	const char *v = getenv(name);
	*out = 0;
	if (!v || !*v)
		return 0;
	if (!strcmp(v, "0") || !strcmp(v, "1")) {
		*out = v[0] == '1';
		return 0;
	}
	return btrt_error_set(err, BTRT_E_INVAL, 0, "%s='%s': expected 0 or 1", name, v);
}

/* Decimal integer name in [lo, hi]: unset or empty leaves *out as it is. */
static int read_int(const char *name, int64_t lo, int64_t hi, int64_t *out, struct btrt_error *err)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	char *end = NULL;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi)
		return btrt_error_set(err, BTRT_E_INVAL, 0,
				      "%s='%s': expected a decimal integer in [%" PRId64 ", %" PRId64 "]",
				      name, v, lo, hi);
	*out = x;
	return 0;
}

/* One of words[n] (their index into *out); unset or empty leaves *out. */
static int read_word(const char *name, const char *const *words, int n, int *out,
		     const char *expect, struct btrt_error *err)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	for (int i = 0; i < n; i++)
		if (words[i] && !strcmp(v, words[i])) {
			*out = i;
			return 0;
		}
	return btrt_error_set(err, BTRT_E_INVAL, 0, "%s='%s': expected %s", name, v, expect);
}

static void defaults(struct btrt_env *env)
{
	memset(env, 0, sizeof *env);
	env->spin_ns = -1;
	env->yield_ns = -1;
	env->cuda_device = -1;
	env->cuda_mem = BTRT_CUDA_MEM_AUTO;
	env->cuda_sync = BTRT_CUDA_SYNC_DEFAULT;
}

int btrt_env_read(struct btrt_env *env, struct btrt_error *err)
{
	/* ns: up to 10 s of spinning or yielding is already absurd. */
	static const int64_t max_ns = 10000000000ll;
	static const char *const mem[] = { NULL, "managed", "pinned" };
	static const char *const sync[] = { NULL, "spin", "yield", "block" };
	static const char *const move[] = { "", "all" };
	static const char *const io_pinned[] = { "0", "1" };
	static const char *const read_mostly[] = { "0", "1" };
	static const char *const private_rule[] = { "device", "probe" };
	static const char *const vk_private[] = { "device", "host" };
	static const char *const vk_streams[] = { NULL, "one", "each", "queue" };
	static const char *const vk_wait[] = { NULL, "block", "spin" };
	static const char *const io_copy[] = { "stream", "memcpy" };
	struct btrt_env e;
	defaults(&e);
	int64_t dev = -1, ct = 0, lt = 0, st = 0;
	int m = BTRT_CUDA_MEM_AUTO, s = BTRT_CUDA_SYNC_DEFAULT, mv = 0, iop = 1, vs = 0, rm = 1;
	int vw = BTRT_VK_WAIT_DEFAULT, ic = 0, pr = 0, vp = 0;
	const char *vd = getenv("BTRT_VK_DEVICE");
	e.vk_device = vd && *vd ? vd : NULL;
	const char *pf = getenv("BTRT_CUDA_PROBE_FILE");
	e.cuda_probe_file = pf && *pf ? pf : NULL;
	if (read_flag("BTRT_NO_PIN", &e.no_pin, err) ||
	    read_flag("BTRT_NO_MEMBARRIER", &e.no_membarrier, err) ||
	    read_int("BTRT_SPIN_NS", 0, max_ns, &e.spin_ns, err) ||
	    read_int("BTRT_YIELD_NS", 0, max_ns, &e.yield_ns, err) ||
	    read_flag("BTRT_VK_VALIDATION", &e.vk_validation, err) ||
	    read_flag("BTRT_VK_FORCE_NONCOHERENT", &e.vk_force_noncoherent, err) ||
	    read_word("BTRT_VK_STREAMS", vk_streams, 4, &vs, "one, each or queue", err) ||
	    read_word("BTRT_VK_WAIT", vk_wait, 3, &vw, "block or spin", err) ||
	    read_word("BTRT_VK_PRIVATE", vk_private, 2, &vp, "device or host", err) ||
	    read_int("BTRT_CUDA_DEVICE", 0, 1023, &dev, err) ||
	    read_word("BTRT_CUDA_MEM", mem, 3, &m, "managed or pinned", err) ||
	    read_word("BTRT_CUDA_SYNC", sync, 4, &s, "spin, yield or block", err) ||
	    read_word("BTRT_CUDA_MOVE", move, 2, &mv, "all", err) ||
	    read_word("BTRT_CUDA_IO_PINNED", io_pinned, 2, &iop, "0 or 1", err) ||
	    read_word("BTRT_CUDA_READ_MOSTLY", read_mostly, 2, &rm, "0 or 1", err) ||
	    read_word("BTRT_CUDA_PRIVATE", private_rule, 2, &pr, "device or probe", err) ||
	    read_flag("BTRT_POOL_PRINT", &e.pool_print, err) ||
	    read_int("BTRT_CHECK_THREADS", 1, BTRT_CHECK_THREADS_MAX, &ct, err) ||
	    read_int("BTRT_LOAD_THREADS", 1, BTRT_LOAD_THREADS_MAX, &lt, err) ||
	    read_word("BTRT_IO_COPY", io_copy, 2, &ic, "stream or memcpy", err) ||
	    read_int("BTRT_STOP_TIMEOUT_S", 1, 3600, &st, err)) {
		defaults(env);
		return -1;
	}
	e.cuda_device = (int)dev;
	e.check_threads = (uint32_t)ct;
	e.load_threads = (uint32_t)lt;
	e.stop_timeout_s = (uint32_t)st;
	e.cuda_mem = (enum btrt_cuda_mem)m;
	e.cuda_sync = (enum btrt_cuda_sync)s;
	e.cuda_move_all = mv;
	e.cuda_io_managed = !iop;
	e.vk_streams = (enum btrt_vk_streams)vs;
	e.vk_wait = (enum btrt_vk_wait)vw;
	e.cuda_no_read_mostly = !rm;
	e.cuda_probe_private = pr;
	e.vk_host_private = vp;
	e.io_copy_memcpy = ic;
	*env = e;
	return 0;
}

int btrt_env_init(struct btrt_env *env, struct btrt_error *err)
{
	if (btrt_env_read(env, err))
		return -1;
	struct btrt_ring_config rc;
	btrt_env_ring_config(env, &rc);
	btrt_ring_configure(&rc);
	btrt_io_copy_configure(!env->io_copy_memcpy);
	return 0;
}

void btrt_env_vk_config(const struct btrt_env *env, struct btrt_vk_config *cfg)
{
	if (!cfg->device)
		cfg->device = env->vk_device;
	if (cfg->validation < 0)
		cfg->validation = env->vk_validation;
	cfg->force_noncoherent |= env->vk_force_noncoherent;
	if (cfg->wait == BTRT_VK_WAIT_DEFAULT)
		cfg->wait = env->vk_wait;
	cfg->host_private |= env->vk_host_private;
}

void btrt_env_cuda_config(const struct btrt_env *env, struct btrt_cuda_config *cfg)
{
	if (cfg->device < 0)
		cfg->device = env->cuda_device;
	if (cfg->mem == BTRT_CUDA_MEM_AUTO)
		cfg->mem = env->cuda_mem;
	if (cfg->sync == BTRT_CUDA_SYNC_DEFAULT)
		cfg->sync = env->cuda_sync;
	cfg->move_all |= env->cuda_move_all;
	cfg->io_managed |= env->cuda_io_managed;
	cfg->no_read_mostly |= env->cuda_no_read_mostly;
	cfg->probe_private |= env->cuda_probe_private;
	if (!cfg->probe_file)
		cfg->probe_file = env->cuda_probe_file;
}

void btrt_env_pool_config(const struct btrt_env *env, struct btrt_pool_config *cfg)
{
	cfg->print |= env->pool_print;
}

void btrt_env_pipeline_config(const struct btrt_env *env, struct btrt_pipeline_config *cfg)
{
	cfg->no_pin |= env->no_pin;
	if (!cfg->check_threads)
		cfg->check_threads = env->check_threads;
	if (!cfg->load_threads)
		cfg->load_threads = env->load_threads;
}

void btrt_env_ring_config(const struct btrt_env *env, struct btrt_ring_config *cfg)
{
	cfg->no_membarrier = env->no_membarrier;
	cfg->spin_ns = env->spin_ns;
	cfg->yield_ns = env->yield_ns;
}

/* The OpenMP runtime reads its own variables before main, so the wait
 * policy works on the environment itself (btrt_pipeline.h).
 * BTRT_OMP_ENV_DONE is btrt's own mark that the re-exec happened, not a
 * setting. */

/* An OpenMP wait setting of the user's (not btrt's own re-exec mark). */
static int omp_env_user(void)
{
	return getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") || getenv("KMP_BLOCKTIME");
}

/* The policy w asks for, as it runs: spin only with the threads pinned
 * (BTRT_NO_PIN=1 leaves every thread free to share a core). */
static enum btrt_omp_wait omp_wait_effective(enum btrt_omp_wait w)
{
	int no_pin;
	struct btrt_error err; /* a bad value: btrt_env_init reports it */
	return read_flag("BTRT_NO_PIN", &no_pin, &err) == 0 && no_pin ? BTRT_OMP_WAIT_PASSIVE : w;
}

int btrt_omp_env_init(char **argv, enum btrt_omp_wait w)
{
	if (omp_wait_effective(w) == BTRT_OMP_WAIT_SPIN || omp_env_user() ||
	    getenv("BTRT_OMP_ENV_DONE") || !argv || !argv[0])
		return 0;
	setenv("OMP_WAIT_POLICY", "passive", 1);
	setenv("BTRT_OMP_ENV_DONE", "1", 1);
	execv("/proc/self/exe", argv);
	return -1; /* exec failed: go on with the OpenMP runtime's default */
}

const char *btrt_omp_wait_name(enum btrt_omp_wait w)
{
	/* after a re-exec the policy is btrt's, though OMP_WAIT_POLICY is set */
	if (getenv("BTRT_OMP_ENV_DONE"))
		return "passive";
	if (omp_env_user())
		return "environment";
	return omp_wait_effective(w) == BTRT_OMP_WAIT_SPIN ? "spin" : "passive";
}
