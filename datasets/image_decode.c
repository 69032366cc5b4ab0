/* Image decoding and resizing with gdk-pixbuf (see image_decode.h). */
#include "image_decode.h"

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

bool rf_image_resize_parse(const char *name, rf_image_resize *out)
{
    static const char *const names[] = {"crop", "squash", "pad"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (rf_image_resize)i;
            return true;
        }
    return false;
}

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

/* The scale from a w x h picture to the square: crop fills it with the
 * shorter side, pad fits the longer one in it. */
static double fit_scale(int w, int h, const rf_image_options *o)
{
    int shorter = w < h ? w : h, longer = w < h ? h : w;
    return (double)o->side / (o->resize == RF_RESIZE_PAD ? longer : shorter);
}

/* The size to decode a w x h picture at: what the square needs, never more
 * than the picture has unless it is scalable (SVG renders at any size). */
static void decode_size(int w, int h, bool scalable, const rf_image_options *o, int *dw, int *dh)
{
    double s = fit_scale(w, h, o);
    double tw = o->resize == RF_RESIZE_SQUASH ? o->side : ceil(w * s);
    double th = o->resize == RF_RESIZE_SQUASH ? o->side : ceil(h * s);
    if (!scalable) {
        tw = tw < w ? tw : w;
        th = th < h ? th : h;
    }
    /* bounded by the pixel cap before this is called, or refused after */
    *dw = tw < 1 ? 1 : tw > INT_MAX / 2 ? INT_MAX / 2 : (int)tw;
    *dh = th < 1 ? 1 : th > INT_MAX / 2 ? INT_MAX / 2 : (int)th;
}

static bool file_ok(const char *path, char **problem)
{
    GStatBuf sb;
    if (g_stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        *problem = g_strdup("not a readable regular file");
        return false;
    }
    if ((uint64_t)sb.st_size > RF_IMAGE_MAX_FILE) {
        *problem = g_strdup_printf("%lld bytes; an image file is at most %llu", (long long)sb.st_size,
                                   (unsigned long long)RF_IMAGE_MAX_FILE);
        return false;
    }
    return true;
}

/* The picture, upright, at about the size the square needs. The format is
 * what gdk-pixbuf's loaders make of the leading bytes; the size comes from
 * the header, read before any pixel is decoded. */
static GdkPixbuf *load(const char *path, const rf_image_options *o, const char **format, char **problem)
{
    if (!file_ok(path, problem))
        return NULL;
    int w = 0, h = 0;
    GdkPixbufFormat *f = gdk_pixbuf_get_file_info(path, &w, &h);
    if (f == NULL) {
        *problem = g_strdup("not an image format the installed gdk-pixbuf loaders read");
        return NULL;
    }
    char *name = gdk_pixbuf_format_get_name(f);
    *format = g_intern_string(name);
    g_free(name);
    bool scalable = gdk_pixbuf_format_is_scalable(f);
    int dw = 0, dh = 0;
    if (w >= 1 && h >= 1)
        decode_size(w, h, scalable, o, &dw, &dh);
    if (w < 1 || h < 1 || (!scalable && (int64_t)w * h > RF_IMAGE_MAX_PIXELS) ||
        (int64_t)dw * dh > RF_IMAGE_MAX_PIXELS) {
        *problem = g_strdup_printf("%s image of %dx%d pixels; a picture has at most %lld (8192x8192)", *format, w,
                                   h, (long long)RF_IMAGE_MAX_PIXELS);
        return NULL;
    }
    GError *err = NULL;
    GdkPixbuf *img = dw == w && dh == h ? gdk_pixbuf_new_from_file(path, &err)
                                        : gdk_pixbuf_new_from_file_at_scale(path, dw, dh, FALSE, &err);
    if (img == NULL) {
        *problem = g_strdup_printf("%s image that does not decode: %s", *format, err->message);
        g_error_free(err);
        return NULL;
    }
    if ((int64_t)gdk_pixbuf_get_width(img) * gdk_pixbuf_get_height(img) > RF_IMAGE_MAX_PIXELS) {
        *problem = g_strdup("the image is larger than its header said");
        g_object_unref(img);
        return NULL;
    }
    GdkPixbuf *upright = gdk_pixbuf_apply_embedded_orientation(img);
    g_object_unref(img);
    if (upright == NULL)
        *problem = g_strdup("out of memory turning the image upright");
    return upright;
}

/* The picture on a background-filled square, as o->resize says; alpha is
 * composited over the background. */
static GdkPixbuf *place(const GdkPixbuf *img, const rf_image_options *o)
{
    int side = o->side, w = gdk_pixbuf_get_width(img), h = gdk_pixbuf_get_height(img);
    GdkPixbuf *dest = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, side, side);
    if (dest == NULL)
        return NULL;
    guint32 bg = o->background;
    gdk_pixbuf_fill(dest, bg << 24 | bg << 16 | bg << 8 | 0xffu);
    double sx = (double)side / w, sy = (double)side / h, ox = 0, oy = 0;
    int rx = 0, ry = 0, rw = side, rh = side;   /* the region of dest drawn */
    if (o->resize != RF_RESIZE_SQUASH) {
        sx = sy = fit_scale(w, h, o);
        ox = (side - w * sx) / 2;
        oy = (side - h * sy) / 2;
    }
    if (o->resize == RF_RESIZE_PAD) {
        rw = (int)lround(w * sx);
        rh = (int)lround(h * sy);
        rw = rw < 1 ? 1 : rw > side ? side : rw;
        rh = rh < 1 ? 1 : rh > side ? side : rh;
        rx = (side - rw) / 2;
        ry = (side - rh) / 2;
        ox = rx;
        oy = ry;
    }
    if (gdk_pixbuf_get_has_alpha(img))
        gdk_pixbuf_composite(img, dest, rx, ry, rw, rh, ox, oy, sx, sy, GDK_INTERP_BILINEAR, 255);
    else
        gdk_pixbuf_scale(img, dest, rx, ry, rw, rh, ox, oy, sx, sy, GDK_INTERP_BILINEAR);
    return dest;
}

bool rf_image_decode(const char *path, const rf_image_options *o, uint8_t *out, const char **format,
                     char **problem)
{
    const char *name = NULL;
    GdkPixbuf *src = load(path, o, &name, problem);
    if (format != NULL)
        *format = name;
    if (src == NULL)
        return false;
    if (gdk_pixbuf_get_colorspace(src) != GDK_COLORSPACE_RGB || gdk_pixbuf_get_bits_per_sample(src) != 8 ||
        gdk_pixbuf_get_n_channels(src) != (gdk_pixbuf_get_has_alpha(src) ? 4 : 3)) {
        *problem = g_strdup_printf("%s image in an unsupported pixel format (expected 8-bit RGB or RGBA after "
                                   "decoding)", name);
        g_object_unref(src);
        return false;
    }
    GdkPixbuf *square = place(src, o);
    bool ok = square != NULL;
    if (ok)
        to_bytes(square, o->side, o->channels, out);
    else
        *problem = g_strdup_printf("out of memory resizing to %dx%d", o->side, o->side);
    g_clear_object(&square);
    g_object_unref(src);
    return ok;
}
