/* Pixels of the UI's window, read back from the X server through the host's
 * own connection (XGetImage): what a person would see there, not what the
 * UI believes it drew. */
#include "editorhost.h"

#include <cairo/cairo.h>

/* A channel of a TrueColor pixel, scaled to 0-255. */
static int channel(unsigned long pixel, unsigned long mask)
{
    if (!mask) return 0;
    int shift = 0;
    while (!((mask >> shift) & 1)) ++shift;
    unsigned long max = mask >> shift;
    return (int)(((pixel & mask) >> shift) * 255 / max);
}

static XImage *window_image(Display *display, Window window, int x, int y, unsigned width, unsigned height, Visual **visual)
{
    XWindowAttributes attributes;
    if (!XGetWindowAttributes(display, window, &attributes)) return NULL;
    if (attributes.map_state != IsViewable) {
        fprintf(stderr, "tactus-editorhost: window 0x%lx is not viewable\n", window);
        return NULL;
    }
    if (x < 0 || y < 0 || x + (int)width > attributes.width || y + (int)height > attributes.height) {
        fprintf(stderr, "tactus-editorhost: %ux%u at (%d, %d) is outside the %dx%d window\n", width, height, x, y,
                attributes.width, attributes.height);
        return NULL;
    }
    if (attributes.visual->class != TrueColor) {
        fprintf(stderr, "tactus-editorhost: window 0x%lx has no TrueColor visual\n", window);
        return NULL;
    }
    *visual = attributes.visual;
    return XGetImage(display, window, x, y, width, height, AllPlanes, ZPixmap);
}

bool window_pixel(Display *display, Window window, int x, int y, int rgb[3])
{
    Visual *visual;
    XImage *image = window_image(display, window, x, y, 1, 1, &visual);
    if (!image) return false;
    unsigned long pixel = XGetPixel(image, 0, 0);
    rgb[0] = channel(pixel, visual->red_mask);
    rgb[1] = channel(pixel, visual->green_mask);
    rgb[2] = channel(pixel, visual->blue_mask);
    XDestroyImage(image);
    return true;
}

bool window_count(Display *display, Window window, int x, int y, int width, int height, const int rgb[3], int tolerance,
                  long *count)
{
    Visual *visual;
    if (width <= 0 || height <= 0) return false;
    XImage *image = window_image(display, window, x, y, (unsigned)width, (unsigned)height, &visual);
    if (!image) return false;
    *count = 0;
    for (int j = 0; j < height; ++j)
        for (int i = 0; i < width; ++i) {
            unsigned long pixel = XGetPixel(image, i, j);
            if (abs(channel(pixel, visual->red_mask) - rgb[0]) <= tolerance
                && abs(channel(pixel, visual->green_mask) - rgb[1]) <= tolerance
                && abs(channel(pixel, visual->blue_mask) - rgb[2]) <= tolerance)
                ++*count;
        }
    XDestroyImage(image);
    return true;
}

bool window_screenshot(Display *display, Window window, const char *path)
{
    XWindowAttributes attributes;
    if (!XGetWindowAttributes(display, window, &attributes)) return false;
    Visual *visual;
    XImage *image = window_image(display, window, 0, 0, (unsigned)attributes.width, (unsigned)attributes.height, &visual);
    if (!image) return false;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, attributes.width, attributes.height);
    bool ok = cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS;
    if (ok) {
        cairo_surface_flush(surface);
        unsigned char *data = cairo_image_surface_get_data(surface);
        int stride = cairo_image_surface_get_stride(surface);
        for (int y = 0; y < attributes.height; ++y) {
            uint32_t *row = (uint32_t *)(data + (size_t)y * (size_t)stride);
            for (int x = 0; x < attributes.width; ++x) {
                unsigned long pixel = XGetPixel(image, x, y);
                row[x] = (uint32_t)channel(pixel, visual->red_mask) << 16 | (uint32_t)channel(pixel, visual->green_mask) << 8
                    | (uint32_t)channel(pixel, visual->blue_mask);
            }
        }
        cairo_surface_mark_dirty(surface);
        cairo_status_t status = cairo_surface_write_to_png(surface, path);
        if (status != CAIRO_STATUS_SUCCESS) {
            fprintf(stderr, "tactus-editorhost: cannot write %s: %s\n", path, cairo_status_to_string(status));
            ok = false;
        }
    }
    cairo_surface_destroy(surface);
    XDestroyImage(image);
    return ok;
}
