/* PNG with a pHYs chunk (png_resolution.h). */
#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "png_resolution.h"

/* 8-byte signature, then IHDR: length, type, 13 bytes, CRC. */
#define IHDR_END (8 + 4 + 4 + 13 + 4)

static cairo_status_t append(void *closure, const unsigned char *data, unsigned int length)
{
    g_byte_array_append(closure, data, length);
    return CAIRO_STATUS_SUCCESS;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

bool rf_png_write_with_resolution(cairo_surface_t *s, double dpi, const char *path, const char **problem)
{
    g_autoptr(GByteArray) png = g_byte_array_new();
    if (cairo_surface_write_to_png_stream(s, append, png) != CAIRO_STATUS_SUCCESS || png->len < IHDR_END ||
        memcmp(png->data + 12, "IHDR", 4) != 0) {
        *problem = "cairo wrote no PNG";
        return false;
    }
    /* length 9; "pHYs"; pixels per unit x and y; unit 1 = the metre; CRC
     * over type and data. */
    unsigned char chunk[4 + 4 + 9 + 4];
    uint32_t per_metre = (uint32_t)lround(dpi / 0.0254);
    put_u32(chunk, 9);
    memcpy(chunk + 4, "pHYs", 4);
    put_u32(chunk + 8, per_metre);
    put_u32(chunk + 12, per_metre);
    chunk[16] = 1;
    put_u32(chunk + 17, (uint32_t)crc32(crc32(0, NULL, 0), chunk + 4, 4 + 9));
    FILE *out = fopen(path, "wb");
    bool ok = out != NULL && fwrite(png->data, 1, IHDR_END, out) == IHDR_END &&
              fwrite(chunk, 1, sizeof chunk, out) == sizeof chunk &&
              fwrite(png->data + IHDR_END, 1, png->len - IHDR_END, out) == png->len - IHDR_END;
    if (out != NULL && fclose(out) != 0)
        ok = false;
    if (!ok)
        *problem = "cannot write the PNG";
    return ok;
}
