/*
 * Tactus host-test probe: logs what a host delivers to a plugin's control
 * input (time:Position objects, with every key's atom type and value, and
 * MIDI) with the frame it arrived at, counted like a plugin counts frames.
 * Output lines, in transport-script syntax:
 *
 *     FRAME position frame=0:l speed=1:f bar=0:l barBeat=0:f ... [blank]
 *     FRAME midi 90 3c 64
 *
 * Test-only: it formats text in run(), which a product plugin must not do.
 * Lines are kept in memory and written at deactivate and cleanup.
 */
#include <lv2/atom/atom.h>
#include <lv2/atom/util.h>
#include <lv2/core/lv2.h>
#include <lv2/midi/midi.h>
#include <lv2/time/time.h>
#include <lv2/urid/urid.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_CAPACITY (64u << 20)

typedef struct {
    LV2_URID object, blank, sequence, midi, position, integer, longint, real, dbl;
    LV2_URID keys[8];
    const char *names[8];
    const LV2_Atom_Sequence *in;
    LV2_Atom_Sequence *out;
    int64_t frames;
    char *log;
    size_t used;
} Probe;

static LV2_Handle instantiate(const LV2_Descriptor *d, double rate, const char *path,
                              const LV2_Feature *const *features)
{
    (void)d; (void)rate; (void)path;
    LV2_URID_Map *map = NULL;
    for (int i = 0; features[i]; ++i)
        if (!strcmp(features[i]->URI, LV2_URID__map)) map = (LV2_URID_Map *)features[i]->data;
    if (!map) return NULL;
    Probe *p = (Probe *)calloc(1, sizeof(Probe));
    p->log = (char *)malloc(LOG_CAPACITY);
#define M(u) map->map(map->handle, u)
    p->object = M(LV2_ATOM__Object); p->blank = M(LV2_ATOM__Blank); p->sequence = M(LV2_ATOM__Sequence);
    p->midi = M(LV2_MIDI__MidiEvent); p->position = M(LV2_TIME__Position);
    p->integer = M(LV2_ATOM__Int); p->longint = M(LV2_ATOM__Long); p->real = M(LV2_ATOM__Float); p->dbl = M(LV2_ATOM__Double);
    const char *uris[8] = { LV2_TIME__frame, LV2_TIME__speed, LV2_TIME__bar, LV2_TIME__barBeat,
                            LV2_TIME__beat, LV2_TIME__beatsPerBar, LV2_TIME__beatsPerMinute, LV2_TIME__beatUnit };
    const char *names[8] = { "frame", "speed", "bar", "barBeat", "beat", "beatsPerBar", "beatsPerMinute", "beatUnit" };
    for (int i = 0; i < 8; ++i) { p->keys[i] = M(uris[i]); p->names[i] = names[i]; }
#undef M
    return p;
}

static void connect_port(LV2_Handle h, uint32_t port, void *data)
{
    Probe *p = (Probe *)h;
    if (port == 0) p->in = (const LV2_Atom_Sequence *)data;
    else if (port == 1) p->out = (LV2_Atom_Sequence *)data;
}

static void append(Probe *p, const char *format, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void append(Probe *p, const char *format, ...)
{
    if (p->used + 512 > LOG_CAPACITY) return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(p->log + p->used, LOG_CAPACITY - p->used, format, args);
    va_end(args);
    if (n > 0) p->used += (size_t)n;
}

static void run(LV2_Handle h, uint32_t n)
{
    Probe *p = (Probe *)h;
    uint32_t capacity = p->out ? p->out->atom.size : 0;
    if (p->out) {
        p->out->atom.type = p->sequence;
        p->out->atom.size = sizeof(LV2_Atom_Sequence_Body);
        p->out->body.unit = 0;
        p->out->body.pad = 0;
    }
    if (p->in) {
        LV2_ATOM_SEQUENCE_FOREACH(p->in, ev) {
            int64_t frame = p->frames + ev->time.frames;
            if (ev->body.type == p->midi) {
                const uint8_t *b = (const uint8_t *)(ev + 1);
                append(p, "%lld midi", (long long)frame);
                for (uint32_t i = 0; i < ev->body.size && i < 3; ++i) append(p, " %02x", b[i]);
                append(p, "\n");
                if (p->out && p->out->atom.size + sizeof(LV2_Atom_Event) + 8 <= capacity) {
                    LV2_Atom_Event *o = (LV2_Atom_Event *)((uint8_t *)LV2_ATOM_BODY(&p->out->atom) + p->out->atom.size);
                    memcpy(o, ev, sizeof(LV2_Atom_Event) + ev->body.size);
                    p->out->atom.size += lv2_atom_pad_size(sizeof(LV2_Atom_Event) + ev->body.size);
                }
            } else if (ev->body.type == p->object || ev->body.type == p->blank) {
                const LV2_Atom_Object *obj = (const LV2_Atom_Object *)&ev->body;
                if (obj->body.otype != p->position) continue;
                append(p, "%lld position", (long long)frame);
                LV2_ATOM_OBJECT_FOREACH(obj, prop) {
                    const char *name = NULL;
                    for (int i = 0; i < 8; ++i) if (prop->key == p->keys[i]) name = p->names[i];
                    if (!name) continue;
                    const LV2_Atom *v = &prop->value;
                    if (v->type == p->integer) append(p, " %s=%d:i", name, ((const LV2_Atom_Int *)v)->body);
                    else if (v->type == p->longint) append(p, " %s=%lld:l", name, (long long)((const LV2_Atom_Long *)v)->body);
                    else if (v->type == p->real) append(p, " %s=%.9g:f", name, (double)((const LV2_Atom_Float *)v)->body);
                    else if (v->type == p->dbl) append(p, " %s=%.17g:d", name, ((const LV2_Atom_Double *)v)->body);
                }
                append(p, ev->body.type == p->blank ? " blank\n" : "\n");
            }
        }
    }
    p->frames += n;
}

static void flush(Probe *p)
{
    const char *path = getenv("TACTUS_PROBE_LOG");
    if (!path || p->used == 0) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    fwrite(p->log, 1, p->used, f);
    fclose(f);
    p->used = 0;
}

static void deactivate(LV2_Handle h) { flush((Probe *)h); }

static void cleanup(LV2_Handle h)
{
    Probe *p = (Probe *)h;
    flush(p);
    free(p->log);
    free(p);
}

static const LV2_Descriptor descriptor = {
    "urn:tactus:hosttest:probe", instantiate, connect_port, NULL, run, deactivate, cleanup, NULL
};

LV2_SYMBOL_EXPORT const LV2_Descriptor *lv2_descriptor(uint32_t index) { return index == 0 ? &descriptor : NULL; }
