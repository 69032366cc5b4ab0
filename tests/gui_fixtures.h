/* Helpers the workbench tests share (test_gui.c, test_gui_files.c): the
 * session's keys, dialogs, and small data files written as fixtures. */
#ifndef RF_TESTS_GUI_FIXTURES_H
#define RF_TESTS_GUI_FIXTURES_H

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>
#include <string.h>

#include "../ui/dialogs.h"
#include "../ui/session.h"
#include "../ui/window.h"
#include "tap.h"

/* The small ListOps config the workbench tests open (small enough to
 * train full attention, BLRP and TaLK for a few steps in seconds). */
static const char small_config[] =
    "[data]\n"
    "task = listops\n"
    "max_len = 64\n"
    "min_len = 16\n"
    "train_size = 256\n"
    "val_size = 32\n"
    "test_size = 32\n"
    "batch = 16\n"
    "[model]\n"
    "encoder = full\n"
    "layers = 2\n"
    "dim = 32\n"
    "heads = 4\n"
    "ff = 64\n"
    "segment = 16\n"
    "latent = 8\n"
    "lmax = 3\n"
    "rmax = 3\n"
    "[train]\n"
    "steps = 6\n"
    "lr = 1e-3\n"
    "warmup = 1\n"
    "eval_every = 3\n"
    "checkpoint_every = 0\n"
    "log_every = 1\n"
    "threads = 1\n";

/* An error dialog whose message contains `data`. */
static inline gboolean error_shown(gpointer data)
{
    const char *detail = rf_dialog_last_error_detail();
    return detail != NULL && strstr(detail, data) != NULL;
}

static inline void close_all_dialogs(RfWindow *win)
{
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = g_list_model_get_n_items(toplevels); i > 0; i--) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i - 1);
        if (w != GTK_WINDOW(win) && GTK_IS_DIALOG(w))
            gtk_window_destroy(w);
    }
}

static inline void set_key(RfSession *s, const char *key, const char *value)
{
    g_autoptr(GError) error = NULL;
    gboolean ok = rf_session_set_key(s, key, value, NULL, &error);
    tap_ok(ok, "set %s = %s%s%s", key, value, error ? ": " : "", error ? error->message : "");
}

static inline gboolean dataset_is(RfSession *s, const char *task)
{
    const rf_dataset *ds = rf_session_get_dataset(s);
    return ds != NULL && strcmp(ds->name, task) == 0;
}

static inline char *make_folder(const char *parent, const char *name)
{
    char *path = g_build_filename(parent, name, NULL);
    g_mkdir_with_parents(path, 0700);
    return path;
}

static inline void write_bytes(const char *dir, const char *name, const void *bytes, gsize len)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_file_set_contents(path, bytes, (gssize)len, NULL);
}

/* dir/<class>/<n>.png, 12x12 of one shade per image. */
static inline void write_pngs(const char *dir, int count, int shade)
{
    for (int i = 0; i < count; i++) {
        g_autoptr(GdkPixbuf) pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, 12, 12);
        guint32 v = (guint32)(shade + 9 * i) & 0xff;
        gdk_pixbuf_fill(pb, v << 24 | v << 16 | v << 8 | 0xff);
        g_autofree char *name = g_strdup_printf("%d.png", i);
        g_autofree char *path = g_build_filename(dir, name, NULL);
        gdk_pixbuf_save(pb, path, "png", NULL, NULL);
    }
}

/* A uint8 .npy file: version 1.0, the header padded to 128 bytes. */
static inline void write_npy_u1(const char *dir, const char *name, const char *shape, const guint8 *data, gsize n)
{
    g_autofree char *dict = g_strdup_printf("{'descr': '|u1', 'fortran_order': False, 'shape': %s, }", shape);
    GByteArray *b = g_byte_array_new();
    g_byte_array_append(b, (const guint8 *)"\x93NUMPY\x01\x00\x76\x00", 10);
    g_byte_array_append(b, (const guint8 *)dict, (guint)strlen(dict));
    while (b->len < 127)
        g_byte_array_append(b, (const guint8 *)" ", 1);
    g_byte_array_append(b, (const guint8 *)"\n", 1);
    g_byte_array_append(b, data, (guint)n);
    write_bytes(dir, name, b->data, b->len);
    g_byte_array_unref(b);
}

/* A 16-bit mono PCM WAV of a tone (the header spelled out: a test fixture). */
static inline void write_wav(const char *dir, const char *name, double hz)
{
    enum { RATE = 16000, SAMPLES = RATE / 4 };
    guint8 wav[44 + 2 * SAMPLES];
    const guint32 fields[] = {36 + 2 * SAMPLES, 16, 1 | 1 << 16, RATE, 2 * RATE, 2 | 16 << 16, 2 * SAMPLES};
    memcpy(wav, "RIFF", 4);
    memcpy(wav + 8, "WAVEfmt ", 8);
    memcpy(wav + 36, "data", 4);
    const int at[] = {4, 16, 20, 24, 28, 32, 40};
    for (int f = 0; f < 7; f++)
        for (int b = 0; b < 4; b++)
            wav[at[f] + b] = (guint8)(fields[f] >> 8 * b);
    for (int i = 0; i < SAMPLES; i++) {
        gint16 v = (gint16)(8000 * sin(2 * G_PI * hz * i / RATE));
        wav[44 + 2 * i] = (guint8)v;
        wav[45 + 2 * i] = (guint8)((guint16)v >> 8);
    }
    write_bytes(dir, name, wav, sizeof wav);
}

/* dir/audio/{low,high}/<n>.wav, four tones a class, and the session's keys
 * for a quick audio model on it (16 mel bins, 32 frames, one validation
 * and one test clip). Returns the folder. */
static inline char *write_audio_folder(RfSession *s, const char *dir)
{
    char *root = make_folder(dir, "audio");
    g_autofree char *low = make_folder(root, "low"), *high = make_folder(root, "high");
    for (int i = 0; i < 4; i++) {
        g_autofree char *name = g_strdup_printf("%d.wav", i);
        write_wav(low, name, 200 + 20 * i);
        write_wav(high, name, 2000 + 100 * i);
    }
    set_key(s, "data.task", "audio_folder");
    set_key(s, "data.mel_bins", "16");
    set_key(s, "data.max_frames", "32");
    set_key(s, "data.cache", "off");
    set_key(s, "data.val_size", "1");
    set_key(s, "data.test_size", "1");
    return root;
}

#endif
