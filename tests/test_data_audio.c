/* Audio data: log-mel features against a naive reference, decoding and
 * resampling, the audio folder loader (shapes, labels, splits, cache, bad
 * files) and the spoken digits builder. Fixtures are written here with
 * libsndfile into a temporary folder. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/config.h"
#include "../datasets/audio_decode.h"
#include "../datasets/audio_folder.h"
#include "../datasets/datasets.h"
#include "../datasets/feature_cache.h"
#include "../datasets/logmel.h"
#include "../datasets/spoken_digits.h"
#include "tap.h"

#define SR 16000
#define MELS 128

/* ---- fixtures ---- */

typedef struct tone {
    double hz, amplitude, seconds;
} tone;

/* A sine (the same in every channel, plus a little deterministic noise). */
static bool write_tone(const char *path, int format, int rate, int channels, tone t)
{
    SF_INFO info = {.samplerate = rate, .channels = channels, .format = format};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    if (sf == NULL) {
        tap_diag("cannot write %s: %s", path, sf_strerror(NULL));
        return false;
    }
    sf_count_t frames = (sf_count_t)(t.seconds * rate);
    float *buf = malloc((size_t)frames * channels * sizeof *buf);
    uint32_t noise = 12345;
    for (sf_count_t i = 0; i < frames; i++)
        for (int c = 0; c < channels; c++) {
            noise = noise * 1664525u + 1013904223u;
            float n = ((float)(noise >> 8) / (1 << 24) - 0.5f) * 0.002f;
            buf[i * channels + c] = (float)(t.amplitude * sin(2 * M_PI * t.hz * i / rate)) + n;
        }
    bool ok = sf_writef_float(sf, buf, frames) == frames;
    sf_close(sf);
    free(buf);
    return ok;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    g_file_set_contents(path, data, (gssize)n, NULL);
}

static char *path_in(const char *dir, const char *a, const char *b)
{
    return g_build_filename(dir, a, b, NULL);
}

static void remove_tree(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    if (d != NULL) {
        for (const char *name; (name = g_dir_read_name(d)) != NULL;) {
            char *child = g_build_filename(path, name, NULL);
            remove_tree(child);
            g_free(child);
        }
        g_dir_close(d);
    }
    g_remove(path);
}

static rf_config audio_config(const char *path)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "audio_folder");
    g_strlcpy(cfg.data.path, path, sizeof cfg.data.path);
    cfg.data.max_frames = 200;
    cfg.data.val_size = 2;
    cfg.data.test_size = 2;
    cfg.train.seed = 7;
    return cfg;
}

/* stderr into a file while fn runs; returns what was written (g_free). */
static char *capture_stderr(rf_dataset *(*fn)(const rf_config *, rf_status *), const rf_config *cfg,
                            rf_status *st, rf_dataset **out)
{
    char *log = g_build_filename(g_get_tmp_dir(), "rf-audio-stderr-XXXXXX", NULL);
    int fd = g_mkstemp(log);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    *out = fn(cfg, st);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    char *text = NULL;
    g_file_get_contents(log, &text, NULL, NULL);
    g_remove(log);
    g_free(log);
    return text;
}

/* ---- log-mel against a direct DFT in double ---- */

static double ref_mel(double hz)
{
    return 2595.0 * log10(1.0 + hz / 700.0);
}

/* Filter b's weight at FFT bin k: HTK triangles in the mel domain. */
static double ref_weight(int b, int k, int mels, int rate, int n_fft)
{
    double step = ref_mel(rate / 2.0) / (mels + 1), m = ref_mel((double)k * rate / n_fft);
    double lo = b * step, mid = (b + 1) * step, hi = (b + 2) * step;
    if (m > lo && m <= mid)
        return (m - lo) / (mid - lo);
    if (m > mid && m < hi)
        return (hi - m) / (hi - mid);
    return 0.0;
}

static void reference_logmel(const float *x, int n, int frames, double *out)
{
    const int win = 400, hop = 160, nfft = 512, bins = nfft / 2 + 1;
    double power[257];
    for (int t = 0; t < frames; t++) {
        for (int k = 0; k < bins; k++) {
            double re = 0, im = 0;
            for (int i = 0; i < win && t * hop + i < n; i++) {
                double w = 0.5 - 0.5 * cos(2 * M_PI * i / (win - 1));
                double v = x[t * hop + i] * w;
                re += v * cos(2 * M_PI * k * i / nfft);
                im -= v * sin(2 * M_PI * k * i / nfft);
            }
            power[k] = re * re + im * im;
        }
        for (int b = 0; b < MELS; b++) {
            double e = 0;
            for (int k = 0; k < bins; k++)
                e += ref_weight(b, k, MELS, SR, nfft) * power[k];
            out[t * MELS + b] = log(fmax(e, 1e-10));
        }
    }
}

static void test_logmel_reference(void)
{
    rf_status st = {0};
    rf_logmel *lm = rf_logmel_new(SR, MELS, 100, &st);
    if (!tap_ok(lm != NULL, "log-mel featuriser at 16 kHz, 128 bins (%s)", st.msg))
        return;
    const rf_logmel_params *p = rf_logmel_params_of(lm);
    tap_ok(p->window == 400 && p->hop == 160 && p->n_fft == 512, "25 ms window 400, 10 ms hop 160, FFT 512");
    tap_ok(rf_logmel_frames(lm, 2000) == 11 && rf_logmel_frames(lm, 400) == 1 && rf_logmel_frames(lm, 50) == 1 &&
               rf_logmel_frames(lm, 0) == 0 && rf_logmel_frames(lm, 10 * SR) == 100 &&
               rf_logmel_samples_needed(lm) == 99 * 160 + 400,
           "frame counts: 1 + (n - 400) / 160, one padded frame for a short clip, cropped to max_frames");

    enum { N = 2000 };
    float x[N];
    uint32_t r = 99;
    for (int i = 0; i < N; i++) {
        r = r * 1664525u + 1013904223u;
        x[i] = (float)(0.4 * sin(2 * M_PI * 440 * i / SR) + 0.2 * sin(2 * M_PI * 2500 * i / SR)) +
               ((float)(r >> 8) / (1 << 24) - 0.5f) * 0.1f;
    }
    static float got[11 * MELS];
    static double want[11 * MELS];
    int frames = rf_logmel_compute(lm, x, N, got);
    reference_logmel(x, N, 11, want);
    double worst = 0;
    for (int i = 0; i < 11 * MELS; i++)
        worst = fmax(worst, fabs(got[i] - want[i]));
    tap_ok(frames == 11 && worst < 2e-3, "log-mel equals a direct DFT in double (11 frames, max |diff| %.2g)",
           worst);

    /* the partial last frame: samples past the end count as zeros */
    float tail[N];
    int partial = rf_logmel_compute(lm, x, 1990, tail);
    double worst_tail = 0;
    reference_logmel(x, 1990, 11, want);
    for (int i = 0; i < partial * MELS; i++)
        worst_tail = fmax(worst_tail, fabs(tail[i] - want[i]));
    tap_ok(partial == 10 && worst_tail < 2e-3, "a clip ending inside a frame (%d frames, max |diff| %.2g)",
           partial, worst_tail);

    static float fb[MELS * 257];
    rf_logmel_filterbank(lm, fb);
    double fb_worst = 0, sum_worst = 0;
    int empty = 0;
    double first_centre = ref_mel(SR / 2.0) / (MELS + 1), last_centre = first_centre * MELS;
    for (int b = 0; b < MELS; b++) {
        double total = 0;
        for (int k = 0; k < 257; k++) {
            fb_worst = fmax(fb_worst, fabs(fb[b * 257 + k] - ref_weight(b, k, MELS, SR, 512)));
            total += fb[b * 257 + k];
        }
        empty += total == 0;
    }
    for (int k = 0; k < 257; k++) {
        double m = ref_mel(k * SR / 512.0), sum = 0;
        if (m < first_centre || m > last_centre)
            continue;
        for (int b = 0; b < MELS; b++)
            sum += fb[b * 257 + k];
        sum_worst = fmax(sum_worst, fabs(sum - 1));
    }
    tap_ok(fb_worst < 1e-5 && sum_worst < 1e-5 && empty == 1,
           "mel filters: HTK triangles (max |diff| %.2g), sum to 1 between the first and last centres (%.2g), "
           "%d empty (the lowest, narrower than an FFT bin)", fb_worst, sum_worst, empty);
    rf_logmel_free(lm);
}

static void test_sine_peaks(void)
{
    rf_status st = {0};
    rf_logmel *lm = rf_logmel_new(SR, MELS, 100, &st);
    float *x = malloc(SR * sizeof *x), *f = malloc(100 * MELS * sizeof *f);
    const double freqs[] = {300, 1000, 3000, 6000};
    int good = 0;
    char seen[128] = "";
    for (int q = 0; q < 4; q++) {
        for (int i = 0; i < SR; i++)
            x[i] = (float)(0.5 * sin(2 * M_PI * freqs[q] * i / SR));
        rf_logmel_compute(lm, x, SR, f);
        int best = 0;
        for (int b = 1; b < MELS; b++)
            best = f[50 * MELS + b] > f[50 * MELS + best] ? b : best;
        double step = rf_mel_from_hz(SR / 2.0) / (MELS + 1);
        int want = (int)lround(rf_mel_from_hz(freqs[q]) / step) - 1;
        good += abs(best - want) <= 1;
        snprintf(seen + strlen(seen), sizeof seen - strlen(seen), " %.0f Hz: bin %d (want %d);", freqs[q], best,
                 want);
    }
    tap_ok(good == 4, "a sine peaks in the mel bin whose centre is nearest its frequency:%s", seen);

    /* speed: seconds of audio per second of one core */
    enum { SECONDS = 60 };
    float *long_wave = malloc((size_t)SECONDS * SR * sizeof *long_wave);
    for (int i = 0; i < SECONDS * SR; i++)
        long_wave[i] = (float)(0.3 * sin(i * 0.01) + 0.1 * sin(i * 0.37));
    rf_logmel *big = rf_logmel_new(SR, MELS, SECONDS * 100, &st);
    float *feat = malloc((size_t)SECONDS * 100 * MELS * sizeof *feat);
    clock_t t0 = clock();
    int frames = rf_logmel_compute(big, long_wave, SECONDS * SR, feat);
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    double speed = SECONDS / (cpu > 1e-6 ? cpu : 1e-6);
    tap_ok(frames == 1 + (SECONDS * SR - 400) / 160 && speed >= 200,
           "log-mel runs at %.0fx real time on one core (target >= 200x; %d frames in %.3f s CPU)", speed, frames,
           cpu);
    free(feat);
    free(long_wave);
    rf_logmel_free(big);
    rf_logmel_free(lm);
    free(x);
    free(f);
}

/* ---- decoding ---- */

static void test_decode(const char *dir)
{
    char *wav = g_build_filename(dir, "a.wav", NULL), *flac = g_build_filename(dir, "b.flac", NULL);
    write_tone(wav, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 44100, 2, (tone){1000, 0.5, 0.5});
    write_tone(flac, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 8000, 1, (tone){500, 0.5, 1.0});
    rf_status st = {0};
    float *w = NULL;
    int64_t n = 0, dur = 0;
    bool ok = rf_audio_read(wav, SR, INT64_MAX / 4, &w, &n, &dur, NULL, &st);
    tap_ok(ok && llabs(n - 8000) <= 1 && dur == 8000, "44.1 kHz stereo 0.5 s -> %lld samples at 16 kHz (%s)",
           (long long)n, st.msg);
    double peak = 0;
    for (int64_t i = 100; ok && i < n - 100; i++)
        peak = fmax(peak, fabs(w[i]));
    tap_ok(ok && fabs(peak - 0.5) < 0.02, "downmixed and resampled sine keeps its amplitude (%.3f)", peak);
    free(w);
    ok = rf_audio_read(flac, SR, INT64_MAX / 4, &w, &n, &dur, NULL, &st);
    tap_ok(ok && llabs(n - 16000) <= 1, "8 kHz FLAC 1 s -> %lld samples at 16 kHz", (long long)n);
    free(w);
    ok = rf_audio_read(flac, SR, 1234, &w, &n, &dur, NULL, &st);
    tap_ok(ok && n == 1234 && dur == 16000, "max_samples crops (%lld), duration is the whole clip (%lld)",
           (long long)n, (long long)dur);
    free(w);
    char *missing = g_build_filename(dir, "nope.wav", NULL);
    rf_status_clear(&st);
    tap_ok(!rf_audio_read(missing, SR, 100, &w, &n, &dur, NULL, &st) && strstr(st.msg, "nope.wav") != NULL,
           "a missing file fails naming it: %s", st.msg);
    g_remove(wav);
    g_remove(flac);
    g_free(wav);
    g_free(flac);
    g_free(missing);
}

/* ---- the audio folder ---- */

static const char *const animals[] = {"bird", "cat", "dog"};
static const double animal_hz[] = {3000, 600, 1500};

/* Three classes, four clips each: WAV 44.1 kHz stereo, FLAC 8 kHz mono,
 * OGG/Vorbis 22.05 kHz mono, WAV 16 kHz mono; lengths 0.3 .. 1.2 s. */
static void make_animals(const char *root)
{
    for (int c = 0; c < 3; c++) {
        char *dir = g_build_filename(root, animals[c], NULL);
        g_mkdir_with_parents(dir, 0755);
        const struct {
            const char *name;
            int format, rate, channels;
        } kinds[] = {
            {"a.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 44100, 2},
            {"b.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 8000, 1},
            {"c.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 22050, 1},
            {"d.WAV", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 16000, 1},
        };
        for (int k = 0; k < 4; k++) {
            char *path = g_build_filename(dir, kinds[k].name, NULL);
            write_tone(path, kinds[k].format, kinds[k].rate, kinds[k].channels,
                       (tone){animal_hz[c], 0.4, 0.3 + 0.3 * k});
            g_free(path);
        }
        g_free(dir);
    }
}

typedef struct snapshot {
    int64_t size[RF_SPLIT_COUNT];
    float *x;       /* every sample, seq_len x feat_dim each */
    int len[64], label[64];
    char name[64][128];
} snapshot;

static bool take_snapshot(const rf_dataset *ds, snapshot *s)
{
    size_t row = (size_t)ds->seq_len * ds->feat_dim;
    int64_t total = ds->size[0] + ds->size[1] + ds->size[2], i = 0;
    if (total > 64)
        return false;
    s->x = calloc((size_t)total * row, sizeof *s->x);
    rf_status st = {0};
    for (int sp = 0; sp < RF_SPLIT_COUNT; sp++) {
        s->size[sp] = ds->size[sp];
        for (int64_t k = 0; k < ds->size[sp]; k++, i++) {
            if (!ds->get(ds, (rf_split)sp, k, s->x + i * row, &s->len[i], &s->label[i], &st) ||
                !ds->describe(ds, (rf_split)sp, k, s->name[i], sizeof s->name[i]))
                return false;
        }
    }
    return true;
}

static bool same_snapshot(const snapshot *a, const snapshot *b, size_t row)
{
    int64_t total = a->size[0] + a->size[1] + a->size[2];
    if (memcmp(a->size, b->size, sizeof a->size) != 0)
        return false;
    for (int64_t i = 0; i < total; i++)
        if (a->len[i] != b->len[i] || a->label[i] != b->label[i] || strcmp(a->name[i], b->name[i]) != 0 ||
            memcmp(a->x + i * row, b->x + i * row, row * sizeof *a->x) != 0)
            return false;
    return true;
}

static void test_folder_shapes(const char *root)
{
    rf_config cfg = audio_config(root);
    strcpy(cfg.data.cache, "off");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    if (!tap_ok(ds != NULL, "audio folder of WAV 44.1 kHz stereo, FLAC 8 kHz, OGG, float WAV opens (%s)", st.msg))
        return;
    tap_ok(ds->seq_len == 200 && ds->feat_dim == MELS && ds->grid_h == 0 && ds->grid_w == 0 && ds->classes == 3 &&
               strcmp(ds->class_names[0], "bird") == 0 && strcmp(ds->class_names[2], "dog") == 0,
           "one token per frame: seq_len = max_frames 200, feat_dim = 128, 1-D, classes bird cat dog");
    tap_ok(ds->size[RF_SPLIT_TRAIN] == 8 && ds->size[RF_SPLIT_VAL] == 2 && ds->size[RF_SPLIT_TEST] == 2,
           "12 clips: 8 train, 2 val, 2 test (%lld %lld %lld)", (long long)ds->size[0], (long long)ds->size[1],
           (long long)ds->size[2]);
    static snapshot s;
    bool got = take_snapshot(ds, &s);
    int right = 0, total = 12;
    double sum = 0, sq = 0, count = 0;
    size_t row = (size_t)ds->seq_len * ds->feat_dim;
    for (int i = 0; got && i < total; i++) {
        /* clip k of a class lasts 0.3 + 0.3 k s: 16 kHz samples -> frames; the name gives the class */
        int k = s.name[i][strlen(ds->class_names[s.label[i]]) + 1] - 'a';
        int frames = 1 + ((int)lround((0.3 + 0.3 * k) * SR) - 400) / 160;
        right += strncmp(s.name[i], ds->class_names[s.label[i]], strlen(ds->class_names[s.label[i]])) == 0 &&
                 abs(s.len[i] - frames) <= 1;
        if (i < 8)
            for (size_t j = 0; j < (size_t)s.len[i] * MELS; j++) {
                sum += s.x[i * row + j];
                sq += (double)s.x[i * row + j] * s.x[i * row + j];
                count++;
            }
    }
    tap_ok(got && right == total, "every sample's label matches its folder and its length its duration (%d of %d; "
                                  "e.g. %s len %d)", right, total, s.name[0], s.len[0]);
    double mean = sum / count, sd = sqrt(sq / count - mean * mean);
    tap_ok(fabs(mean) < 1e-3 && fabs(sd - 1) < 1e-3, "train features normalised: mean %.2g, std %.4f", mean, sd);

    int peak_ok = 0;
    for (int i = 0; got && i < total; i++) {
        int c = s.label[i], best = 0;
        const float *frame = s.x + i * row + (size_t)(s.len[i] / 2) * MELS;
        for (int b = 1; b < MELS; b++)
            best = frame[b] > frame[best] ? b : best;
        double centre = rf_hz_from_mel((best + 1) * rf_mel_from_hz(SR / 2.0) / (MELS + 1));
        peak_ok += fabs(centre - animal_hz[c]) < 0.1 * animal_hz[c];
    }
    tap_ok(peak_ok == total, "each clip's tone shows in its mel peak after decode and resampling (%d of %d)",
           peak_ok, total);

    char desc[128];
    ds->describe(ds, RF_SPLIT_TRAIN, 0, desc, sizeof desc);
    tap_ok(strstr(desc, " s, ") != NULL && strstr(desc, "frames)") != NULL, "describe: %s", desc);

    int frames = 0;
    const float *lm = rf_audio_folder_logmel(ds, RF_SPLIT_TRAIN, 0, &frames, &st);
    int64_t n = 0;
    float *wave = rf_audio_folder_waveform(ds, RF_SPLIT_TRAIN, 0, &n, &st);
    tap_ok(lm != NULL && frames == s.len[0] && wave != NULL && 1 + (n - 400) / 160 == frames &&
               rf_audio_folder_file(ds, RF_SPLIT_TRAIN, 0) != NULL,
           "raw access: log-mel %d frames, waveform %lld samples at 16 kHz, file path", frames, (long long)n);
    free(wave);
    tap_ok(rf_audio_folder_logmel(ds, RF_SPLIT_TEST, 2, &frames, &st) == NULL && strstr(st.msg, "test") != NULL,
           "raw access past the end fails: %s", st.msg);
    float x[1];
    int len, label;
    rf_status_clear(&st);
    tap_ok(!ds->get(ds, RF_SPLIT_VAL, 2, x, &len, &label, &st) && strstr(st.msg, "val") != NULL,
           "get() past the end fails: %s", st.msg);

    rf_audio_folder_stats stats = {0};
    bool have = rf_audio_folder_get_stats(ds, &stats);
    tap_ok(have && stats.clips == 12 && stats.skipped == 0 &&
               stats.cache_hits == 0 && fabs(stats.audio_seconds - 3 * (0.3 + 0.6 + 0.9 + 1.2)) < 0.01,
           "stats: %lld clips, %.2f s of audio, nothing skipped, no cache", (long long)stats.clips,
           stats.audio_seconds);
    char *cache = g_build_filename(root, RF_FEATURE_CACHE_DIR, NULL);
    tap_ok(!g_file_test(cache, G_FILE_TEST_EXISTS), "data.cache = off writes no cache");
    g_free(cache);

    rf_dataset *again = rf_dataset_open(&cfg, &st);
    cfg.train.seed = 8;
    rf_dataset *other = rf_dataset_open(&cfg, &st);
    static snapshot s2, s3;
    bool same = again != NULL && take_snapshot(again, &s2) && same_snapshot(&s, &s2, row);
    bool moved = other != NULL && take_snapshot(other, &s3) && !same_snapshot(&s, &s3, row);
    tap_ok(same && moved, "splits are deterministic by train.seed (same seed same samples, another seed differs)");
    free(s.x);
    free(s2.x);
    free(s3.x);
    rf_dataset_free(again);
    rf_dataset_free(other);
    rf_dataset_free(ds);
}

static GPtrArray *cache_files(const char *root)
{
    char *dir = g_build_filename(root, RF_FEATURE_CACHE_DIR, NULL);
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    GDir *d = g_dir_open(dir, 0, NULL);
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;)
        if (g_str_has_suffix(name, ".f32"))
            g_ptr_array_add(files, g_build_filename(dir, name, NULL));
    if (d != NULL)
        g_dir_close(d);
    g_ptr_array_sort(files, (GCompareFunc)strcmp);
    g_free(dir);
    return files;
}

static void test_cache(const char *root)
{
    rf_config cfg = audio_config(root);
    rf_status st = {0};
    rf_dataset *first = rf_dataset_open(&cfg, &st);
    rf_audio_folder_stats a = {0}, b = {0}, c = {0};
    rf_audio_folder_get_stats(first, &a);
    GPtrArray *files = cache_files(root);
    tap_ok(first != NULL && a.cache_hits == 0 && a.cache_written == 12 && files->len == 12,
           "first open computes and caches 12 clips (%lld written, %u files)", (long long)a.cache_written,
           files->len);
    rf_dataset *second = rf_dataset_open(&cfg, &st);
    rf_audio_folder_get_stats(second, &b);
    static snapshot s1, s2, s3;
    size_t row = (size_t)cfg.data.max_frames * MELS;
    bool same = first != NULL && second != NULL && take_snapshot(first, &s1) && take_snapshot(second, &s2) &&
                same_snapshot(&s1, &s2, row);
    tap_ok(b.cache_hits == 12 && b.cache_written == 0 && same,
           "second open reads the cache (%lld hits) and gives the same samples", (long long)b.cache_hits);

    /* damage three entries: cut the body, break the version, NaNs in the body */
    for (guint i = 0; i < 3 && i < files->len; i++) {
        char *text = NULL;
        gsize size = 0;
        g_file_get_contents(files->pdata[i], &text, &size, NULL);
        if (i == 1)
            text[9] ^= 0x55;
        if (i == 2)
            memset(text + 48, 0xff, size - 48);
        write_bytes(files->pdata[i], text, i == 0 ? size - 10 : size);
        g_free(text);
    }
    rf_dataset *third = rf_dataset_open(&cfg, &st);
    rf_audio_folder_get_stats(third, &c);
    same = third != NULL && take_snapshot(third, &s3) && same_snapshot(&s1, &s3, row);
    tap_ok(c.cache_hits == 9 && c.cache_rejected == 3 && c.cache_written == 3 && same,
           "corrupt cache entries are recomputed and rewritten, not fatal (%lld hits, %lld rejected, %lld rewritten)",
           (long long)c.cache_hits, (long long)c.cache_rejected, (long long)c.cache_written);

    cfg.data.mel_bins = 64;
    rf_dataset *other = rf_dataset_open(&cfg, &st);
    rf_audio_folder_stats d = {0};
    rf_audio_folder_get_stats(other, &d);
    tap_ok(other != NULL && d.cache_hits == 0 && d.cache_written == 12 && other->feat_dim == 64,
           "other feature parameters get their own entries (%lld hits)", (long long)d.cache_hits);
    free(s1.x);
    free(s2.x);
    free(s3.x);
    g_ptr_array_unref(files);
    rf_dataset_free(first);
    rf_dataset_free(second);
    rf_dataset_free(third);
    rf_dataset_free(other);
}

static void test_bad_files(const char *dir)
{
    char *root = g_build_filename(dir, "bad", NULL);
    make_animals(root);
    char *good = path_in(root, "cat", "a.wav"), *text = NULL;
    gsize size = 0;
    g_file_get_contents(good, &text, &size, NULL);
    char *p;
    write_bytes(p = path_in(root, "cat", "cut_header.wav"), text, 20);
    g_free(p);
    write_bytes(p = path_in(root, "cat", "no_frames.wav"), text, 44);
    g_free(p);
    write_bytes(p = path_in(root, "cat", "cut_data.wav"), text, size / 2);   /* libsndfile keeps what is there */
    g_free(p);
    write_bytes(p = path_in(root, "dog", "notes.wav"), "this is text, not audio\n", 24);
    g_free(p);
    write_bytes(p = path_in(root, "dog", "song.mp3"), "ID3", 3);
    g_free(p);
    g_free(text);
    g_file_get_contents(p = path_in(root, "bird", "b.flac"), &text, &size, NULL);
    g_free(p);
    write_bytes(p = path_in(root, "bird", "cut.flac"), text, size / 2);
    g_free(p);
    g_free(text);
    g_mkdir_with_parents(p = g_build_filename(root, "empty", NULL), 0755);
    g_free(p);
    g_mkdir_with_parents(p = g_build_filename(root, "junk", NULL), 0755);
    g_free(p);
    write_bytes(p = path_in(root, "junk", "x.ogg"), "OggS but not really", 19);
    g_free(p);
    write_bytes(p = path_in(root, "cat", ".hidden.wav"), "ignored", 7);
    g_free(p);
    mkfifo(p = path_in(root, "dog", "pipe.wav"), 0644);
    g_free(p);

    rf_config cfg = audio_config(root);
    strcpy(cfg.data.cache, "off");
    rf_status st = {0};
    rf_dataset *ds = NULL;
    char *log = capture_stderr(rf_dataset_open, &cfg, &st, &ds);
    rf_audio_folder_stats stats = {0};
    rf_audio_folder_get_stats(ds, &stats);
    tap_ok(ds != NULL && ds->classes == 3 && stats.clips == 13 && stats.skipped == 7 && stats.empty_classes == 2,
           "bad files skipped: %lld clips kept, %lld files skipped, %lld empty classes dropped (%s)",
           (long long)stats.clips, (long long)stats.skipped, (long long)stats.empty_classes, st.msg);
    /* the first RF_SKIPS_NAMED (5) bad files named, the other 2 counted */
    const char *expect[] = {"cut_header.wav: ", "no_frames.wav: no audio frames (skipped)",
                            "notes.wav: not audio libsndfile opens (Format not recognised",
                            "pipe.wav: not a regular file (skipped)", "cut.flac: ",
                            "2 more files skipped (7 in all", "empty: class folder without a usable audio clip",
                            "junk: class folder without a usable audio clip"};
    int found = 0;
    for (int i = 0; i < 8; i++)
        found += log != NULL && strstr(log, expect[i]) != NULL;
    int lines = 0;
    for (const char *q = log; q != NULL && (q = strstr(q, "rangefinder: warning: ")) != NULL; q++)
        lines++;
    tap_ok(found == 8 && lines == 8 && strstr(log, "hidden") == NULL && strstr(log, "song.mp3") == NULL,
           "a warning line per bad file (the first 5), one counting the rest, one per empty class (%d of 8 found, "
           "%d lines)", found, lines);
    char **said = g_strsplit(found < 8 && log != NULL ? log : "", "\n", -1);
    for (int i = 0; said[i] != NULL && said[i][0] != '\0'; i++)
        tap_diag("stderr: %s", said[i]);
    g_strfreev(said);
    g_free(log);
    rf_dataset_free(ds);

    strcpy(cfg.data.strict, "true");
    rf_status_clear(&st);
    ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds == NULL && strstr(st.msg, "bird/cut.flac") != NULL && strstr(st.msg, "strict") != NULL,
           "data.strict = true: the first bad file is an error: %s", st.msg);
    rf_dataset_free(ds);

    strcpy(cfg.data.strict, "false");
    char *only = g_build_filename(dir, "one-class", NULL);
    char *cls = g_build_filename(only, "solo", NULL);
    g_mkdir_with_parents(cls, 0755);
    char *clip = g_build_filename(cls, "x.wav", NULL);
    write_tone(clip, SF_FORMAT_WAV | SF_FORMAT_PCM_16, SR, 1, (tone){440, 0.3, 0.2});
    g_strlcpy(cfg.data.path, only, sizeof cfg.data.path);
    rf_status_clear(&st);
    ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds == NULL && strstr(st.msg, "at least 2") != NULL, "one class is an error: %s", st.msg);
    g_strlcpy(cfg.data.path, clip, sizeof cfg.data.path);
    rf_status_clear(&st);
    ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds == NULL && strstr(st.msg, "not a folder") != NULL, "data.path not a folder: %s", st.msg);
    cfg.data.path[0] = '\0';
    rf_status_clear(&st);
    ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds == NULL && strstr(st.msg, "data.path") != NULL, "empty data.path: %s", st.msg);
    cfg.data.sample_rate = 1000;
    cfg.data.mel_bins = 64;
    g_strlcpy(cfg.data.path, root, sizeof cfg.data.path);
    rf_status_clear(&st);
    ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds == NULL && strstr(st.msg, "mel_bins") != NULL, "more mel bins than FFT bins: %s", st.msg);
    g_free(clip);
    g_free(cls);
    g_free(only);
    g_free(good);
    g_free(root);
}

/* train/<class> and test/<class>: the test folder is the test split. */
static void test_fixed_split(const char *dir)
{
    char *root = g_build_filename(dir, "fixed", NULL);
    const char *parts[] = {"train", "test"};
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < (s == 0 ? 6 : 3); k++) {
                char *d = g_build_filename(root, parts[s], c ? "high" : "low", NULL);
                g_mkdir_with_parents(d, 0755);
                char name[32];
                snprintf(name, sizeof name, "%d.wav", k);
                char *path = g_build_filename(d, name, NULL);
                write_tone(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 22050, 1, (tone){c ? 4000 : 200, 0.3, 0.25});
                g_free(path);
                g_free(d);
            }
    rf_config cfg = audio_config(root);
    cfg.data.val_size = 3;
    cfg.data.test_size = 1;   /* unused: the test folder decides */
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    int from_test = 0, from_train = 0;
    char desc[128];
    for (int64_t i = 0; ds != NULL && i < ds->size[RF_SPLIT_TEST]; i++)
        from_test += ds->describe(ds, RF_SPLIT_TEST, i, desc, sizeof desc) && strncmp(desc, "test/", 5) == 0;
    for (int64_t i = 0; ds != NULL && i < ds->size[RF_SPLIT_VAL]; i++)
        from_train += ds->describe(ds, RF_SPLIT_VAL, i, desc, sizeof desc) && strncmp(desc, "train/", 6) == 0;
    tap_ok(ds != NULL && ds->classes == 2 && ds->size[RF_SPLIT_TRAIN] == 9 && ds->size[RF_SPLIT_VAL] == 3 &&
               ds->size[RF_SPLIT_TEST] == 6 && from_test == 6 && from_train == 3,
           "train/ and test/ folders: test is test/ (6), val carved from train/ (3), train 9 (%s)", st.msg);
    rf_dataset_free(ds);
    /* data.path given with a trailing separator: the names keep their first letter */
    rf_config slash = cfg;
    snprintf(slash.data.path, sizeof slash.data.path, "%s/", root);
    ds = rf_dataset_open(&slash, &st);
    bool named = ds != NULL && ds->describe(ds, RF_SPLIT_TEST, 0, desc, sizeof desc);
    tap_ok(named && strncmp(desc, "test/", 5) == 0, "data.path ending in '/': samples named from the root (%s)",
           named ? desc : st.msg);
    rf_dataset_free(ds);
    cfg.data.val_size = 100;
    char *log = capture_stderr(rf_dataset_open, &cfg, &st, &ds);
    tap_ok(ds != NULL && ds->size[RF_SPLIT_VAL] == 3 && ds->size[RF_SPLIT_TRAIN] == 9 && log != NULL &&
               strstr(log, "data.val_size capped to 3") != NULL,
           "a val_size beyond the training clips is capped to a quarter, with a warning");
    rf_dataset_free(ds);
    g_free(log);
    g_free(root);
}

/* ---- spoken digits ---- */

static void count_progress(int64_t done, int64_t total, void *user)
{
    int64_t *calls = user;
    calls[0]++;
    calls[1] = done == total ? total : calls[1];
}

static int count_wavs(const char *root, const char *split)
{
    int n = 0;
    char *dir = g_build_filename(root, split, NULL);
    GDir *d = g_dir_open(dir, 0, NULL);
    for (const char *word; d != NULL && (word = g_dir_read_name(d)) != NULL;) {
        char *sub = g_build_filename(dir, word, NULL);
        GDir *w = g_dir_open(sub, 0, NULL);
        for (const char *f; w != NULL && (f = g_dir_read_name(w)) != NULL;)
            n += g_str_has_suffix(f, ".wav") && f[0] != '.';
        if (w != NULL)
            g_dir_close(w);
        g_free(sub);
    }
    if (d != NULL)
        g_dir_close(d);
    g_free(dir);
    return n;
}

/* Class folders named by digit words keep the digits' order (class 0 is
 * "zero", not "eight" as by name); any other name among them sorts all by
 * name. The labels follow the folders either way. */
static void test_digit_word_classes(const char *dir)
{
    static const char *const folders[] = {"eight", "nine", "One", "zero", "two"};
    static const char *const numeric[] = {"zero", "One", "two", "eight", "nine"};
    char *root = g_build_filename(dir, "digit-words", NULL);
    for (int c = 0; c < 5; c++)
        for (int k = 0; k < 2; k++) {
            char *sub = g_build_filename(root, folders[c], NULL), name[16];
            g_mkdir_with_parents(sub, 0755);
            snprintf(name, sizeof name, "%d.wav", k);
            char *path = g_build_filename(sub, name, NULL);
            write_tone(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 1, (tone){500.0 + 300 * c, 0.4, 0.3});
            g_free(path);
            g_free(sub);
        }
    rf_config cfg = audio_config(root);
    strcpy(cfg.data.cache, "off");
    cfg.data.val_size = cfg.data.test_size = 0;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    bool in_order = ds != NULL && ds->classes == 5;
    for (int c = 0; in_order && c < 5; c++)
        in_order = strcmp(ds->class_names[c], numeric[c]) == 0;
    snapshot snap = {0};
    bool labelled = in_order && take_snapshot(ds, &snap);
    for (int64_t i = 0; labelled && i < snap.size[RF_SPLIT_TRAIN]; i++)
        labelled = g_str_has_prefix(snap.name[i], ds->class_names[snap.label[i]]);
    tap_ok(in_order && labelled, "digit-word classes in the digits' order: zero One two eight nine, labels follow (%s)",
           st.msg);
    free(snap.x);
    rf_dataset_free(ds);

    char *other = g_build_filename(root, "cat", NULL);
    g_mkdir_with_parents(other, 0755);
    char *path = g_build_filename(other, "0.wav", NULL);
    write_tone(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 1, (tone){200.0, 0.4, 0.3});
    rf_status_clear(&st);
    ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds != NULL && ds->classes == 6 && strcmp(ds->class_names[0], "One") == 0 &&
               strcmp(ds->class_names[1], "cat") == 0 && strcmp(ds->class_names[5], "zero") == 0,
           "with a class \"cat\" among them the classes sort by name (%s)", st.msg);
    rf_dataset_free(ds);
    g_free(path);
    g_free(other);
    g_free(root);
}

static void test_spoken_digits(const char *dir)
{
    char *program = g_find_program_in_path("espeak-ng");
    if (program == NULL) {
        tap_skip("spoken digits made with espeak-ng", "espeak-ng is not installed");
        return;
    }
    g_free(program);
    char *root = g_build_filename(dir, "digits", NULL);
    rf_spoken_digits_options opt;
    rf_spoken_digits_defaults(&opt);
    opt.max_voices = 2;
    opt.test_groups = 1;
    opt.variants = 0;
    opt.n_speeds = opt.n_pitches = 1;
    int64_t calls[2] = {0, 0};
    rf_spoken_digits_result made = {0};
    opt.progress = count_progress;
    opt.user = calls;
    opt.result = &made;
    rf_status st = {0};
    gint64 t0 = g_get_monotonic_time();
    bool ok = rf_spoken_digits_make(root, &opt, &st);
    double seconds = (g_get_monotonic_time() - t0) / 1e6;
    char *readme = g_build_filename(root, "README.txt", NULL), *text = NULL;
    g_file_get_contents(readme, &text, NULL, NULL);
    tap_ok(ok && count_wavs(root, "train") == 10 && count_wavs(root, "test") == 10 && calls[0] == 20 &&
               calls[1] == 20 && made.train == 10 && made.test == 10 && made.duplicates == 0 && made.groups == 2 &&
               text != NULL && strstr(text, "Test voices") != NULL,
           "spoken digits, 2 voices x 1 speed x 1 pitch: 10 train + 10 test WAVs and a README in %.2f s (%s)",
           seconds, st.msg);
    char *staging = g_build_filename(root, ".staging", NULL);
    tap_ok(!g_file_test(staging, G_FILE_TEST_EXISTS), "the staging folder is gone");
    g_free(staging);
    g_free(text);

    rf_config cfg = audio_config(root);
    cfg.data.max_frames = 128;
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds != NULL && ds->classes == 10 && strcmp(ds->class_names[0], "zero") == 0 &&
               strcmp(ds->class_names[9], "nine") == 0 &&
               ds->size[RF_SPLIT_TRAIN] == 8 && ds->size[RF_SPLIT_VAL] == 2 && ds->size[RF_SPLIT_TEST] == 10,
           "it opens as an audio folder: 10 classes zero .. nine, train 8 / val 2 from one voice, test 10 from the other (%s)",
           st.msg);
    rf_dataset_free(ds);

    calls[0] = 0;
    t0 = g_get_monotonic_time();
    ok = rf_spoken_digits_make(root, &opt, &st);
    tap_ok(ok && calls[0] == 20 && count_wavs(root, "train") == 10,
           "a second run keeps the existing files (%.2f s)", (g_get_monotonic_time() - t0) / 1e6);

    opt.test_groups = 2;
    rf_status_clear(&st);
    tap_ok(!rf_spoken_digits_make(root, &opt, &st) && strstr(st.msg, "too few") != NULL,
           "holding out every voice fails: %s", st.msg);
    opt.test_groups = 1;
    opt.speeds[0] = 20;
    rf_status_clear(&st);
    tap_ok(!rf_spoken_digits_make(root, &opt, &st) && strstr(st.msg, "speed 20") != NULL, "a bad speed fails: %s",
           st.msg);
    g_free(readme);
    g_free(root);
}

int main(void)
{
    char *dir = g_dir_make_tmp("rf-audio-XXXXXX", NULL);
    if (!tap_ok(dir != NULL, "temporary folder"))
        return tap_done();
    test_logmel_reference();
    test_sine_peaks();
    test_decode(dir);
    char *animals_root = g_build_filename(dir, "animals", NULL);
    make_animals(animals_root);
    test_folder_shapes(animals_root);
    test_cache(animals_root);
    test_bad_files(dir);
    test_fixed_split(dir);
    test_digit_word_classes(dir);
    test_spoken_digits(dir);
    remove_tree(dir);
    g_free(animals_root);
    g_free(dir);
    return tap_done();
}
