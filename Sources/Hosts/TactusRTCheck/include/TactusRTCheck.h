/* Counts allocator and lock calls made by a thread between begin and end. Preload with LD_PRELOAD. */
void tactus_rtcheck_begin(void);
void tactus_rtcheck_end(void);
long tactus_rtcheck_allocations(void);
long tactus_rtcheck_locks(void);
const char *tactus_rtcheck_first(void);
void *tactus_rtcheck_first_caller(void);
