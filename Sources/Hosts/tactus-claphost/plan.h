/* tactus-claphost's plan mode (plan.c). */
#ifndef TACTUS_CLAPHOST_PLAN_H
#define TACTUS_CLAPHOST_PLAN_H

#include <CCLAP.h>

/* Runs the blocks of the plan at `path` through `plugin`, its MIDI to `output`
 * (`block_start` set before each block, for the log's frames); 0 when all ran. */
int plan_run(const char *path, const clap_plugin_t *plugin, const clap_output_events_t *output, long long *block_start);

#endif
