/* The log-mel feature cache (see feature_cache.h). */
#include "feature_cache.h"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audio_decode.h"

#define MAGIC "RFLOGMEL"
#define MAGIC_LEN 8
#define HEADER_WORDS 8   /* version, sample_rate, mel_bins, max_frames, window, hop, n_fft, frames */
#define HEADER_LEN (MAGIC_LEN + HEADER_WORDS * 4 + 8)
#define READ_CHUNK (1 << 16)

bool rf_feature_cache_key(const char *path, const rf_logmel_params *p, char *key, rf_status *st)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return rf_fail(st, "%s: %s", path, g_strerror(errno));
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
    unsigned char buf[READ_CHUNK];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0)
        g_checksum_update(sum, buf, r);
    bool ok = !ferror(f);
    fclose(f);
    if (ok) {
        char params[256];
        int len = snprintf(params, sizeof params,
                           "\nrangefinder log-mel v%d sr=%d mel=%d max_frames=%d window=%d hop=%d n_fft=%d "
                           "hann=symmetric mel=htk floor=1e-10 resampler=%s",
                           RF_FEATURE_CACHE_VERSION, p->sample_rate, p->mel_bins, p->max_frames, p->window, p->hop,
                           p->n_fft, RF_AUDIO_RESAMPLER);
        g_checksum_update(sum, (const unsigned char *)params, len);
        g_strlcpy(key, g_checksum_get_string(sum), RF_FEATURE_KEY_LEN + 1);
    } else {
        rf_fail(st, "%s: read error", path);
    }
    g_checksum_free(sum);
    return ok;
}

static char *entry_path(const char *cache_dir, const char *key)
{
    char name[RF_FEATURE_KEY_LEN + 8];
    snprintf(name, sizeof name, "%s.f32", key);
    return g_build_filename(cache_dir, name, NULL);
}

static void header_words(const rf_logmel_params *p, int frames, uint32_t w[HEADER_WORDS])
{
    const int v[HEADER_WORDS] = {RF_FEATURE_CACHE_VERSION, p->sample_rate, p->mel_bins, p->max_frames,
                                 p->window, p->hop, p->n_fft, frames};
    for (int i = 0; i < HEADER_WORDS; i++)
        w[i] = (uint32_t)v[i];
}

/* Checks the header against p; the frame count and duration it holds go out. */
static bool parse_header(const unsigned char *h, const rf_logmel_params *p, int *frames, int64_t *duration)
{
    uint32_t got[HEADER_WORDS], want[HEADER_WORDS];
    memcpy(got, h + MAGIC_LEN, sizeof got);
    if (memcmp(h, MAGIC, MAGIC_LEN) != 0 || got[7] < 1 || got[7] > (uint32_t)p->max_frames)
        return false;
    header_words(p, (int)got[7], want);
    if (memcmp(got, want, sizeof got) != 0)
        return false;
    *frames = (int)got[7];
    memcpy(duration, h + MAGIC_LEN + sizeof got, sizeof *duration);
    return *duration >= 1;
}

rf_cache_result rf_feature_cache_read(const char *cache_dir, const char *key, const rf_logmel_params *p,
                                      float *feat, int *frames, int64_t *duration)
{
    char *path = entry_path(cache_dir, key);
    FILE *f = fopen(path, "rb");
    g_free(path);
    if (f == NULL)
        return errno == ENOENT ? RF_CACHE_MISS : RF_CACHE_INVALID;
    unsigned char h[HEADER_LEN];
    bool ok = fread(h, 1, HEADER_LEN, f) == HEADER_LEN && parse_header(h, p, frames, duration);
    size_t count = ok ? (size_t)*frames * p->mel_bins : 0;
    ok = ok && fread(feat, sizeof *feat, count, f) == count && fgetc(f) == EOF;
    for (size_t i = 0; ok && i < count; i++)
        ok = isfinite(feat[i]);
    fclose(f);
    return ok ? RF_CACHE_HIT : RF_CACHE_INVALID;
}

bool rf_feature_cache_write(const char *cache_dir, const char *key, const rf_logmel_params *p, const float *feat,
                            int frames, int64_t duration, rf_status *st)
{
    if (g_mkdir_with_parents(cache_dir, 0755) != 0)
        return rf_fail(st, "%s: cannot create: %s", cache_dir, g_strerror(errno));
    size_t body = (size_t)frames * p->mel_bins * sizeof *feat;
    unsigned char *buf = malloc(HEADER_LEN + body);
    if (buf == NULL)
        return rf_fail(st, "out of memory writing a cache entry");
    uint32_t w[HEADER_WORDS];
    header_words(p, frames, w);
    memcpy(buf, MAGIC, MAGIC_LEN);
    memcpy(buf + MAGIC_LEN, w, sizeof w);
    memcpy(buf + MAGIC_LEN + sizeof w, &duration, sizeof duration);
    memcpy(buf + HEADER_LEN, feat, body);
    char *path = entry_path(cache_dir, key);
    GError *err = NULL;
    bool ok = g_file_set_contents(path, (const char *)buf, (gssize)(HEADER_LEN + body), &err);
    if (!ok) {
        rf_fail(st, "%s", err->message);
        g_error_free(err);
    }
    g_free(path);
    free(buf);
    return ok;
}
