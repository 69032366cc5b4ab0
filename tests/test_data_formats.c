/* Images and audio by content, and folders as people have them (issue 17
 * items 2, 3 and 6): one file of each format gdk-pixbuf and libsndfile
 * read, files whose names lie, an animated GIF, a CMYK JPEG, a 16-bit PNG,
 * transparency over each background, an EXIF-rotated JPEG, the resize
 * modes, a stereo 96 kHz float WAV, nested class folders, junk and a
 * symlink loop. Fixtures are written here where gdk-pixbuf or libsndfile
 * can write them; the rest are tests/data/formats/ (its README says how
 * they were made) or text written below (XPM, XBM, PNM, SVG). */
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/config.h"
#include "../datasets/audio_decode.h"
#include "../datasets/audio_folder.h"
#include "../datasets/datasets.h"
#include "../datasets/image_decode.h"
#include "../datasets/image_table.h"
#include "tap.h"

static char *tmp_root;

static char *path_in(const char *dir, const char *name)
{
    return g_build_filename(dir, name, NULL);
}

static char *make_dir(const char *a, const char *b)
{
    char *dir = g_build_filename(tmp_root, a, b, NULL);
    g_mkdir_with_parents(dir, 0700);
    return dir;
}

static void write_bytes(const char *dir, const char *name, const void *data, size_t n)
{
    char *path = path_in(dir, name);
    g_file_set_contents(path, data, (gssize)n, NULL);
    g_free(path);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    write_bytes(dir, name, text, strlen(text));
}

static void copy_fixture(const char *name, const char *dir, const char *as)
{
    char *from = g_build_filename(RF_FORMATS_DIR, name, NULL), *data = NULL;
    gsize n = 0;
    if (!g_file_get_contents(from, &data, &n, NULL))
        tap_diag("cannot read the fixture %s", from);
    write_bytes(dir, as, data, n);
    g_free(data);
    g_free(from);
}

/* ---- images ---- */

typedef void (*paint_fn)(int x, int y, guint8 *p);   /* p: RGBA */

static void paint_solid_blue(int x, int y, guint8 *p)
{
    (void)x;
    (void)y;
    p[0] = 20, p[1] = 60, p[2] = 230, p[3] = 255;
}

/* Four vertical stripes, red, green, blue, white, of w/4 each. */
static int stripes_w = 32;
static void paint_stripes(int x, int y, guint8 *p)
{
    static const guint8 c[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
    (void)y;
    memcpy(p, c[x * 4 / stripes_w], 3);
    p[3] = 255;
}

/* Transparent left half (RGB black, as a symbolic icon's); the right half
 * red, opaque in rows 0..3 and alpha 128 in rows 4..7. */
static void paint_transparent(int x, int y, guint8 *p)
{
    p[0] = x < 4 ? 0 : 255, p[1] = 0, p[2] = 0;
    p[3] = x < 4 ? 0 : y < 4 ? 255 : 128;
}

static bool save_pixbuf(const char *dir, const char *name, const char *type, int w, int h, bool alpha,
                        paint_fn paint)
{
    GdkPixbuf *pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, alpha, 8, w, h);
    guint8 *px = gdk_pixbuf_get_pixels(pb);
    int stride = gdk_pixbuf_get_rowstride(pb), nc = alpha ? 4 : 3;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            guint8 rgba[4];
            paint(x, y, rgba);
            memcpy(px + y * stride + x * nc, rgba, (size_t)nc);
        }
    char *path = path_in(dir, name);
    GError *err = NULL;
    bool ok = strcmp(type, "jpeg") == 0 ? gdk_pixbuf_save(pb, path, type, &err, "quality", "100", NULL)
                                        : gdk_pixbuf_save(pb, path, type, &err, NULL);
    if (!ok) {
        tap_diag("gdk-pixbuf cannot write %s as %s: %s", path, type, err->message);
        g_error_free(err);
    }
    g_free(path);
    g_object_unref(pb);
    return ok;
}

/* Text formats, each an 8x8 picture. */
static const char xpm_text[] = "/* XPM */\nstatic char *x[] = {\n\"8 8 2 1\",\n\"a c #FF0000\",\n\"b c #0000FF\",\n"
                               "\"aaaaaaaa\",\n\"aaaaaaaa\",\n\"aaaaaaaa\",\n\"aaaaaaaa\",\n\"aaaaaaaa\",\n"
                               "\"aaaaaaaa\",\n\"aaaaaaaa\",\n\"aaaaaaaa\"};\n";
/* all bits set: every pixel black */
static const char xbm_text[] = "#define x_width 8\n#define x_height 8\nstatic unsigned char x_bits[] = {\n"
                               "0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};\n";
static const char ppm_text[] = "P3\n2 2\n255\n200 100 50  200 100 50\n200 100 50  200 100 50\n";
/* 4x4 intrinsic: left half black, right half white; rendered at 8x8 the
 * edge stays sharp (an upscaled 4x4 raster would blur it). */
static const char svg_text[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\">"
                               "<rect width=\"4\" height=\"4\" fill=\"#ffffff\"/>"
                               "<rect width=\"2\" height=\"4\" fill=\"#000000\"/></svg>\n";

static rf_image_options opts(int side, rf_image_resize resize, int background)
{
    return (rf_image_options){.side = side, .channels = 3, .resize = resize, .background = (uint8_t)background};
}

/* Decodes path; NULL (with a diagnostic) when that fails. */
static uint8_t *decode(const char *path, const rf_image_options *o, const char **format)
{
    uint8_t *out = malloc((size_t)o->side * o->side * 3);
    char *problem = NULL;
    if (!rf_image_decode(path, o, out, format, &problem)) {
        tap_diag("%s: %s", path, problem);
        g_free(problem);
        free(out);
        return NULL;
    }
    return out;
}

static bool near(const uint8_t *p, int r, int g, int b, int tol)
{
    return abs(p[0] - r) <= tol && abs(p[1] - g) <= tol && abs(p[2] - b) <= tol;
}

/* Every pixel of a side x side RGB raster near one colour. */
static bool all_near(const uint8_t *px, int side, int r, int g, int b, int tol)
{
    for (int i = 0; px != NULL && i < side * side; i++)
        if (!near(px + 3 * i, r, g, b, tol))
            return false;
    return px != NULL;
}

typedef struct image_case {
    const char *file, *format;   /* the file in the folder, gdk-pixbuf's name for its format */
    int r, g, b, tol;            /* its solid colour after decoding */
} image_case;

/* One picture of each format, written into dir. Returns the cases. */
static const image_case *write_each_image(const char *dir, int *count)
{
    static const image_case cases[] = {
        {"blue.png", "png", 20, 60, 230, 0},     {"blue.jpg", "jpeg", 20, 60, 230, 6},
        {"blue.bmp", "bmp", 20, 60, 230, 0},     {"blue.tiff", "tiff", 20, 60, 230, 0},
        {"blue.ico", "ico", 20, 60, 230, 0},     {"anim.gif", "gif", 255, 0, 0, 0},
        {"red.xpm", "xpm", 255, 0, 0, 0},        {"black.xbm", "xbm", 0, 0, 0, 0},
        {"brown.ppm", "pnm", 200, 100, 50, 0},   {"green.tga", "tga", 10, 200, 30, 0},
        {"sky.webp", "webp", 0, 128, 255, 0},    {"cmyk.jpg", "jpeg", 255, 0, 0, 40},
        {"grey16.png", "png", 192, 192, 192, 0}, {"png_named.jpg", "png", 20, 60, 230, 0},
        {"jpeg_named.png", "jpeg", 20, 60, 230, 6},
    };
    save_pixbuf(dir, "blue.png", "png", 8, 8, false, paint_solid_blue);
    save_pixbuf(dir, "blue.jpg", "jpeg", 8, 8, false, paint_solid_blue);
    save_pixbuf(dir, "blue.bmp", "bmp", 8, 8, false, paint_solid_blue);
    save_pixbuf(dir, "blue.tiff", "tiff", 8, 8, false, paint_solid_blue);
    save_pixbuf(dir, "blue.ico", "ico", 8, 8, true, paint_solid_blue);
    save_pixbuf(dir, "png_named.jpg", "png", 8, 8, false, paint_solid_blue);
    save_pixbuf(dir, "jpeg_named.png", "jpeg", 8, 8, false, paint_solid_blue);
    copy_fixture("anim.gif", dir, "anim.gif");
    copy_fixture("solid.tga", dir, "green.tga");
    copy_fixture("solid.webp", dir, "sky.webp");
    copy_fixture("cmyk.jpg", dir, "cmyk.jpg");
    copy_fixture("grey16.png", dir, "grey16.png");
    write_text(dir, "red.xpm", xpm_text);
    write_text(dir, "black.xbm", xbm_text);
    write_text(dir, "brown.ppm", ppm_text);
    *count = (int)(sizeof cases / sizeof cases[0]);
    return cases;
}

static void test_each_image_format(void)
{
    char *dir = make_dir("images", "each");
    int count = 0;
    const image_case *cases = write_each_image(dir, &count);
    rf_image_options o = opts(8, RF_RESIZE_CROP, 255);
    for (int i = 0; i < count; i++) {
        char *path = path_in(dir, cases[i].file);
        const char *format = NULL;
        uint8_t *px = decode(path, &o, &format);
        tap_ok(px != NULL && format != NULL && strcmp(format, cases[i].format) == 0 &&
                   all_near(px, 8, cases[i].r, cases[i].g, cases[i].b, cases[i].tol),
               "%s reads as %s (got %s), every pixel %d,%d,%d (first %d,%d,%d)", cases[i].file, cases[i].format,
               format != NULL ? format : "nothing", cases[i].r, cases[i].g, cases[i].b, px != NULL ? px[0] : -1,
               px != NULL ? px[1] : -1, px != NULL ? px[2] : -1);
        free(px);
        g_free(path);
    }

    /* SVG: rendered at the square's size, so the edge between the halves stays sharp */
    write_text(dir, "half.svg", svg_text);
    char *svg = path_in(dir, "half.svg");
    const char *format = NULL;
    uint8_t *px = decode(svg, &o, &format);
    bool sharp = px != NULL;
    for (int y = 0; sharp && y < 8; y++)
        for (int x = 0; x < 8; x++)
            sharp = sharp && near(px + 3 * (y * 8 + x), x < 4 ? 0 : 255, x < 4 ? 0 : 255, x < 4 ? 0 : 255, 2);
    tap_ok(sharp && format != NULL && strcmp(format, "svg") == 0,
           "a 4x4 SVG is rendered at 8x8: black left half, white right half, no blurred edge (%s; x=3: %d, x=4: %d)",
           format != NULL ? format : "nothing", px != NULL ? px[9] : -1, px != NULL ? px[12] : -1);
    free(px);
    g_free(svg);

    /* a text file named .png: refused by content, with its reason */
    write_text(dir, "notes.png", "these are notes, not a picture\n");
    char *notes = path_in(dir, "notes.png"), *problem = NULL;
    uint8_t buf[8 * 8 * 3];
    bool decoded = rf_image_decode(notes, &o, buf, NULL, &problem);
    tap_ok(!decoded && problem != NULL && strstr(problem, "not an image format") != NULL,
           "a text file named .png is refused: %s", problem != NULL ? problem : "(no reason)");
    g_free(problem);
    g_free(notes);
    g_free(dir);
}

static void test_transparency_and_orientation(void)
{
    char *dir = make_dir("images", "alpha");
    save_pixbuf(dir, "icon.png", "png", 8, 8, true, paint_transparent);
    char *icon = path_in(dir, "icon.png");
    static const struct {
        const char *name;
        int level;
    } backgrounds[] = {{"white", 255}, {"black", 0}, {"0.5", 128}};
    for (int k = 0; k < 3; k++) {
        int bg = backgrounds[k].level;
        rf_image_options o = opts(8, RF_RESIZE_CROP, bg);
        uint8_t *px = decode(icon, &o, NULL);
        bool ok = px != NULL;
        int half = (255 * 128 + bg * 127 + 127) / 255;   /* red at alpha 128 over bg */
        for (int y = 0; ok && y < 8; y++)
            for (int x = 0; x < 8; x++) {
                const uint8_t *p = px + 3 * (y * 8 + x);
                ok = ok && (x < 4    ? near(p, bg, bg, bg, 0)
                            : y < 4 ? near(p, 255, 0, 0, 0)
                                    : near(p, half, bg * 127 / 255, bg * 127 / 255, 2));
            }
        int level = -1;
        tap_ok(ok && rf_config_background(backgrounds[k].name, &level) && level == bg,
               "transparent PNG over data.background = %s: clear pixels %d, opaque red, half-clear red %d (got "
               "%d,%d,%d / %d,%d,%d)", backgrounds[k].name, bg, half, px ? px[0] : -1, px ? px[1] : -1,
               px ? px[2] : -1, px ? px[3 * 63] : -1, px ? px[3 * 63 + 1] : -1, px ? px[3 * 63 + 2] : -1);
        free(px);
    }
    int level = 0;
    tap_ok(!rf_config_background("grey", &level) && !rf_config_background("1.5", &level) &&
               !rf_config_background("", &level),
           "data.background refuses grey, 1.5 and an empty value");
    g_free(icon);

    /* stored 16x8 left black, right white, EXIF orientation 6: upright 8x16, top black, bottom white */
    copy_fixture("exif6.jpg", dir, "exif6.jpg");
    char *exif = path_in(dir, "exif6.jpg");
    rf_image_options o = opts(8, RF_RESIZE_SQUASH, 255);
    uint8_t *px = decode(exif, &o, NULL);
    bool upright = px != NULL;
    for (int y = 0; upright && y < 8; y++)
        for (int x = 0; x < 8; x++)
            if (y != 3 && y != 4)   /* the edge rows blend */
                upright = upright && near(px + 3 * (y * 8 + x), y < 4 ? 0 : 255, y < 4 ? 0 : 255, y < 4 ? 0 : 255, 12);
    tap_ok(upright, "an EXIF-rotated JPEG is turned upright: top black, bottom white (top-left %d, bottom-left %d, "
           "top-right %d)", px ? px[0] : -1, px ? px[3 * 56] : -1, px ? px[3 * 7] : -1);
    free(px);
    g_free(exif);
    g_free(dir);
}

static void test_resize_modes(void)
{
    char *dir = make_dir("images", "resize");
    stripes_w = 32;
    save_pixbuf(dir, "stripes.png", "png", 32, 8, false, paint_stripes);
    char *path = path_in(dir, "stripes.png");
    /* crop: scale 1, the middle 8 columns: green x 0..3, blue x 4..7 */
    rf_image_options o = opts(8, RF_RESIZE_CROP, 255);
    uint8_t *px = decode(path, &o, NULL);
    bool ok = px != NULL;
    for (int y = 0; ok && y < 8; y++)
        for (int x = 0; x < 8; x++)
            ok = ok && near(px + 3 * (y * 8 + x), 0, x < 4 ? 255 : 0, x < 4 ? 0 : 255, 0);
    tap_ok(ok, "crop: a 32x8 picture of four stripes keeps its middle: green then blue");
    free(px);
    /* squash: each stripe 2 columns wide */
    o.resize = RF_RESIZE_SQUASH;
    px = decode(path, &o, NULL);
    ok = px != NULL && near(px, 255, 0, 0, 0) && near(px + 3 * 2, 0, 255, 0, 0) && near(px + 3 * 5, 0, 0, 255, 0) &&
         near(px + 3 * 7, 255, 255, 255, 0) && near(px + 3 * 63, 255, 255, 255, 0);
    tap_ok(ok, "squash: all four stripes, two columns each");
    free(px);
    /* pad: 8x2 in rows 3..4, black background elsewhere */
    o.resize = RF_RESIZE_PAD;
    o.background = 0;
    px = decode(path, &o, NULL);
    ok = px != NULL;
    for (int y = 0; ok && y < 8; y++)
        for (int x = 0; x < 8; x++) {
            const uint8_t *p = px + 3 * (y * 8 + x);
            ok = ok && (y == 3 || y == 4 ? !near(p, 0, 0, 0, 0) : near(p, 0, 0, 0, 0));
        }
    ok = ok && near(px + 3 * 24, 255, 0, 0, 0) && near(px + 3 * 31, 255, 255, 255, 0);
    tap_ok(ok, "pad: the picture in rows 3..4, red to white, the background above and below");
    free(px);
    rf_config old, now;
    rf_config_defaults(&old);
    rf_config_defaults(&now);
    rf_status st = {0};
    bool read = rf_config_from_json(&old, "{\"data.task\": \"image_folder\"}", &st) &&
                rf_config_from_json(&now, "{\"data.task\": \"image_folder\", \"data.resize\": \"crop\"}", &st);
    tap_ok(read && strcmp(old.data.resize, "squash") == 0 && strcmp(now.data.resize, "crop") == 0,
           "a checkpoint's config from before data.resize keeps squashing (%s); one that names it keeps it (%s)",
           old.data.resize, now.data.resize);
    bool parsed = true;
    rf_image_resize mode;
    parsed = rf_image_resize_parse("crop", &mode) && mode == RF_RESIZE_CROP && rf_image_resize_parse("pad", &mode) &&
             mode == RF_RESIZE_PAD && !rf_image_resize_parse("fit", &mode);
    tap_ok(parsed, "data.resize names: crop, squash, pad; fit is refused");
    g_free(path);

    /* a PNG header of 9000 x 9000 on a few bytes: refused by its size, never decoded */
    static const unsigned char big[] = {
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x23, 0x28, 0x00, 0x00, 0x23, 0x28, 0x08, 0x02, 0x00, 0x00, 0x00, 0xe2, 0xb7, 0xe5,
        0xed, 0x00, 0x00, 0x00, 0x0b, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x40, 0x05, 0x00,
        0x00, 0x10, 0x00, 0x01, 0x39, 0xbd, 0x8f, 0x65};
    write_bytes(dir, "huge.png", big, sizeof big);
    path = path_in(dir, "huge.png");
    char *problem = NULL;
    uint8_t out[8 * 8 * 3];
    bool decoded = rf_image_decode(path, &o, out, NULL, &problem);
    tap_ok(!decoded && problem != NULL && strstr(problem, "9000x9000") != NULL && strstr(problem, "at most") != NULL,
           "a 9000x9000 PNG header is refused by its size before decoding: %s", problem ? problem : "(no reason)");
    g_free(problem);
    g_free(path);

    /* a lossless WebP header of 16384 x 16384 (libwebp reads the size: the WebP loader would allocate it whole) */
    static const unsigned char webp[] = {'R', 'I', 'F', 'F', 0x1c, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'L',
                                         0x10, 0, 0, 0, 0x2f, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0, 0, 0};
    write_bytes(dir, "huge.webp", webp, sizeof webp);
    path = path_in(dir, "huge.webp");
    problem = NULL;
    decoded = rf_image_decode(path, &o, out, NULL, &problem);
    tap_ok(!decoded && problem != NULL && strstr(problem, "16384x16384") != NULL && strstr(problem, "at most") != NULL,
           "a 16384x16384 WebP header is refused by its size before decoding: %s", problem ? problem : "(no reason)");
    g_free(problem);
    g_free(path);

    /* an icon whose directory entry claims data past the file's end (the fuzzer's finding: the ICO loader
     * grew its buffer to the entry's offset + size, 2 GB); a well-formed icon's entry lies inside */
    static const unsigned char ico[] = {0, 0, 1, 0, 1, 0, 4, 4, 0, 0, 0, 0, 32, 0, 0x4d, 0, 0x7d, 0x7d,
                                        0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0, 0, 0, 0};
    write_bytes(dir, "lying.ico", ico, sizeof ico);
    path = path_in(dir, "lying.ico");
    problem = NULL;
    decoded = rf_image_decode(path, &o, out, NULL, &problem);
    tap_ok(!decoded && problem != NULL && strstr(problem, "past the file's") != NULL,
           "an icon entry claiming 2 GB past the file's end is refused before the loader grows to it: %s",
           problem ? problem : "(no reason)");
    g_free(problem);
    g_free(path);

    /* a PNG cut in the middle of its pixels: refused, not half decoded */
    stripes_w = 64;
    save_pixbuf(dir, "whole.png", "png", 64, 64, false, paint_stripes);
    char *whole = path_in(dir, "whole.png"), *data = NULL;
    gsize size = 0;
    g_file_get_contents(whole, &data, &size, NULL);
    write_bytes(dir, "cut.png", data, size * 2 / 3);
    path = path_in(dir, "cut.png");
    problem = NULL;
    decoded = rf_image_decode(path, &o, out, NULL, &problem);
    tap_ok(!decoded && problem != NULL && strstr(problem, "png image") != NULL,
           "a PNG cut short is refused: %s", problem ? problem : "(no reason)");
    g_free(problem);
    g_free(path);
    g_free(data);
    g_free(whole);
    g_free(dir);
}

/* ---- folders ---- */

static char *capture_stderr(const rf_config *cfg, rf_status *st, rf_dataset **out)
{
    char *log = g_build_filename(g_get_tmp_dir(), "rf-formats-stderr-XXXXXX", NULL);
    int fd = g_mkstemp(log);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    *out = rf_dataset_open(cfg, st);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    char *text = NULL;
    g_file_get_contents(log, &text, NULL, NULL);
    g_remove(log);
    g_free(log);
    return text;
}

/* Junk that must be ignored silently, and a link loop, in class folder dir. */
static void add_junk(const char *dir)
{
    write_text(dir, ".DS_Store", "junk");
    write_text(dir, "Thumbs.db", "junk");
    write_text(dir, ".hidden.png", "junk");
    char *mac = path_in(dir, "__MACOSX");
    g_mkdir(mac, 0700);
    write_text(mac, "._x.png", "junk");
    write_text(mac, "x.png", "junk");
    g_free(mac);
    char *loop = path_in(dir, "loop");
    if (symlink(".", loop) != 0)
        tap_diag("cannot make the link %s", loop);
    g_free(loop);
}

static bool has_format(const rf_format_counts *c, const char *name, int64_t n)
{
    for (int i = 0; c != NULL && i < c->kinds; i++)
        if (strcmp(c->name[i], name) == 0)
            return c->count[i] == n;
    return false;
}

static void test_image_folder(void)
{
    char *each = make_dir("ifolder", "pictures/deep/er"), *plain = make_dir("ifolder", "plain");
    int count = 0;
    write_each_image(each, &count);
    write_text(each, "half.svg", svg_text);
    add_junk(each);
    char *up = make_dir("ifolder", "pictures");
    add_junk(up);
    char *back = path_in(each, "up");
    if (symlink("../..", back) != 0)   /* to pictures/ again: entered once */
        tap_diag("cannot make the link %s", back);
    g_free(back);
    char *other = path_in(each, "other");
    if (symlink("../../../plain", other) != 0)   /* into another class: not entered */
        tap_diag("cannot make the link %s", other);
    g_free(other);
    char *outside = make_dir("elsewhere", "kept");   /* reached only through a link */
    save_pixbuf(outside, "o1.png", "png", 8, 8, false, paint_solid_blue);
    save_pixbuf(outside, "o2.png", "png", 8, 8, false, paint_solid_blue);
    char *linked = path_in(up, "linked");
    if (symlink(outside, linked) != 0)
        tap_diag("cannot make the link %s", linked);
    g_free(linked);
    g_free(outside);
    for (int k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "p%d.png", k);
        save_pixbuf(plain, name, "png", 8, 8, false, paint_solid_blue);
    }
    write_text(plain, "notes.png", "not a picture");
    char *root = g_build_filename(tmp_root, "ifolder", NULL);
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "image_folder");
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", root);
    cfg.data.image_size = 8;
    strcpy(cfg.data.channels, "rgb");
    cfg.data.val_size = 2;
    cfg.data.test_size = 2;
    rf_status st = {0};
    rf_dataset *ds = NULL;
    char *log = capture_stderr(&cfg, &st, &ds);
    const rf_format_counts *f = rf_image_formats(ds);
    int64_t total = ds != NULL ? ds->size[0] + ds->size[1] + ds->size[2] : -1;
    tap_ok(ds != NULL && ds->classes == 2 && total == count + 1 + 2 + 4 && rf_image_skipped(ds) == 1,
           "nested class folders, one through a link: %lld images in 2 classes (want %d), 1 file skipped (%lld): %s",
           (long long)total, count + 7, (long long)rf_image_skipped(ds), st.msg);
    tap_ok(has_format(f, "png", 9) && has_format(f, "jpeg", 3) && has_format(f, "gif", 1) && has_format(f, "bmp", 1) &&
               has_format(f, "tiff", 1) && has_format(f, "ico", 1) && has_format(f, "xpm", 1) &&
               has_format(f, "xbm", 1) && has_format(f, "pnm", 1) && has_format(f, "tga", 1) &&
               has_format(f, "webp", 1) && has_format(f, "svg", 1),
           "each format counted by content (png 9 with the lying and 16-bit ones, jpeg 3)");
    tap_ok(log != NULL && strstr(log, "plain/notes.png: not an image format") != NULL &&
               strstr(log, "DS_Store") == NULL && strstr(log, "Thumbs") == NULL && strstr(log, "MACOSX") == NULL &&
               strstr(log, "hidden") == NULL && strstr(log, "loop") == NULL && st.warnings == 1,
           "the text file is skipped naming its reason; junk and the link loop say nothing (%lld warnings): %s",
           st.warnings, log != NULL ? log : "");
    char summary[512] = "";
    tap_ok(rf_dataset_summary(ds, summary, sizeof summary) && strstr(summary, "image_folder: 22 images read") != NULL &&
               strstr(summary, "1 webp") != NULL && strstr(summary, "1 file skipped") != NULL,
           "summary: %s", summary);
    bool named = false;
    char buf[256];
    for (int s = 0; ds != NULL && s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; i < ds->size[s]; i++)
            named = named || (ds->describe(ds, (rf_split)s, i, buf, sizeof buf) &&
                              strstr(buf, "(pictures/deep/er/sky.webp)") != NULL);
    tap_ok(named, "a nested picture is described by its path below the root");
    rf_dataset_free(ds);
    g_free(log);

    strcpy(cfg.data.strict, "true");
    rf_status_clear(&st);
    ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds == NULL && strstr(st.msg, "notes.png") != NULL && strstr(st.msg, "strict") != NULL,
           "data.strict = true: the unreadable file is the error: %s", st.msg);
    rf_dataset_free(ds);
    g_free(root);
    g_free(up);
    g_free(each);
    g_free(plain);
}

/* ---- audio ---- */

#define RATE 16000

typedef struct audio_case {
    const char *file, *format;
    int sf_format, rate, channels;
} audio_case;

static const audio_case audio_cases[] = {
    {"pcm.wav", "wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, RATE, 1},
    {"stereo96k.wav", "wavex", SF_FORMAT_WAVEX | SF_FORMAT_FLOAT, 96000, 2},
    {"six.wav", "wavex", SF_FORMAT_WAVEX | SF_FORMAT_PCM_24, 48000, 6},
    {"tone.aiff", "aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16, 22050, 1},
    {"tone.aifc", "aiff", SF_FORMAT_AIFF | SF_FORMAT_FLOAT, RATE, 1},
    {"tone.au", "au", SF_FORMAT_AU | SF_FORMAT_PCM_16, 8000, 1},
    {"ulaw.au", "au", SF_FORMAT_AU | SF_FORMAT_ULAW, 8000, 1},
    {"alaw.wav", "wav", SF_FORMAT_WAV | SF_FORMAT_ALAW, 8000, 1},
    {"tone.caf", "caf", SF_FORMAT_CAF | SF_FORMAT_PCM_16, 44100, 2},
    {"tone.w64", "w64", SF_FORMAT_W64 | SF_FORMAT_PCM_16, RATE, 1},
    {"tone.rf64", "rf64", SF_FORMAT_RF64 | SF_FORMAT_PCM_16, RATE, 1},
    {"tone.flac", "flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 44100, 1},
    {"tone.ogg", "ogg vorbis", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 44100, 1},
    {"tone.opus", "opus", SF_FORMAT_OGG | SF_FORMAT_OPUS, 48000, 1},
    {"tone.mp3", "mp3", SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, 44100, 1},
    {"aiff_named.wav", "aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16, RATE, 1},
    {"flac_named.mp3", "flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, RATE, 1},
};
#define AUDIO_CASES ((int)(sizeof audio_cases / sizeof audio_cases[0]))

/* A 440 Hz tone of amplitude 0.5 on every channel, `seconds` long. */
static bool write_clip(const char *dir, const audio_case *c, double seconds, double amplitude)
{
    char *path = path_in(dir, c->file);
    SF_INFO info = {.samplerate = c->rate, .channels = c->channels, .format = c->sf_format};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    if (sf == NULL) {
        tap_diag("libsndfile cannot write %s: %s", path, sf_strerror(NULL));
        g_free(path);
        return false;
    }
    sf_count_t frames = (sf_count_t)(seconds * c->rate);
    float *buf = malloc((size_t)(frames > 0 ? frames : 1) * c->channels * sizeof *buf);
    for (sf_count_t i = 0; i < frames; i++)
        for (int ch = 0; ch < c->channels; ch++)
            buf[i * c->channels + ch] = (float)(amplitude * sin(2 * G_PI * 440 * (double)i / c->rate));
    sf_writef_float(sf, buf, frames);
    sf_close(sf);
    free(buf);
    g_free(path);
    return true;
}

static void test_each_audio_format(void)
{
    char *dir = make_dir("audio", "each");
    for (int i = 0; i < AUDIO_CASES; i++) {
        const audio_case *c = &audio_cases[i];
        bool written = write_clip(dir, c, 0.5, 0.5);
        char *path = path_in(dir, c->file);
        rf_status st = {0};
        float *wave = NULL;
        int64_t n = 0, duration = 0;
        const char *format = NULL;
        bool ok = written && rf_audio_read(path, RATE, RATE, &wave, &n, &duration, &format, &st);
        float peak = 0.0f;
        for (int64_t k = n / 4; ok && k < n * 3 / 4; k++)   /* away from codec edges */
            peak = fabsf(wave[k]) > peak ? fabsf(wave[k]) : peak;
        /* lossy codecs pad the start: the length within 60 ms */
        tap_ok(ok && format != NULL && strcmp(format, c->format) == 0 && labs((long)(n - RATE / 2)) < RATE * 6 / 100 &&
                   peak > 0.45f && peak < 0.56f,
               "%s reads as %s (got %s), %lld samples at 16 kHz, mixed-down peak %.3f%s%s", c->file, c->format,
               format != NULL ? format : "nothing", (long long)n, (double)peak, st.failed ? ": " : "", st.msg);
        free(wave);
        g_free(path);
    }
    write_text(dir, "notes.wav", "these are notes, not audio\n");
    char *notes = path_in(dir, "notes.wav");
    rf_status st = {0};
    float *wave = NULL;
    int64_t n = 0, duration = 0;
    tap_ok(!rf_audio_read(notes, RATE, RATE, &wave, &n, &duration, NULL, &st) && strstr(st.msg, "notes.wav: ") != NULL,
           "a text file named .wav is refused: %s", st.msg);
    g_free(notes);
    g_free(dir);
}

static void test_audio_folder(void)
{
    char *root = g_build_filename(tmp_root, "afolder", NULL);
    char *tones = make_dir("afolder", "tones/one/two"), *quiet = make_dir("afolder", "quiet");
    for (int i = 0; i < AUDIO_CASES; i++)
        write_clip(tones, &audio_cases[i], 0.3, 0.5);
    add_junk(tones);
    write_text(tones, "notes.wav", "not audio");
    audio_case silent = {"silent.wav", "wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, RATE, 1};
    audio_case tiny = {"tiny.au", "au", SF_FORMAT_AU | SF_FORMAT_FLOAT, RATE, 1};
    audio_case blip = {"blip.flac", "flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 8000, 1};
    write_clip(quiet, &silent, 1.0, 0.0);
    write_clip(quiet, &tiny, 10.0 / RATE, 0.5);   /* 10 samples: shorter than one window */
    write_clip(quiet, &blip, 0.001, 0.5);          /* 8 samples at 8 kHz */
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "audio_folder");
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", root);
    strcpy(cfg.data.cache, "off");
    cfg.data.val_size = 2;
    cfg.data.test_size = 2;
    cfg.data.max_frames = 64;
    cfg.data.mel_bins = 16;
    rf_status st = {0};
    rf_dataset *ds = NULL;
    char *log = capture_stderr(&cfg, &st, &ds);
    rf_audio_folder_stats stats = {0};
    bool have = rf_audio_folder_get_stats(ds, &stats);
    tap_ok(have && ds->classes == 2 && stats.clips == AUDIO_CASES + 3 && stats.skipped == 1,
           "nested class folders: %lld clips (want %d), %lld skipped (want 1): %s", (long long)stats.clips,
           AUDIO_CASES + 3, (long long)stats.skipped, st.msg);
    const rf_format_counts *f = &stats.formats;
    tap_ok(have && has_format(f, "wav", 3) && has_format(f, "wavex", 2) && has_format(f, "aiff", 3) &&
               has_format(f, "au", 3) && has_format(f, "caf", 1) && has_format(f, "w64", 1) &&
               has_format(f, "rf64", 1) && has_format(f, "flac", 3) && has_format(f, "ogg vorbis", 1) &&
               has_format(f, "opus", 1) && has_format(f, "mp3", 1),
           "clips counted per format by content (the .wav AIFF as aiff, the .mp3 FLAC as flac)");
    tap_ok(log != NULL && strstr(log, "notes.wav: not audio libsndfile opens") != NULL &&
               strstr(log, "DS_Store") == NULL && strstr(log, "Thumbs") == NULL && strstr(log, "MACOSX") == NULL &&
               strstr(log, "hidden") == NULL && strstr(log, "loop") == NULL,
           "the text file is skipped naming its reason; junk and the link loop say nothing: %s", log ? log : "");
    char summary[512] = "";
    tap_ok(rf_dataset_summary(ds, summary, sizeof summary) && strstr(summary, "audio_folder: 20 clips") != NULL &&
               strstr(summary, "1 opus") != NULL && strstr(summary, "1 mp3") != NULL &&
               strstr(summary, "1 file skipped") != NULL,
           "summary: %s", summary);
    bool finite = ds != NULL;
    int short_frames = -1;
    float *x = ds != NULL ? malloc((size_t)ds->seq_len * ds->feat_dim * sizeof *x) : NULL;
    char buf[256];
    for (int s = 0; finite && s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; finite && i < ds->size[s]; i++) {
            int len = 0, label = 0;
            finite = ds->get(ds, (rf_split)s, i, x, &len, &label, NULL) && len >= 1;
            for (int k = 0; finite && k < len * ds->feat_dim; k++)
                finite = isfinite(x[k]);
            if (ds->describe(ds, (rf_split)s, i, buf, sizeof buf) && strstr(buf, "tiny.au") != NULL)
                short_frames = len;
        }
    tap_ok(finite && short_frames >= 1, "every clip's features are finite, the silent one and a 10-sample one too "
                                        "(%d frame%s)", short_frames, short_frames == 1 ? "" : "s");
    free(x);
    rf_dataset_free(ds);

    /* with the feature cache: the second open decodes nothing, yet names every format (from the headers) */
    strcpy(cfg.data.cache, "on");
    char first[512] = "", second[512] = "";
    for (int k = 0; k < 2; k++) {
        rf_status_clear(&st);
        g_free(log);
        log = capture_stderr(&cfg, &st, &ds);
        rf_dataset_summary(ds, k == 0 ? first : second, sizeof first);
        if (k == 1)
            rf_audio_folder_get_stats(ds, &stats);
        rf_dataset_free(ds);
    }
    tap_ok(first[0] != '\0' && strcmp(first, second) == 0 && stats.cache_hits == AUDIO_CASES + 3,
           "from the cache (%lld hits) the summary is the same: %s", (long long)stats.cache_hits, second);
    g_free(log);
    g_free(tones);
    g_free(quiet);
    g_free(root);
}

static void remove_tree(const char *path)
{
    if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK)) {
        GDir *d = g_dir_open(path, 0, NULL);
        for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;) {
            char *child = g_build_filename(path, name, NULL);
            remove_tree(child);
            g_free(child);
        }
        if (d != NULL)
            g_dir_close(d);
    }
    g_remove(path);
}

int main(void)
{
    tmp_root = g_dir_make_tmp("rf-formats-XXXXXX", NULL);
    test_each_image_format();
    test_transparency_and_orientation();
    test_resize_modes();
    test_image_folder();
    test_each_audio_format();
    test_audio_folder();
    remove_tree(tmp_root);
    g_free(tmp_root);
    return tap_done();
}
