/* The log of what the UI writes: one JSON line per write_function call, with
 * the atom decoded (URIDs unmapped, numbers as numbers, strings as strings),
 * so that a test reads messages, not bytes. An atom that is not well formed
 * (a size that does not add up, a string without its NUL, a property running
 * past its object) is logged with a "malformed" list saying what is wrong:
 * the test fails on it, as a plugin reading it with lv2_atom_object_get
 * could misread it. Lines are flushed one by one: a crash leaves every
 * message before it in the log. */
#include "editorhost.h"

#include <math.h>

static FILE *log_file;
static bool log_is_stdout;
static unsigned long line_number;
static double start_seconds;

bool message_log_open(const char *path)
{
    start_seconds = monotonic_seconds();
    if (strcmp(path, "-") == 0) {
        log_file = stdout;
        log_is_stdout = true;
        return true;
    }
    log_file = fopen(path, "w");
    return log_file != NULL;
}

void message_log_close(void)
{
    if (log_file && !log_is_stdout) fclose(log_file);
    log_file = NULL;
}

/* Valid UTF-8 passes through; other bytes become \u00XX (Latin-1). */
static size_t utf8_sequence_length(const unsigned char *p, size_t left)
{
    size_t n;
    if (p[0] < 0x80) return 1;
    else if ((p[0] & 0xe0) == 0xc0 && p[0] >= 0xc2) n = 2;
    else if ((p[0] & 0xf0) == 0xe0) n = 3;
    else if ((p[0] & 0xf8) == 0xf0 && p[0] <= 0xf4) n = 4;
    else return 0;
    if (n > left) return 0;
    for (size_t i = 1; i < n; ++i)
        if ((p[i] & 0xc0) != 0x80) return 0;
    return n;
}

void json_write_string(FILE *out, const char *text, size_t length)
{
    const unsigned char *p = (const unsigned char *)text;
    fputc('"', out);
    size_t i = 0;
    while (i < length) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') { fputc('\\', out); fputc(c, out); ++i; continue; }
        if (c == '\n') { fputs("\\n", out); ++i; continue; }
        if (c == '\t') { fputs("\\t", out); ++i; continue; }
        if (c == '\r') { fputs("\\r", out); ++i; continue; }
        if (c < 0x20) { fprintf(out, "\\u%04x", c); ++i; continue; }
        size_t n = utf8_sequence_length(p + i, length - i);
        if (n == 0) { fprintf(out, "\\u%04x", c); ++i; continue; }
        fwrite(p + i, 1, n, out);
        i += n;
    }
    fputc('"', out);
}

static void json_uri(FILE *out, LV2_URID urid)
{
    const char *uri = urid_unmap(urid);
    if (uri) json_write_string(out, uri, strlen(uri));
    else fprintf(out, "\"(unmapped URID %u)\"", urid);
}

static void json_double(FILE *out, double value)
{
    if (isfinite(value)) fprintf(out, "%.17g", value);
    else fprintf(out, "\"%s\"", isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
}

/* What is wrong with the atom, as a list of short texts. */
typedef struct {
    char text[512];
    size_t used;
} Problems;

static void problem(Problems *problems, const char *what)
{
    size_t n = strlen(what);
    if (problems->used + n + 2 >= sizeof problems->text) return;
    if (problems->used) problems->text[problems->used++] = '\n';
    memcpy(problems->text + problems->used, what, n);
    problems->used += n;
    problems->text[problems->used] = 0;
}

static void decode_value(FILE *out, LV2_URID type, uint32_t size, const uint8_t *body, Problems *problems, int depth);

/* An object's body: its id, its class and its properties in order. */
static void decode_object(FILE *out, uint32_t size, const uint8_t *body, Problems *problems, int depth)
{
    if (size < sizeof(LV2_Atom_Object_Body)) {
        problem(problems, "an object shorter than its header");
        fputs("null", out);
        return;
    }
    LV2_Atom_Object_Body header = LOAD(LV2_Atom_Object_Body, body);
    fprintf(out, "{\"id\":%u,\"otype\":", header.id);
    json_uri(out, header.otype);
    fputs(",\"properties\":[", out);
    uint32_t offset = sizeof(LV2_Atom_Object_Body);
    bool first = true;
    while (offset < size) {
        if (size - offset < sizeof(LV2_Atom_Property_Body)) {
            problem(problems, "bytes after the last property, fewer than a property header");
            break;
        }
        LV2_Atom_Property_Body property = LOAD(LV2_Atom_Property_Body, body + offset);
        uint32_t value_offset = offset + (uint32_t)sizeof(LV2_Atom_Property_Body);
        if (property.value.size > size - value_offset) {
            problem(problems, "a property's value runs past the end of its object");
            break;
        }
        fputs(first ? "{\"key\":" : ",{\"key\":", out);
        first = false;
        json_uri(out, property.key);
        if (property.context) fprintf(out, ",\"context\":%u", property.context);
        fputs(",\"type\":", out);
        json_uri(out, property.value.type);
        fputs(",\"value\":", out);
        decode_value(out, property.value.type, property.value.size, body + value_offset, problems, depth + 1);
        fputc('}', out);
        offset = value_offset + lv2_atom_pad_size(property.value.size);
    }
    fputs("]}", out);
}

static void decode_value(FILE *out, LV2_URID type, uint32_t size, const uint8_t *body, Problems *problems, int depth)
{
    const char *uri = urid_unmap(type);
    if (!uri) uri = "";
    if (depth > 8) {
        problem(problems, "atoms nested more than 8 deep");
        fputs("null", out);
        return;
    }
#define SIZED(n) if (size != (n)) { problem(problems, "a number atom of the wrong size"); fputs("null", out); return; }
    if (!strcmp(uri, LV2_ATOM__Object) || !strcmp(uri, LV2_ATOM__Blank) || !strcmp(uri, LV2_ATOM__Resource)) {
        decode_object(out, size, body, problems, depth);
    } else if (!strcmp(uri, LV2_ATOM__Int)) {
        SIZED(4) fprintf(out, "%d", LOAD(int32_t, body));
    } else if (!strcmp(uri, LV2_ATOM__Long)) {
        SIZED(8) fprintf(out, "%lld", (long long)LOAD(int64_t, body));
    } else if (!strcmp(uri, LV2_ATOM__Bool)) {
        SIZED(4) fputs(LOAD(int32_t, body) ? "true" : "false", out);
    } else if (!strcmp(uri, LV2_ATOM__Float)) {
        SIZED(4) json_double(out, LOAD(float, body));
    } else if (!strcmp(uri, LV2_ATOM__Double)) {
        SIZED(8) json_double(out, LOAD(double, body));
    } else if (!strcmp(uri, LV2_ATOM__URID)) {
        SIZED(4) json_uri(out, LOAD(uint32_t, body));
    } else if (!strcmp(uri, LV2_ATOM__String) || !strcmp(uri, LV2_ATOM__Path) || !strcmp(uri, LV2_ATOM__URI)) {
        if (size == 0 || body[size - 1] != 0) problem(problems, "a string without its terminating NUL");
        size_t length = strnlen((const char *)body, size);
        if (size > 0 && length + 1 < size) problem(problems, "a string with a NUL before its end");
        json_write_string(out, (const char *)body, length);
    } else {
        fprintf(out, "{\"bytes\":%u}", size);
    }
#undef SIZED
}

static double elapsed_ms(void) { return (monotonic_seconds() - start_seconds) * 1000; }

void message_log_write(int instance, uint32_t port, uint32_t size, uint32_t format, const void *buffer)
{
    if (!log_file) return;
    Problems problems = {{0}, 0};
    FILE *out = log_file;
    fprintf(out, "{\"n\":%lu,\"ms\":%.1f,\"event\":\"write\",\"instance\":%d,\"port\":%u,\"format\":",
            ++line_number, elapsed_ms(), instance, port);
    if (format == 0) fputs("0", out);
    else json_uri(out, format);
    fprintf(out, ",\"size\":%u", size);
    const char *format_uri = format ? urid_unmap(format) : NULL;
    if (!buffer) {
        problem(&problems, "a NULL buffer");
    } else if (format == 0) {
        if (size != sizeof(float)) problem(&problems, "a float write whose size is not 4");
        else { fputs(",\"float\":", out); json_double(out, LOAD(float, buffer)); }
    } else if (format_uri && (!strcmp(format_uri, LV2_ATOM__eventTransfer) || !strcmp(format_uri, LV2_ATOM__atomTransfer))) {
        LV2_Atom atom = LOAD(LV2_Atom, buffer);
        if (size < sizeof(LV2_Atom)) {
            problem(&problems, "fewer bytes than an atom header");
        } else {
            if (size != sizeof(LV2_Atom) + atom.size) problem(&problems, "the size passed is not the atom's size");
            uint32_t body_size = atom.size <= size - sizeof(LV2_Atom) ? atom.size : size - (uint32_t)sizeof(LV2_Atom);
            fputs(",\"type\":", out);
            json_uri(out, atom.type);
            fputs(",\"atom\":", out);
            decode_value(out, atom.type, body_size, (const uint8_t *)buffer + sizeof(LV2_Atom), &problems, 0);
        }
    } else {
        problem(&problems, "a format the editor does not use");
    }
    if (problems.used) {
        fputs(",\"malformed\":", out);
        json_write_string(out, problems.text, problems.used);
    }
    fputs("}\n", out);
    fflush(out);
}

void message_log_event(const char *name, int instance, const char *extra)
{
    if (!log_file) return;
    fprintf(log_file, "{\"n\":%lu,\"ms\":%.1f,\"event\":", ++line_number, elapsed_ms());
    json_write_string(log_file, name, strlen(name));
    fprintf(log_file, ",\"instance\":%d%s}\n", instance, extra ? extra : "");
    fflush(log_file);
}

FILE *message_log_file(void) { return log_file; }

void message_log_notify(int instance, uint64_t frame, const LV2_Atom *atom)
{
    if (!log_file) return;
    Problems problems = {{0}, 0};
    FILE *out = log_file;
    fprintf(out, "{\"n\":%lu,\"ms\":%.1f,\"event\":\"notify\",\"instance\":%d,\"frame\":%llu,\"type\":",
            ++line_number, elapsed_ms(), instance, (unsigned long long)frame);
    json_uri(out, atom->type);
    fputs(",\"atom\":", out);
    decode_value(out, atom->type, atom->size, (const uint8_t *)(atom + 1), &problems, 0);
    if (problems.used) {
        fputs(",\"malformed\":", out);
        json_write_string(out, problems.text, problems.used);
    }
    fputs("}\n", out);
    fflush(out);
}
