/* The editor's descriptor and idle interface: constant tables pointing at the
 * Swift entry points (@_cdecl in Sources/TactusUI/EditorEntry.swift), as the
 * plugin's descriptor is (Sources/CLV2Descriptor). */
#include "CLV2UI.h"

const char *const tactus_uri_ui_parent = LV2_UI__parent;
const char *const tactus_uri_ui_resize = LV2_UI__resize;
const char *const tactus_uri_options_options = LV2_OPTIONS__options;
const char *const tactus_uri_ui_scaleFactor = LV2_UI__scaleFactor;

LV2UI_Handle tactus_editor_instantiate(const LV2UI_Descriptor *descriptor, const char *plugin_uri,
                                       const char *bundle_path, LV2UI_Write_Function write_function,
                                       LV2UI_Controller controller, LV2UI_Widget *widget,
                                       const LV2_Feature *const *features);
void tactus_editor_cleanup(LV2UI_Handle ui);
void tactus_editor_port_event(LV2UI_Handle ui, uint32_t port, uint32_t size, uint32_t format, const void *buffer);
int tactus_editor_idle(LV2UI_Handle ui);
int64_t tactus_editor_text(void *ui, uint8_t *buffer, uint64_t capacity);

static const LV2UI_Idle_Interface idle_interface = {tactus_editor_idle};
static const TactusEditorText text_interface = {tactus_editor_text};

static const void *extension_data(const char *uri)
{
    if (uri && strcmp(uri, LV2_UI__idleInterface) == 0) return &idle_interface;
    if (uri && strcmp(uri, TACTUS_EDITOR_TEXT_URI) == 0) return &text_interface;
    return NULL;
}

static const LV2UI_Descriptor descriptor = {
    TACTUS_EDITOR_URI, tactus_editor_instantiate, tactus_editor_cleanup, tactus_editor_port_event, extension_data,
};

LV2_SYMBOL_EXPORT const LV2UI_Descriptor *lv2ui_descriptor(uint32_t index)
{
    return index == 0 ? &descriptor : NULL;
}
