/*
 * The plugin's descriptor and extension interfaces: constant tables, as in
 * any LV2 plugin written in C, pointing at the Swift glue's entry points
 * (the @_cdecl functions in Sources/TactusLV2/Plugin.swift).
 *
 * They are C because they must never be written after the library is
 * loaded: a host may call lv2_descriptor and extension_data from several
 * threads at once. As Swift globals, one was assigned and the others
 * borrowed inout at every call, which the thread sanitizer reports as data
 * races (docs/robustness.md).
 */
#include <CLV2.h>

LV2_Handle tactus_instantiate(const LV2_Descriptor *descriptor, double sample_rate, const char *bundle_path,
                              const LV2_Feature *const *features);
void tactus_connect_port(LV2_Handle instance, uint32_t port, void *data);
void tactus_activate(LV2_Handle instance);
void tactus_run(LV2_Handle instance, uint32_t sample_count);
void tactus_deactivate(LV2_Handle instance);
void tactus_cleanup(LV2_Handle instance);
LV2_Worker_Status tactus_work(LV2_Handle instance, LV2_Worker_Respond_Function respond,
                              LV2_Worker_Respond_Handle handle, uint32_t size, const void *data);
LV2_Worker_Status tactus_work_response(LV2_Handle instance, uint32_t size, const void *body);
LV2_State_Status tactus_save(LV2_Handle instance, LV2_State_Store_Function store, LV2_State_Handle handle,
                             uint32_t flags, const LV2_Feature *const *features);
LV2_State_Status tactus_restore(LV2_Handle instance, LV2_State_Retrieve_Function retrieve, LV2_State_Handle handle,
                                uint32_t flags, const LV2_Feature *const *features);

static const LV2_Worker_Interface worker_interface = {tactus_work, tactus_work_response, NULL};
static const LV2_State_Interface state_interface = {tactus_save, tactus_restore};

static const void *tactus_extension_data(const char *uri)
{
    if (!uri) return NULL;
    if (strcmp(uri, LV2_WORKER__interface) == 0) return &worker_interface;
    if (strcmp(uri, LV2_STATE__interface) == 0) return &state_interface;
    return NULL;
}

static const LV2_Descriptor descriptor = {
    TACTUS_URI,        tactus_instantiate, tactus_connect_port, tactus_activate, tactus_run,
    tactus_deactivate, tactus_cleanup,     tactus_extension_data,
};

LV2_SYMBOL_EXPORT const LV2_Descriptor *lv2_descriptor(uint32_t index)
{
    return index == 0 ? &descriptor : NULL;
}
