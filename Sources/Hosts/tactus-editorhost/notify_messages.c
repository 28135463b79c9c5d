/* What the plugin sends on its notify port (docs/plugin.md, "The editor"),
 * built with lv2_atom_forge the way any LV2 code would, in the layout the
 * plugin uses (Sources/TactusLV2/AtomWriter.swift): a patch:Set carries
 * patch:property, then patch:sequenceNumber when there is one, then
 * patch:value. Each message gets a buffer of its own, as large as it needs:
 * the editor must cope with a pattern larger than it may send back. */
#include "editorhost.h"

typedef struct {
    LV2_Atom_Forge forge;
    LV2_Atom_Forge_Frame frame;
} Builder;

static bool begin(NotifyMessage *message, Builder *builder, size_t capacity, const char *otype)
{
    message->storage = malloc(capacity);
    message->atom = NULL;
    if (!message->storage) return false;
    lv2_atom_forge_init(&builder->forge, &urid_map_feature);
    lv2_atom_forge_set_buffer(&builder->forge, message->storage, capacity);
    LV2_Atom_Forge_Ref ref = lv2_atom_forge_object(&builder->forge, &builder->frame, 0, urid_map(otype));
    message->atom = (const LV2_Atom *)lv2_atom_forge_deref(&builder->forge, ref);
    return ref != 0;
}

static bool finish(NotifyMessage *message, Builder *builder, bool written)
{
    lv2_atom_forge_pop(&builder->forge, &builder->frame);
    if (!written) notify_message_free(message);
    return written;
}

static bool patch_set_header(Builder *builder, const char *property)
{
    return lv2_atom_forge_key(&builder->forge, urid_map(LV2_PATCH__property))
        && lv2_atom_forge_urid(&builder->forge, urid_map(property));
}

static bool patch_set_text(NotifyMessage *message, const char *property, const char *type, const char *text, size_t length,
                           int32_t sequence_number)
{
    Builder builder;
    if (!begin(message, &builder, length + 256, LV2_PATCH__Set)) return false;
    bool ok = patch_set_header(&builder, property);
    if (ok && sequence_number != 0)
        ok = lv2_atom_forge_key(&builder.forge, urid_map(LV2_PATCH__sequenceNumber))
            && lv2_atom_forge_int(&builder.forge, sequence_number);
    ok = ok && lv2_atom_forge_key(&builder.forge, urid_map(LV2_PATCH__value))
        && lv2_atom_forge_typed_string(&builder.forge, urid_map(type), text, (uint32_t)length);
    return finish(message, &builder, ok);
}

bool notify_pattern(NotifyMessage *message, const char *text, size_t length, int32_t sequence_number)
{
    return patch_set_text(message, tactus_uri_pattern, LV2_ATOM__String, text, length, sequence_number);
}

bool notify_error(NotifyMessage *message, const char *text)
{
    return patch_set_text(message, tactus_uri_error, LV2_ATOM__String, text, strlen(text), 0);
}

bool notify_pattern_file(NotifyMessage *message, const char *path)
{
    return patch_set_text(message, tactus_uri_patternFile, LV2_ATOM__Path, path, strlen(path), 0);
}

bool notify_dropped(NotifyMessage *message, int64_t count)
{
    Builder builder;
    if (!begin(message, &builder, 256, LV2_PATCH__Set)) return false;
    bool ok = patch_set_header(&builder, tactus_uri_droppedNoteOns)
        && lv2_atom_forge_key(&builder.forge, urid_map(LV2_PATCH__value)) && lv2_atom_forge_long(&builder.forge, count);
    return finish(message, &builder, ok);
}

bool notify_playhead(NotifyMessage *message, double beat, double bpm, double speed, double beats_per_bar)
{
    Builder builder;
    if (!begin(message, &builder, 256, tactus_uri_playhead)) return false;
    bool ok = lv2_atom_forge_key(&builder.forge, urid_map(LV2_TIME__beat)) && lv2_atom_forge_double(&builder.forge, beat)
        && lv2_atom_forge_key(&builder.forge, urid_map(LV2_TIME__beatsPerMinute)) && lv2_atom_forge_double(&builder.forge, bpm)
        && lv2_atom_forge_key(&builder.forge, urid_map(LV2_TIME__speed)) && lv2_atom_forge_double(&builder.forge, speed);
    if (ok && beats_per_bar == beats_per_bar)  /* not NaN: the plugin knows the meter */
        ok = lv2_atom_forge_key(&builder.forge, urid_map(LV2_TIME__beatsPerBar)) && lv2_atom_forge_double(&builder.forge, beats_per_bar);
    return finish(message, &builder, ok);
}

bool notify_scene(NotifyMessage *message, int32_t playing, int32_t queued, double switch_beat, int32_t song_entry, double origin)
{
    Builder builder;
    if (!begin(message, &builder, 256, tactus_uri_scene)) return false;
    bool ok = lv2_atom_forge_key(&builder.forge, urid_map(tactus_uri_playing)) && lv2_atom_forge_int(&builder.forge, playing)
        && lv2_atom_forge_key(&builder.forge, urid_map(tactus_uri_queued)) && lv2_atom_forge_int(&builder.forge, queued);
    if (ok && switch_beat == switch_beat)  /* not NaN: a pattern is queued */
        ok = lv2_atom_forge_key(&builder.forge, urid_map(tactus_uri_switchBeat)) && lv2_atom_forge_double(&builder.forge, switch_beat);
    ok = ok && lv2_atom_forge_key(&builder.forge, urid_map(tactus_uri_songEntry)) && lv2_atom_forge_int(&builder.forge, song_entry)
        && lv2_atom_forge_key(&builder.forge, urid_map(tactus_uri_origin)) && lv2_atom_forge_double(&builder.forge, origin);
    return finish(message, &builder, ok);
}

void notify_message_free(NotifyMessage *message)
{
    free(message->storage);
    message->storage = NULL;
    message->atom = NULL;
}
