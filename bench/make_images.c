/* Writes a folder of pictures for bench/image_folder.sh:
 *   make_images DIR COUNT WIDTH HEIGHT png|jpeg CLASSES
 * COUNT files DIR/c<k>/<n>.<png|jpg> over CLASSES class folders. Eight
 * distinct pictures (smooth colour ramps with noise, so a JPEG is as large
 * as a photo's) are encoded once each and written round robin. */
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISTINCT 8

static GdkPixbuf *picture(int w, int h, int seed)
{
    GdkPixbuf *pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, w, h);
    guint8 *px = gdk_pixbuf_get_pixels(pb);
    int stride = gdk_pixbuf_get_rowstride(pb);
    guint32 noise = 2463534242u + (guint32)seed;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            noise ^= noise << 13, noise ^= noise >> 17, noise ^= noise << 5;
            guint8 *p = px + (size_t)y * stride + (size_t)x * 3;
            p[0] = (guint8)(x * 255 / w + (noise & 15));
            p[1] = (guint8)(y * 255 / h + (noise >> 4 & 15));
            p[2] = (guint8)(seed * 30 + (noise >> 8 & 31));
        }
    return pb;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: make_images DIR COUNT WIDTH HEIGHT png|jpeg CLASSES\n");
        return 2;
    }
    const char *dir = argv[1], *type = argv[5];
    int count = atoi(argv[2]), w = atoi(argv[3]), h = atoi(argv[4]), classes = atoi(argv[6]);
    bool jpeg = strcmp(type, "jpeg") == 0;
    gchar *data[DISTINCT];
    gsize size[DISTINCT];
    for (int k = 0; k < DISTINCT; k++) {
        GdkPixbuf *pb = picture(w, h, k);
        GError *err = NULL;
        gboolean ok = jpeg ? gdk_pixbuf_save_to_buffer(pb, &data[k], &size[k], "jpeg", &err, "quality", "90", NULL)
                           : gdk_pixbuf_save_to_buffer(pb, &data[k], &size[k], "png", &err, NULL);
        g_object_unref(pb);
        if (!ok) {
            fprintf(stderr, "make_images: %s\n", err->message);
            return 1;
        }
    }
    for (int c = 0; c < classes; c++) {
        char *sub = g_strdup_printf("%s/c%d", dir, c);
        g_mkdir_with_parents(sub, 0755);
        g_free(sub);
    }
    for (int n = 0; n < count; n++) {
        char *path = g_strdup_printf("%s/c%d/%d.%s", dir, n % classes, n, jpeg ? "jpg" : "png");
        if (!g_file_set_contents(path, data[n % DISTINCT], (gssize)size[n % DISTINCT], NULL)) {
            fprintf(stderr, "make_images: cannot write %s\n", path);
            return 1;
        }
        g_free(path);
    }
    printf("%d %s files of %dx%d (%zu bytes each, about) in %s\n", count, type, w, h, size[0], dir);
    return 0;
}
