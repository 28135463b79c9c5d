/* The host's URID map: a table of the URIs seen, URID n being entry n - 1.
 * A linear search: an editor maps a few dozen URIs, once each, at instantiate. */
#include "editorhost.h"

static char **uris;
static size_t count, capacity;

LV2_URID urid_map(const char *uri)
{
    if (!uri) return 0;
    for (size_t i = 0; i < count; ++i)
        if (strcmp(uris[i], uri) == 0) return (LV2_URID)(i + 1);
    if (count == capacity) {
        size_t grown = capacity ? capacity * 2 : 64;
        char **bigger = realloc(uris, grown * sizeof *bigger);
        if (!bigger) return 0;
        uris = bigger;
        capacity = grown;
    }
    char *copy = strdup(uri);
    if (!copy) return 0;
    uris[count++] = copy;
    return (LV2_URID)count;
}

const char *urid_unmap(LV2_URID urid)
{
    return urid >= 1 && urid <= count ? uris[urid - 1] : NULL;
}

static LV2_URID map_callback(LV2_URID_Map_Handle handle, const char *uri)
{
    (void)handle;
    return urid_map(uri);
}

static const char *unmap_callback(LV2_URID_Unmap_Handle handle, LV2_URID urid)
{
    (void)handle;
    return urid_unmap(urid);
}

LV2_URID_Map urid_map_feature = {NULL, map_callback};
LV2_URID_Unmap urid_unmap_feature = {NULL, unmap_callback};

void urid_table_free(void)
{
    for (size_t i = 0; i < count; ++i) free(uris[i]);
    free(uris);
    uris = NULL;
    count = capacity = 0;
}
