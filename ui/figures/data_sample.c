/* One sample of a data set into the sample figure (see data_sample.h). */
#include "data_sample.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../datasets/audio_folder.h"
#include "../../datasets/image_table.h"
#include "../../datasets/listops.h"
#include "../../datasets/logmel.h"

rf_data_kind rf_data_kind_of(const rf_dataset *ds)
{
    int h, w, c, p;
    if (rf_audio_folder_sample_rate(ds) > 0)
        return RF_DATA_AUDIO;
    if (ds->grid_h > 0 && ds->grid_w > 0 && ds->feat_dim > 0 &&
        rf_sample_unpatch(NULL, ds->grid_h, ds->grid_w, ds->feat_dim, NULL, &h, &w, &c, &p))
        return RF_DATA_PICTURE;
    if (ds->feat_dim == 0 && (strcmp(ds->name, "listops") == 0 || strcmp(ds->name, "lra_tsv") == 0))
        return RF_DATA_LISTOPS;
    if (ds->feat_dim == 0 && strcmp(ds->name, "text_folder") == 0)
        return RF_DATA_TEXT;
    return RF_DATA_SEQUENCE;
}

void rf_data_class_text(const rf_dataset *ds, int label, char *buf, size_t size)
{
    if (ds->class_names != NULL && label >= 0 && label < ds->classes)
        snprintf(buf, size, "%s (class %d)", ds->class_names[label], label);
    else
        snprintf(buf, size, "class %d", label);
}

bool rf_data_sample_label(const rf_dataset *ds, rf_split split, int64_t index, float *x, char *buf, size_t size)
{
    rf_status st = {0};
    int len = 0, label = 0;
    if (!ds->get(ds, split, index, x, &len, &label, &st)) {
        snprintf(buf, size, "%s", st.msg);
        return false;
    }
    rf_data_class_text(ds, label, buf, size);
    return true;
}

/* split < 0: not a stored sample (its values are shown stretched). */
static void show_picture(rf_sample_figure *f, const rf_dataset *ds, int split, int64_t index, const float *x)
{
    int h, w, c, p, sh, sw, sc;
    rf_sample_unpatch(x, ds->grid_h, ds->grid_w, ds->feat_dim, NULL, &h, &w, &c, &p);
    float *values = g_new(float, (size_t)h * w * c);
    rf_sample_unpatch(x, ds->grid_h, ds->grid_w, ds->feat_dim, values, &h, &w, &c, &p);
    const uint8_t *stored = split >= 0 ? rf_image_pixels(ds, (rf_split)split, index, &sh, &sw, &sc) : NULL;
    bool same = stored != NULL && sh == h && sw == w && sc == c;
    rf_sample_figure_set_picture(f, same ? stored : NULL, values, h, w, c, p);
    g_free(values);
}

static void show_audio(rf_sample_figure *f, const rf_dataset *ds, rf_split split, int64_t index)
{
    rf_status st = {0};
    int frames = 0, rate = rf_audio_folder_sample_rate(ds), bins = ds->feat_dim;
    const float *logmel = rf_audio_folder_logmel(ds, split, index, &frames, &st);
    if (logmel == NULL) {
        rf_sample_figure_set_message(f, st.msg);
        return;
    }
    int64_t n = 0;
    rf_status wave_st = {0};
    float *wave = rf_audio_folder_waveform(ds, split, index, &n, &wave_st);
    /* Filter b peaks at point b + 1 of bins + 2 points equally spaced in mel from 0 Hz to Nyquist (logmel.h). */
    float *bin_hz = g_new(float, (size_t)bins);
    for (int b = 0; b < bins; b++)
        bin_hz[b] = (float)rf_hz_from_mel(rf_mel_from_hz(rate / 2.0) * (b + 1) / (bins + 1));
    rf_sample_figure_set_audio(f, wave, n, rate, wave == NULL ? wave_st.msg : NULL, logmel, frames, bins,
                               RF_LOGMEL_HOP_MS / 1000.0, bin_hz);
    g_free(bin_hz);
    free(wave);
}

static void show_listops(rf_sample_figure *f, const float *x, int len)
{
    const char **texts = g_new(const char *, (size_t)len + 1);
    for (int i = 0; i < len; i++)
        texts[i] = rf_listops_token_text((int)x[i]);
    rf_sample_figure_set_tokens(f, texts, len);
    g_free(texts);
}

const char *rf_data_sample_show(rf_sample_figure *f, const rf_dataset *ds, rf_split split, int64_t index)
{
    int width = ds->feat_dim > 0 ? ds->feat_dim : 1, len = 0, label = 0;
    float *x = g_new0(float, (size_t)ds->seq_len * width);
    rf_status st = {0};
    char title[512], label_line[256], name[160];
    snprintf(title, sizeof title, "%s #%lld", rf_split_name(split), (long long)index);
    rf_data_kind kind = rf_data_kind_of(ds);
    if (ds->describe != NULL && kind != RF_DATA_LISTOPS)   /* an expression's text is the figure itself */
        ds->describe(ds, split, index, title, sizeof title);
    bool ok = ds->get(ds, split, index, x, &len, &label, &st);
    rf_data_class_text(ds, label, name, sizeof name);
    snprintf(label_line, sizeof label_line, "label: %s", name);
    rf_sample_figure_set_caption(f, title, ok ? label_line : NULL);
    const char *audio = NULL;
    if (!ok) {
        rf_sample_figure_set_message(f, st.msg);
    } else {
        switch (kind) {
        case RF_DATA_PICTURE:
            show_picture(f, ds, split, index, x);
            break;
        case RF_DATA_AUDIO:
            show_audio(f, ds, split, index);
            audio = rf_audio_folder_file(ds, split, index);
            break;
        case RF_DATA_LISTOPS:
            show_listops(f, x, len);
            break;
        case RF_DATA_TEXT:
            rf_sample_figure_set_bytes(f, x, len);
            break;
        case RF_DATA_SEQUENCE:
            rf_sample_figure_set_sequence(f, x, len, ds->feat_dim);
            break;
        }
    }
    g_free(x);
    return audio;
}

const char *rf_data_sample_show_inspected(rf_sample_figure *f, const rf_dataset *ds, const char *name,
                                          const char *path, const float *x, int len)
{
    char title[512];
    snprintf(title, sizeof title, "inspected: %s", name);
    rf_sample_figure_set_caption(f, title, "not from the data set: no label");
    switch (rf_data_kind_of(ds)) {
    case RF_DATA_PICTURE:
        show_picture(f, ds, -1, 0, x);
        return NULL;
    case RF_DATA_LISTOPS:
        show_listops(f, x, len);
        return NULL;
    case RF_DATA_TEXT:
        rf_sample_figure_set_bytes(f, x, len);
        return NULL;
    case RF_DATA_AUDIO:
        /* the model's input: normalised log-mel frames, one column each */
        rf_sample_figure_set_sequence(f, x, len, ds->feat_dim);
        return path;
    case RF_DATA_SEQUENCE:
        rf_sample_figure_set_sequence(f, x, len, ds->feat_dim);
        return NULL;
    }
    return NULL;
}

char *rf_data_sample_text(const rf_dataset *ds, const char *text, const float *x, int len)
{
    rf_data_kind kind = rf_data_kind_of(ds);
    if (kind != RF_DATA_LISTOPS && kind != RF_DATA_TEXT)
        return NULL;
    if (text != NULL)
        return g_strdup(text);
    if (kind != RF_DATA_LISTOPS)
        return NULL;
    GString *s = g_string_new(NULL);
    for (int i = 0; i < len; i++)
        g_string_append_printf(s, i > 0 ? " %s" : "%s", rf_listops_token_text((int)x[i]));
    return g_string_free(s, FALSE);
}
