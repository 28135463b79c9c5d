/*
 * The CLAP headers (the plugin ABI, version 1.1), for the CLAP glue and the
 * project's CLAP test host. Not copied into the repository: Debian ships them
 * in dpf-source (/usr/share/dpf/distrho/src/clap, without the umbrella
 * clap.h, so the headers are named one by one); other distributions ship the
 * CLAP SDK's own headers as <clap/clap.h> (Fedora: clap-devel, Arch: clap).
 * scripts/install-deps installs dpf-source.
 */
#ifndef TACTUS_CCLAP_H
#define TACTUS_CCLAP_H

#if __has_include(<clap/clap.h>)
#include <clap/clap.h>
#elif __has_include("/usr/share/dpf/distrho/src/clap/entry.h")
#include "/usr/share/dpf/distrho/src/clap/entry.h"
#include "/usr/share/dpf/distrho/src/clap/plugin-factory.h"
#include "/usr/share/dpf/distrho/src/clap/plugin-features.h"
#include "/usr/share/dpf/distrho/src/clap/ext/note-ports.h"
#include "/usr/share/dpf/distrho/src/clap/ext/params.h"
#include "/usr/share/dpf/distrho/src/clap/ext/state.h"
#include "/usr/share/dpf/distrho/src/clap/ext/latency.h"
#include "/usr/share/dpf/distrho/src/clap/ext/gui.h"
#include "/usr/share/dpf/distrho/src/clap/ext/timer-support.h"
#else
#error "The CLAP headers are missing: install dpf-source (Debian), clap-devel (Fedora) or clap (Arch)."
#endif

#include <stdint.h>

/* The fixed point of clap_beattime (fixedpoint.h's CLAP_BEATTIME_FACTOR, a
 * `static const` that Swift imports only as a variable): 2^31 a quarter note. */
#define TACTUS_CLAP_BEATTIME_SHIFT 31

/*
 * The calls process() makes through the host's event lists. CLAP requires
 * them to be realtime-safe (they are called from the audio thread by
 * design); they are function pointers, which Swift's `@_noLocks` checker
 * cannot see through, so these wrappers carry the attribute.
 */
#define TACTUS_CLAP_RT __attribute__((swift_attr("@_noLocks"))) static inline

TACTUS_CLAP_RT uint32_t tactus_clap_input_size(const clap_input_events_t *list)
{
    return list && list->size ? list->size(list) : 0;
}
TACTUS_CLAP_RT const clap_event_header_t *tactus_clap_input_get(const clap_input_events_t *list, uint32_t index)
{
    return list->get ? list->get(list, index) : 0;
}
TACTUS_CLAP_RT bool tactus_clap_output_push(const clap_output_events_t *list, const clap_event_header_t *event)
{
    return list && list->try_push ? list->try_push(list, event) : false;
}


#endif
