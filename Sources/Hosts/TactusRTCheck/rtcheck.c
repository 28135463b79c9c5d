/*
 * A realtime-safety check, preloaded into a host with LD_PRELOAD: it replaces
 * the C allocator and the pthread locking calls with versions that count the
 * calls a thread makes between tactus_rtcheck_begin() and tactus_rtcheck_end()
 * (the host brackets each run() with them), then do the real work.
 *
 * The allocator calls forward to glibc's __libc_* entry points, which avoids
 * the classic trap of dlsym() allocating while the allocator is being looked
 * up. The lock calls forward to the next definition found by dlsym().
 */
#define _GNU_SOURCE
#include "TactusRTCheck.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);

static __thread int armed;
static atomic_long allocations;
static atomic_long locks;
static _Atomic(const char *) first = "";
static _Atomic(void *) first_caller;

/* Remembers the first counted call and who made it (the report names the caller's function). */
static void note_first(const char *name, void *caller)
{
    const char *none = "";
    if (atomic_compare_exchange_strong(&first, &none, name)) atomic_store(&first_caller, caller);
}

#define count_allocation(name)                                      \
    do {                                                            \
        if (armed) {                                                \
            note_first(name, __builtin_return_address(0));          \
            atomic_fetch_add(&allocations, 1);                      \
        }                                                           \
    } while (0)

#define count_lock(name)                                            \
    do {                                                            \
        if (armed) {                                                \
            note_first(name, __builtin_return_address(0));          \
            atomic_fetch_add(&locks, 1);                            \
        }                                                           \
    } while (0)

void tactus_rtcheck_begin(void) { armed = 1; }
void tactus_rtcheck_end(void) { armed = 0; }
long tactus_rtcheck_allocations(void) { return atomic_load(&allocations); }
long tactus_rtcheck_locks(void) { return atomic_load(&locks); }
const char *tactus_rtcheck_first(void) { return atomic_load(&first); }
void *tactus_rtcheck_first_caller(void) { return atomic_load(&first_caller); }

void *malloc(size_t size) { count_allocation("malloc"); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { count_allocation("calloc"); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { count_allocation("realloc"); return __libc_realloc(pointer, size); }
void free(void *pointer) { count_allocation("free"); __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { count_allocation("memalign"); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count_allocation("aligned_alloc"); return __libc_memalign(alignment, size); }
void *valloc(size_t size) { count_allocation("valloc"); return __libc_valloc(size); }

int posix_memalign(void **result, size_t alignment, size_t size)
{
    count_allocation("posix_memalign");
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *result = p;
    return 0;
}

#define FORWARD(ret, name, params, args)                         \
    ret name params                                              \
    {                                                            \
        static ret(*real) params;                                \
        count_lock(#name);                                       \
        if (!real) real = (ret(*) params)dlsym(RTLD_NEXT, #name); \
        return real args;                                        \
    }

FORWARD(int, pthread_mutex_lock, (pthread_mutex_t *m), (m))
FORWARD(int, pthread_mutex_trylock, (pthread_mutex_t *m), (m))
FORWARD(int, pthread_mutex_timedlock, (pthread_mutex_t *m, const struct timespec *t), (m, t))
FORWARD(int, pthread_rwlock_rdlock, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_rwlock_wrlock, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_spin_lock, (pthread_spinlock_t *l), (l))
FORWARD(int, pthread_cond_wait, (pthread_cond_t *c, pthread_mutex_t *m), (c, m))
FORWARD(int, sem_wait, (sem_t *s), (s))
