/* Alternate signal stacks for the threads that run kernels
 * (btrt_watchdog.h, btrt_watch_thread_prepare): the crash handler runs
 * there, so that a kernel which overflows its stack (the fault is on the
 * stack's guard page, with no stack left for a handler) is still named.
 * A thread the kernel code itself starts inherits one: OpenMP workers
 * beyond a CPU PU's prepared team, a nested team's workers, a kernel's
 * own pthread (docs/runtime.md, "Faults in kernels, and a stop that
 * hangs"). */
#include "btrt_watchdog.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The size of each alternate stack: the handler's frames and its static
 * message buffers' callers, with room to spare. */
#define ALT_STACK_BYTES (64 * 1024)
/* A SIGSEGV at most this far below a thread's stack (or in its lowest
 * page) is taken for a stack overflow: a frame larger than the guard page
 * skips it and faults further down. */
#define OVERFLOW_REACH (1u << 20)

static _Thread_local void *alt_stack;
/* Where the calling thread's own stack ends (pthread_getattr_np; for the
 * main thread glibc derives it from RLIMIT_STACK); 0: unknown. */
static _Thread_local uintptr_t stack_lo;

static pthread_key_t alt_key;
static pthread_once_t alt_once = PTHREAD_ONCE_INIT;

/* At a prepared thread's end (an OpenMP worker of a pool that goes with
 * its dispatcher): its alternate stack is unmapped. */
static void alt_stack_free(void *p)
{
	stack_t off = {.ss_flags = SS_DISABLE};
	if (sigaltstack(&off, NULL) == 0)
		munmap(p, ALT_STACK_BYTES);
}

static void alt_key_create(void)
{
	if (pthread_key_create(&alt_key, alt_stack_free) != 0)
		alt_key = (pthread_key_t)-1;
}

void btrt_watch_thread_prepare(void)
{
	if (alt_stack)
		return;
	pthread_once(&alt_once, alt_key_create);
	void *p = mmap(NULL, ALT_STACK_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (p != MAP_FAILED) {
		stack_t ss = {.ss_sp = p, .ss_size = ALT_STACK_BYTES, .ss_flags = 0};
		if (sigaltstack(&ss, NULL) == 0)
			alt_stack = p;
		else
			munmap(p, ALT_STACK_BYTES);
	}
	if (alt_stack && alt_key != (pthread_key_t)-1)
		pthread_setspecific(alt_key, alt_stack);
	uintptr_t lo = 0;
#ifdef __linux__
	pthread_attr_t a;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		void *addr;
		size_t size;
		if (pthread_attr_getstack(&a, &addr, &size) == 0)
			lo = (uintptr_t)addr;
		pthread_attr_destroy(&a);
	}
#endif
	stack_lo = lo;
}

void btrt_watch_thread_release(void)
{
	stack_lo = 0;
	if (alt_stack) {
		if (alt_key != (pthread_key_t)-1)
			pthread_setspecific(alt_key, NULL);
		alt_stack_free(alt_stack);
		alt_stack = NULL;
	}
}

int btrt_watch_stack_overflow_at(uintptr_t addr)
{
	uintptr_t lo = stack_lo;
	return lo && addr < lo + 4096 && addr + OVERFLOW_REACH >= lo;
}

/* ---- threads started by kernel code inherit an alternate stack ---------
 * libgomp (and any kernel) starts its threads with pthread_create, which
 * the program defines here over libc's (an unversioned definition in the
 * executable interposes the libraries' calls): a thread created by a
 * prepared thread (a dispatcher, an OpenMP worker) is prepared before its
 * start routine runs. Everyone else's threads (the io threads, Vulkan's
 * and CUDA's) start as before. glibc only; not under a sanitizer, whose
 * runtime intercepts pthread_create itself (its workers go unprepared,
 * and the sanitizer reports their overflow). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BTRT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BTRT_SANITIZED 1
#endif
#endif

#if defined(__GLIBC__) && !defined(BTRT_SANITIZED)
typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

struct inherit {
	void *(*start)(void *);
	void *arg;
};

static void *inherit_start(void *p)
{
	struct inherit in = *(struct inherit *)p;
	free(p);
	btrt_watch_thread_prepare();
	return in.start(in.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
	static _Atomic(create_fn *) real;
	create_fn *f = atomic_load_explicit(&real, memory_order_acquire);
	if (!f) {
		void *sym = dlsym(RTLD_NEXT, "pthread_create");
		if (!sym)
			abort(); /* no libc pthread_create: nothing can run */
		memcpy(&f, &sym, sizeof f); /* POSIX: a function's address */
		atomic_store_explicit(&real, f, memory_order_release);
	}
	struct inherit *in = alt_stack ? malloc(sizeof *in) : NULL;
	if (!in)
		return f(t, attr, start, arg);
	*in = (struct inherit){start, arg};
	int rc = f(t, attr, inherit_start, in);
	if (rc)
		free(in);
	return rc;
}
#endif
