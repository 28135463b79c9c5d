#include "CCallgrind.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define TACTUS_HAVE_CALLGRIND 1
#endif
#endif

void tactus_callgrind_begin(void)
{
#ifdef TACTUS_HAVE_CALLGRIND
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
#endif
}

void tactus_callgrind_end(const char *label)
{
#ifdef TACTUS_HAVE_CALLGRIND
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT(label);
#else
    (void)label;
#endif
}
