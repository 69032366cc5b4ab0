/* The image wrapper (datasets/image_decode.c over gdk-pixbuf): any file
 * decodes to exactly side x side x channels bytes (ASan sees a write past
 * them) or is refused with a message. Every installed loader is reachable
 * (the format is sniffed from the content; the name says .png), within the
 * size limits. The last byte picks gray or RGB, the resize mode, the
 * background and the side (4..19), so scaling, cropping, padding and
 * compositing are exercised too. */
#include "fuzz_common.h"
#include "image_decode.h"

#include <glib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("in.png", data, size);
    int pick = size > 0 ? data[size - 1] : 0;
    rf_image_options o = {
        .side = 4 + (pick >> 4) % 16,
        .channels = pick & 1 ? 3 : 1,
        .resize = (rf_image_resize)((pick >> 1) % 3),
        .background = pick & 8 ? 255 : 0,
    };
    uint8_t *out = malloc((size_t)o.side * o.side * o.channels);
    char *problem = NULL;
    const char *format = NULL;
    if (!rf_image_decode(path, &o, out, &format, &problem))
        FUZZ_CHECK(problem != NULL && problem[0] != '\0', "refused without a message");
    else
        FUZZ_CHECK(format != NULL && format[0] != '\0', "decoded without naming the format");
    g_free(problem);
    free(out);
    return 0;
}
