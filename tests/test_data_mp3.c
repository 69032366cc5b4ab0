/* MP3 decoding: whole streams are accepted whatever libsndfile estimates
 * their length to be, and streams cut mid-frame are refused as truncated.
 * The MP3s are encoded here by libsndfile (libmp3lame) at several bit
 * rates, sample rates and lengths, with and without the Xing/Info tag that
 * makes libsndfile's frame count exact (`lame -t` writes none). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sndfile.h>
#include <stdlib.h>
#include <string.h>

#include "../datasets/audio_decode.h"
#include "tap.h"

#define SR 16000

/* A 440 Hz sine of `frames` samples as constant-bit-rate MP3 at the bit
 * rate libsndfile picks for `level` (0: highest, 1: lowest). */
static bool write_mp3(const char *path, int rate, int64_t frames, double level)
{
    SF_INFO info = {.samplerate = rate, .channels = 1, .format = SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    if (sf == NULL)
        return false;
    int mode = SF_BITRATE_MODE_CONSTANT;
    sf_command(sf, SFC_SET_BITRATE_MODE, &mode, sizeof mode);
    sf_command(sf, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level);
    float *x = malloc((size_t)frames * sizeof *x);
    for (int64_t i = 0; i < frames; i++)
        x[i] = (float)(0.5 * sin(2 * M_PI * 440.0 * (double)i / rate));
    bool ok = sf_writef_float(sf, x, frames) == frames;
    sf_close(sf);
    free(x);
    return ok;
}

/* Offsets of the frames after the first: in a constant-bit-rate stream
 * every frame header repeats the first one's bytes but for the padding bit. */
static GArray *frame_starts(const guint8 *d, gsize n)
{
    GArray *at = g_array_new(FALSE, FALSE, sizeof(gsize));
    for (gsize i = 4; i + 4 <= n; i++)
        if (d[i] == d[0] && d[i + 1] == d[1] && (d[i + 2] & 0xFD) == (d[0 + 2] & 0xFD) && d[i + 3] == d[3])
            g_array_append_val(at, i);
    return at;
}

/* Rewrites `path` without its first frame when that is the Xing/Info tag
 * (lame writes none at the lowest bit rates, whose frames are too small). */
static bool drop_tag_frame(const char *path)
{
    guint8 *d = NULL;
    gsize n = 0;
    if (!g_file_get_contents(path, (gchar **)&d, &n, NULL))
        return false;
    GArray *at = frame_starts(d, n);
    bool ok = at->len > 0;
    if (ok && memmem(d, g_array_index(at, gsize, 0), "Info", 4) != NULL) {
        gsize second = g_array_index(at, gsize, 0);
        ok = g_file_set_contents(path, (gchar *)d + second, (gssize)(n - second), NULL);
    }
    g_array_free(at, TRUE);
    g_free(d);
    return ok;
}

/* Copies `path` to `to` up to the middle frame boundary and
 * `past_boundary` bytes beyond it. */
static bool cut_copy(const char *path, const char *to, gssize past_boundary)
{
    guint8 *d = NULL;
    gsize n = 0;
    if (!g_file_get_contents(path, (gchar **)&d, &n, NULL))
        return false;
    GArray *at = frame_starts(d, n);
    bool ok = at->len > 2;
    if (ok) {
        gsize keep = g_array_index(at, gsize, at->len / 2) + past_boundary;
        ok = g_file_set_contents(to, (gchar *)d, (gssize)keep, NULL);
    }
    g_array_free(at, TRUE);
    g_free(d);
    return ok;
}

static void test_whole_streams(const char *dir)
{
    static const int rates[] = {8000, 22050, 44100};
    static const int64_t lengths[] = {1000, 14400, 50001};
    static const double levels[] = {0.0, 0.5, 1.0};
    for (size_t r = 0; r < G_N_ELEMENTS(rates); r++)
        for (size_t l = 0; l < G_N_ELEMENTS(lengths); l++)
            for (size_t q = 0; q < G_N_ELEMENTS(levels); q++)
                for (int tagged = 1; tagged >= 0; tagged--) {
                    char name[64];
                    snprintf(name, sizeof name, "%d-%lld-%.1f%s.mp3", rates[r], (long long)lengths[l], levels[q],
                             tagged ? "" : "-untagged");
                    char *path = g_build_filename(dir, name, NULL);
                    if (!tap_ok(write_mp3(path, rates[r], lengths[l], levels[q]) &&
                                    (tagged || drop_tag_frame(path)),
                                "%s encoded", name)) {
                        g_free(path);
                        continue;
                    }
                    rf_status st = {0};
                    float *w = NULL;
                    int64_t n = 0, dur = 0;
                    bool ok = rf_audio_read(path, SR, INT64_MAX / 4, &w, &n, &dur, NULL, &st);
                    /* The decoder may add the encoder's delay and padding,
                     * never lose samples: at least the clip, resampled. */
                    int64_t expect = (int64_t)floor((double)lengths[l] * SR / rates[r]) - 2;
                    tap_ok(ok && n >= expect && dur >= n, "%s decodes whole: %lld samples at %d Hz (>= %lld) %s",
                           name, (long long)n, SR, (long long)expect, ok ? "" : st.msg);
                    free(w);
                    g_remove(path);
                    g_free(path);
                }
}

static void test_cut_streams(const char *dir)
{
    for (int tagged = 1; tagged >= 0; tagged--) {
        char *path = g_build_filename(dir, tagged ? "whole.mp3" : "whole-untagged.mp3", NULL);
        char *cut = g_build_filename(dir, "cut.mp3", NULL);
        const char *kind = tagged ? "tagged" : "untagged";
        if (!tap_ok(write_mp3(path, 22050, 50000, 0.5) && (tagged || drop_tag_frame(path)), "%s stream encoded",
                    kind))
            continue;
        static const gssize past[] = {1, 10, 100};
        for (size_t i = 0; i < G_N_ELEMENTS(past); i++) {
            rf_status st = {0};
            float *w = NULL;
            int64_t n = 0, dur = 0;
            bool ok = cut_copy(path, cut, past[i]) && !rf_audio_read(cut, SR, INT64_MAX / 4, &w, &n, &dur, NULL, &st);
            tap_ok(ok && strstr(st.msg, "cut.mp3") != NULL && strstr(st.msg, "truncated") != NULL,
                   "%s stream cut %zd bytes into a frame is refused: %s", kind, past[i], st.msg);
            free(w);
        }
        /* Cut at a frame boundary the stream is whole, only shorter. */
        rf_status st = {0};
        float *w = NULL;
        int64_t n = 0, dur = 0;
        bool ok = cut_copy(path, cut, 0) && rf_audio_read(cut, SR, INT64_MAX / 4, &w, &n, &dur, NULL, &st);
        tap_ok(ok && n > 1000 && n < 50000 * SR / 22050 && llabs(dur - n) <= 1,
               "%s stream cut at a frame boundary decodes what it holds: %lld samples %s", kind, (long long)n,
               st.msg);
        free(w);
        g_remove(cut);
        g_remove(path);
        g_free(cut);
        g_free(path);
    }
}

int main(void)
{
    char *dir = g_dir_make_tmp("rf-mp3-XXXXXX", NULL);
    if (!tap_ok(dir != NULL, "temporary folder"))
        return tap_done();
    char *probe = g_build_filename(dir, "probe.mp3", NULL);
    if (!write_mp3(probe, SR, 1000, 0.5)) {
        tap_skip("mp3", "this libsndfile writes no MP3 (%s)", sf_strerror(NULL));
    } else {
        test_whole_streams(dir);
        test_cut_streams(dir);
    }
    g_remove(probe);
    g_rmdir(dir);
    g_free(probe);
    g_free(dir);
    return tap_done();
}
