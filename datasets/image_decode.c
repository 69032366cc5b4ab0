/* Image decoding and resizing with gdk-pixbuf (see image_decode.h). */
#include "image_decode.h"

#include <gdk-pixbuf/gdk-pixbuf.h>

static void to_bytes(const GdkPixbuf *img, int side, int channels, uint8_t *out)
{
    const guint8 *pixels = gdk_pixbuf_read_pixels(img);
    int stride = gdk_pixbuf_get_rowstride(img), step = gdk_pixbuf_get_n_channels(img);
    for (int y = 0; y < side; y++)
        for (int x = 0; x < side; x++) {
            const guint8 *p = pixels + (size_t)y * (size_t)stride + (size_t)(x * step);
            if (channels == 1) {
                *out++ = (uint8_t)((299u * p[0] + 587u * p[1] + 114u * p[2] + 500u) / 1000u);
            } else {
                *out++ = p[0];
                *out++ = p[1];
                *out++ = p[2];
            }
        }
}

bool rf_image_decode(const char *path, int side, int channels, uint8_t *out, char **problem)
{
    GError *err = NULL;
    GdkPixbuf *src = gdk_pixbuf_new_from_file(path, &err);
    if (src == NULL) {
        *problem = g_strdup(err->message);
        g_error_free(err);
        return false;
    }
    if (gdk_pixbuf_get_colorspace(src) != GDK_COLORSPACE_RGB || gdk_pixbuf_get_bits_per_sample(src) != 8 ||
        gdk_pixbuf_get_n_channels(src) < 3) {
        *problem = g_strdup("unsupported pixel format (expected 8-bit RGB or RGBA after decoding)");
        g_object_unref(src);
        return false;
    }
    GdkPixbuf *img = src;
    if (gdk_pixbuf_get_width(src) != side || gdk_pixbuf_get_height(src) != side)
        img = gdk_pixbuf_scale_simple(src, side, side, GDK_INTERP_BILINEAR);
    bool ok = img != NULL;
    if (ok)
        to_bytes(img, side, channels, out);
    else
        *problem = g_strdup_printf("out of memory resizing to %dx%d", side, side);
    if (img != NULL && img != src)
        g_object_unref(img);
    g_object_unref(src);
    return ok;
}
