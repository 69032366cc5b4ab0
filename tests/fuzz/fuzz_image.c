/* The image wrapper (datasets/image_decode.c over gdk-pixbuf): any file
 * decodes to exactly side x side x channels bytes (ASan sees a write past
 * them) or is refused with a message; only PNG and JPEG reach a decoder,
 * and only within the size limits. The last byte picks gray or RGB and
 * the side (4..35), so resizing is exercised too. */
#include "fuzz_common.h"
#include "image_decode.h"

#include <glib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("in.png", data, size);
    int pick = size > 0 ? data[size - 1] : 0, channels = pick & 1 ? 3 : 1, side = 4 + (pick >> 1) % 32;
    uint8_t *out = malloc((size_t)side * side * channels);
    char *problem = NULL;
    if (!rf_image_decode(path, side, channels, out, &problem))
        FUZZ_CHECK(problem != NULL && problem[0] != '\0', "refused without a message");
    g_free(problem);
    free(out);
    return 0;
}
