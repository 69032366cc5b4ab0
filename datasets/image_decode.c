/* Image decoding and resizing with gdk-pixbuf (see image_decode.h). */
#include "image_decode.h"

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

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

/* PNG or JPEG (whatever the name says: gdk-pixbuf sniffs the content, and
 * its other loaders are not for outside data here), within the size limits. */
static GdkPixbuf *load(const char *path, char **problem)
{
    GStatBuf sb;
    if (g_stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        *problem = g_strdup("not a readable regular file");
        return NULL;
    }
    if ((uint64_t)sb.st_size > RF_IMAGE_MAX_FILE) {
        *problem = g_strdup_printf("%lld bytes; an image file is at most %llu", (long long)sb.st_size,
                                   (unsigned long long)RF_IMAGE_MAX_FILE);
        return NULL;
    }
    int w = 0, h = 0;
    GdkPixbufFormat *format = gdk_pixbuf_get_file_info(path, &w, &h);
    g_autofree char *name = format != NULL ? gdk_pixbuf_format_get_name(format) : NULL;
    if (name == NULL || (strcmp(name, "png") != 0 && strcmp(name, "jpeg") != 0)) {
        *problem = name != NULL ? g_strdup_printf("not a PNG or JPEG image (it reads as %s)", name)
                                : g_strdup("not a PNG or JPEG image");
        return NULL;
    }
    if (w < 1 || h < 1 || (int64_t)w * h > RF_IMAGE_MAX_PIXELS) {
        *problem = g_strdup_printf("%dx%d pixels; an image has at most %lld", w, h, (long long)RF_IMAGE_MAX_PIXELS);
        return NULL;
    }
    /* gdk-pixbuf picks the loader from the same leading bytes as above */
    GError *err = NULL;
    GdkPixbuf *img = gdk_pixbuf_new_from_file(path, &err);
    if (img == NULL) {
        *problem = g_strdup(err->message);
        g_error_free(err);
        return NULL;
    }
    if ((int64_t)gdk_pixbuf_get_width(img) * gdk_pixbuf_get_height(img) > RF_IMAGE_MAX_PIXELS) {
        *problem = g_strdup("the image is larger than its header said");
        g_object_unref(img);
        return NULL;
    }
    return img;
}

bool rf_image_decode(const char *path, int side, int channels, uint8_t *out, char **problem)
{
    GdkPixbuf *src = load(path, problem);
    if (src == NULL)
        return false;
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
