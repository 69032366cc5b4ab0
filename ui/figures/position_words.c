/* Positions of a sample in the data's own words (see position_words.h). */
#include "position_words.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include "../../datasets/audio_folder.h"
#include "../../datasets/listops.h"
#include "../../datasets/logmel.h"
#include "../../datasets/long_match.h"
#include "data_sample.h"

double rf_position_frame_seconds(const rf_dataset *ds)
{
    int rate = rf_audio_folder_sample_rate(ds);
    /* as rf_logmel_new rounds it */
    return rate > 0 ? lround(rate * RF_LOGMEL_HOP_MS / 1000.0) / (double)rate : 0.0;
}

static char *byte_words(int b)
{
    return b == ' '                ? g_strdup("␣")
           : b == '\n'             ? g_strdup("↵")
           : b > ' ' && b < 0x7f   ? g_strdup_printf("%c", b)
                                    : g_strdup_printf("\\x%02x", b & 0xff);
}

static char *patch_words(const rf_dataset *ds, int i)
{
    int h, w, c, patch;
    rf_sample_unpatch(NULL, ds->grid_h, ds->grid_w, ds->feat_dim, NULL, &h, &w, &c, &patch);
    int row = i / ds->grid_w, col = i % ds->grid_w;
    if (patch == 1)
        return g_strdup_printf("row %d, col %d", row, col);
    return g_strdup_printf("rows %d-%d, cols %d-%d", row * patch, (row + 1) * patch - 1, col * patch,
                           (col + 1) * patch - 1);
}

char *rf_position_words(const rf_dataset *ds, const float *x, int len, int i)
{
    if (i < 0 || i >= len)
        return NULL;
    switch (rf_data_kind_of(ds)) {
    case RF_DATA_LISTOPS:
        return g_strdup(rf_listops_token_text((int)x[i]));
    case RF_DATA_TEXT:
        return byte_words((int)x[i] - 1);
    case RF_DATA_PICTURE:
        return patch_words(ds, i);
    case RF_DATA_AUDIO:
        return g_strdup_printf("%.2f s", i * rf_position_frame_seconds(ds));
    case RF_DATA_SEQUENCE:
        if (ds->feat_dim == 0 && strcmp(ds->name, "long_match") == 0)
            return g_strdup(rf_long_match_token_text((int)x[i]));
        if (ds->feat_dim == 0)
            return g_strdup_printf("id %d", (int)x[i]);
        if (ds->feat_dim == 1)
            return g_strdup_printf("%.3g", x[i]);
        break;
    }
    return NULL;
}

char **rf_position_words_range(const rf_dataset *ds, const float *x, int len, int offset, int first, int last,
                               int *n)
{
    *n = 0;
    if (rf_data_kind_of(ds) == RF_DATA_SEQUENCE && ds->feat_dim > 1)
        return NULL;
    last = MIN(last, len);
    int positions = MAX(0, last - first);
    char **names = g_new0(char *, (size_t)(offset + positions + 1));
    for (int i = 0; i < offset; i++)
        names[i] = g_strdup("CLS");
    for (int i = 0; i < positions; i++)
        names[offset + i] = rf_position_words(ds, x, len, first + i);
    *n = offset + positions;
    return names;
}
