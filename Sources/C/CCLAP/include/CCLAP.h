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

#endif
