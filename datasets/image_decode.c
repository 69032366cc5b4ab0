/* Image decoding and resizing with gdk-pixbuf (see image_decode.h). */
#include "image_decode.h"

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <gio/gio.h>
#include <webp/decode.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
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

/* The loader's state from its size-prepared signal to the end. */
typedef struct sizing {
    const rf_image_options *o;
    const char *format;
    bool scaled;     /* the loader was asked for another size */
    int rows;        /* rows the loader said it decoded (the lowest edge seen) */
    char *problem;   /* the picture is refused by its header */
} sizing;

static const char *format_name(GdkPixbufLoader *loader)
{
    GdkPixbufFormat *f = gdk_pixbuf_loader_get_format(loader);
    char *name = f != NULL ? gdk_pixbuf_format_get_name(f) : NULL;
    const char *interned = name != NULL ? g_intern_string(name) : NULL;
    g_free(name);
    return interned;
}

/* Called once the header is read, before any pixel is allocated: checks
 * the size against the cap (a size of 0 x 0 makes the loaders stop, as
 * gdk_pixbuf_get_file_info does) and asks the loaders that decode at
 * reduced scale themselves (JPEG at 1/2, 1/4, 1/8; SVG at any size) for
 * the size the square needs. The others decode at full size (within the
 * cap), so that a picture cut short shows as rows never decoded. */
static void on_size_prepared(GdkPixbufLoader *loader, int w, int h, gpointer user)
{
    sizing *sz = user;
    GdkPixbufFormat *f = gdk_pixbuf_loader_get_format(loader);
    sz->format = format_name(loader);
    bool scalable = f != NULL && gdk_pixbuf_format_is_scalable(f);
    int dw = 0, dh = 0;
    if (w >= 1 && h >= 1)
        decode_size(w, h, scalable, sz->o, &dw, &dh);
    if (w < 1 || h < 1 || (!scalable && (int64_t)w * h > RF_IMAGE_MAX_PIXELS) ||
        (int64_t)dw * dh > RF_IMAGE_MAX_PIXELS) {
        sz->problem = g_strdup_printf("%s image of %dx%d pixels; a picture has at most %lld (8192x8192)", sz->format,
                                      w, h, (long long)RF_IMAGE_MAX_PIXELS);
        gdk_pixbuf_loader_set_size(loader, 0, 0);
    } else if ((dw != w || dh != h) && (scalable || sz->format == g_intern_static_string("jpeg"))) {
        gdk_pixbuf_loader_set_size(loader, dw, dh);
        sz->scaled = true;
    }
}

static void on_area_updated(GdkPixbufLoader *loader, int x, int y, int w, int h, gpointer user)
{
    (void)loader;
    (void)x;
    (void)w;
    sizing *sz = user;
    sz->rows = y + h > sz->rows ? y + h : sz->rows;
}

/* A WebP header over the pixel cap: libwebp reads its size, since the
 * WebP loader allocates the whole picture whatever size it is asked for. */
static bool webp_too_large(const guchar *head, size_t n, char **problem)
{
    int w = 0, h = 0;
    if (!WebPGetInfo(head, n, &w, &h) || (int64_t)w * h <= RF_IMAGE_MAX_PIXELS)
        return false;
    *problem = g_strdup_printf("webp image of %dx%d pixels; a picture has at most %lld (8192x8192)", w, h,
                               (long long)RF_IMAGE_MAX_PIXELS);
    return true;
}

/* An icon or cursor directory whose entries lie past the file's end: the
 * ICO loader grows its buffer to an entry's offset plus size, whatever
 * they say (a fuzzed header asked for 2 GB). Only the first chunk's
 * entries are checked; the loader reads no others before that chunk. */
static bool ico_entries_outside(const guchar *head, size_t n, uint64_t file_size, char **problem)
{
    if (n < 6 || head[0] != 0 || head[1] != 0 || (head[2] != 1 && head[2] != 2) || head[3] != 0)
        return false;
    unsigned count = head[4] | (unsigned)head[5] << 8;
    for (unsigned i = 0; i < count && 6 + 16 * (size_t)i + 16 <= n; i++) {
        const guchar *e = head + 6 + 16 * (size_t)i;
        uint64_t size = e[8] | (uint64_t)e[9] << 8 | (uint64_t)e[10] << 16 | (uint64_t)e[11] << 24;
        uint64_t at = e[12] | (uint64_t)e[13] << 8 | (uint64_t)e[14] << 16 | (uint64_t)e[15] << 24;
        if (at + size > file_size) {
            *problem = g_strdup_printf("ico image whose entry %u claims %llu bytes at offset %llu, past the file's "
                                       "%llu", i + 1, (unsigned long long)size, (unsigned long long)at,
                                       (unsigned long long)file_size);
            return true;
        }
    }
    return false;
}

/* Feeds the file to the loader in chunks; false with *problem on a read
 * error or a file beyond the size limit. */
static bool feed(GdkPixbufLoader *loader, const char *path, const sizing *sz, GError **err, char **problem)
{
    FILE *f = g_fopen(path, "rb");
    GStatBuf sb;
    if (f == NULL || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        *problem = g_strdup("not a readable regular file");
    } else if ((uint64_t)sb.st_size > RF_IMAGE_MAX_FILE) {
        *problem = g_strdup_printf("%lld bytes; an image file is at most %llu", (long long)sb.st_size,
                                   (unsigned long long)RF_IMAGE_MAX_FILE);
    } else {
        guchar chunk[65536];
        uint64_t total = 0;
        for (size_t n; *err == NULL && *problem == NULL && sz->problem == NULL &&
                       (n = fread(chunk, 1, sizeof chunk, f)) > 0;) {
            total += n;
            if (total > RF_IMAGE_MAX_FILE)
                *problem = g_strdup("the file grew past the size limit while it was read");
            else if (total > n ||
                     (!webp_too_large(chunk, n, problem) && !ico_entries_outside(chunk, n, sb.st_size, problem)))
                gdk_pixbuf_loader_write(loader, chunk, n, err);
        }
        if (*problem == NULL && ferror(f))
            *problem = g_strdup_printf("read error: %s", g_strerror(errno));
    }
    if (f != NULL)
        fclose(f);
    return *problem == NULL;
}

/* Decodes the file with `loader`; NULL with *problem, or with neither
 * when no loader recognised the content. */
static GdkPixbuf *decode_with(GdkPixbufLoader *loader, const char *path, const rf_image_options *o,
                             const char **format, char **problem)
{
    sizing sz = {.o = o};
    g_signal_connect(loader, "size-prepared", G_CALLBACK(on_size_prepared), &sz);
    g_signal_connect(loader, "area-updated", G_CALLBACK(on_area_updated), &sz);
    GError *err = NULL;
    bool fed = feed(loader, path, &sz, &err, problem);
    GError *closing = NULL;
    gdk_pixbuf_loader_close(loader, err == NULL ? &closing : NULL);
    if (sz.format == NULL)   /* a loader that reads the whole file before it tells the size */
        sz.format = format_name(loader);
    *format = sz.format;
    GdkPixbuf *pixbuf = gdk_pixbuf_loader_get_pixbuf(loader), *img = NULL;
    if (!fed || sz.format == NULL) {
        /* *problem says why, or nothing read the content */
    } else if (sz.problem != NULL) {
        *problem = g_steal_pointer(&sz.problem);
    } else if (err != NULL || closing != NULL || pixbuf == NULL) {
        *problem = g_strdup_printf("%s image that does not decode: %s", sz.format,
                                   err != NULL ? err->message : closing != NULL ? closing->message : "no pixels");
    } else if (!sz.scaled && sz.rows < gdk_pixbuf_get_height(pixbuf)) {
        *problem = g_strdup_printf("%s image cut short: %d of its %d rows decoded", sz.format, sz.rows,
                                   gdk_pixbuf_get_height(pixbuf));
    } else {
        img = g_object_ref(pixbuf);
    }
    g_clear_error(&err);
    g_clear_error(&closing);
    g_free(sz.problem);
    g_object_unref(loader);
    return img;
}

/* Content that reads as text (XBM is C source) is no format by itself;
 * gdk-pixbuf then takes the name's word, as gdk_pixbuf_get_file_info
 * does. The type guessed from name and content, or NULL. */
static char *text_format_by_name(const char *path)
{
    guchar head[4096];
    FILE *f = g_fopen(path, "rb");
    size_t n = f != NULL ? fread(head, 1, sizeof head, f) : 0;
    if (f != NULL)
        fclose(f);
    gboolean uncertain = FALSE;
    char *by_content = g_content_type_guess(NULL, head, n, &uncertain);
    bool text = uncertain || g_content_type_is_a(by_content, "text/plain");
    g_free(by_content);
    return text ? g_content_type_guess(path, head, n, NULL) : NULL;
}

/* The picture, upright, at about the size the square needs. One pass: the
 * loader gdk-pixbuf picks from the leading bytes (whatever the name says)
 * reads the header, on_size_prepared checks the size and sets the decode
 * size, and only then are pixels decoded. */
static GdkPixbuf *load(const char *path, const rf_image_options *o, const char **format, char **problem)
{
    GdkPixbuf *img = decode_with(gdk_pixbuf_loader_new(), path, o, format, problem);
    if (img == NULL && *problem == NULL) {
        char *type = text_format_by_name(path);
        GdkPixbufLoader *by_name = type != NULL ? gdk_pixbuf_loader_new_with_mime_type(type, NULL) : NULL;
        g_free(type);
        img = by_name != NULL ? decode_with(by_name, path, o, format, problem) : NULL;
        if (img == NULL) {   /* text that its name does not make a picture */
            g_free(*problem);
            *problem = g_strdup("not an image format the installed gdk-pixbuf loaders read");
            *format = NULL;
        }
    }
    if (img == NULL)
        return NULL;
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

/* gdk-pixbuf's filter tables grow with the square of the reduction (half
 * a gigabyte for 8192 pixels to 4): larger reductions go in steps of at
 * most MAX_STEP per side. Takes img; returns a picture within MAX_STEP of
 * the square, or NULL when memory runs out. */
#define MAX_STEP 8.0
static GdkPixbuf *shrink(GdkPixbuf *img, const rf_image_options *o)
{
    while (img != NULL) {
        int w = gdk_pixbuf_get_width(img), h = gdk_pixbuf_get_height(img);
        double sx = o->resize == RF_RESIZE_SQUASH ? (double)o->side / w : fit_scale(w, h, o);
        double sy = o->resize == RF_RESIZE_SQUASH ? (double)o->side / h : sx;
        if (sx * MAX_STEP >= 1.0 && sy * MAX_STEP >= 1.0)
            return img;
        int nw = sx * MAX_STEP < 1.0 ? (int)ceil(w / MAX_STEP) : w;
        int nh = sy * MAX_STEP < 1.0 ? (int)ceil(h / MAX_STEP) : h;
        GdkPixbuf *smaller = gdk_pixbuf_scale_simple(img, nw, nh, GDK_INTERP_BILINEAR);
        g_object_unref(img);
        img = smaller;
    }
    return NULL;
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
    src = shrink(src, o);
    GdkPixbuf *square = src != NULL ? place(src, o) : NULL;
    bool ok = square != NULL;
    if (ok)
        to_bytes(square, o->side, o->channels, out);
    else
        *problem = g_strdup_printf("out of memory resizing to %dx%d", o->side, o->side);
    g_clear_object(&square);
    g_clear_object(&src);
    return ok;
}
