/* Walking MPEG audio frame headers (see mpeg_frames.h). */
#include "mpeg_frames.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Bit rates in kbit/s by [MPEG-1 or not][layer - 1][index]; index 0 is free
 * format, 15 is invalid. */
static const int kbps[2][3][15] = {
    {{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
     {0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
     {0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}},
    {{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
     {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
     {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}},
};
static const int mpeg1_rates[3] = {44100, 48000, 32000};

/* The length in bytes of the frame whose header is h[0..3], or 0 when h is
 * not a header this can measure. */
static long frame_length(const unsigned char h[4])
{
    if (h[0] != 0xFF || (h[1] & 0xE0) != 0xE0)
        return 0;
    int version = (h[1] >> 3) & 3; /* 0: MPEG-2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1 */
    int layer = 4 - ((h[1] >> 1) & 3); /* 4 is the reserved code 0 */
    int rate_index = (h[2] >> 2) & 3, bitrate_index = h[2] >> 4, padding = (h[2] >> 1) & 1;
    if (version == 1 || layer == 4 || rate_index == 3 || bitrate_index == 0 || bitrate_index == 15)
        return 0;
    int rate = mpeg1_rates[rate_index] >> (version == 3 ? 0 : version == 2 ? 1 : 2);
    long bits = 1000L * kbps[version != 3][layer - 1][bitrate_index];
    if (layer == 1)
        return (12 * bits / rate + padding) * 4;
    /* Layer III outside MPEG-1 has half the samples per frame. */
    long per_byte = layer == 3 && version != 3 ? 72 : 144;
    return per_byte * bits / rate + padding;
}

bool rf_mpeg_ends_mid_frame(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return false;
    bool cut = false;
    unsigned char h[10];
    long at = 0, size = 0;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        fread(h, 1, sizeof h, f) == sizeof h && memcmp(h, "ID3", 3) == 0) {
        /* ID3v2: a 10-byte header, a syncsafe size, a 10-byte footer if flagged. */
        at = 10 + ((long)(h[6] & 0x7F) << 21 | (long)(h[7] & 0x7F) << 14 | (long)(h[8] & 0x7F) << 7 | (h[9] & 0x7F));
        if (h[5] & 0x10)
            at += 10;
    }
    while (at < size && fseek(f, at, SEEK_SET) == 0) {
        size_t got = fread(h, 1, 4, f);
        if (got < 4) {
            /* A header cut short: a sync byte with nothing whole after it. */
            cut = got > 0 && h[0] == 0xFF;
            break;
        }
        long length = frame_length(h);
        if (length == 0)
            break;
        if (at + length > size) {
            cut = true;
            break;
        }
        at += length;
    }
    fclose(f);
    return cut;
}
