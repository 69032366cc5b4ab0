/* Audio files to mono float at one rate (see audio_decode.h). */
#include "audio_decode.h"

#include <math.h>
#include <samplerate.h>
#include <sndfile.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "mpeg_frames.h"

#define MAX_CHANNELS 256
#define CHUNK_FRAMES 4096
/* Source read past the crop, in output samples, so the sinc filter's last
 * kept outputs see real signal rather than the end of input. */
#define RESAMPLE_TAIL 64

/* Read up to `want` frames, averaging channels into *mono, which grows as
 * frames arrive (so a header claiming more than the file holds costs
 * nothing); returns frames read, or -1 when memory runs out. */
static int64_t read_mono(SNDFILE *sf, int channels, int64_t want, float **mono, float *chunk)
{
    int64_t got = 0, cap = 0;
    while (got < want) {
        if (got + CHUNK_FRAMES > cap && cap < want) {
            cap = cap == 0 ? CHUNK_FRAMES * 16 : cap * 2;
            cap = cap < want ? cap : want;
            float *grown = realloc(*mono, (size_t)cap * sizeof **mono);
            if (grown == NULL)
                return -1;
            *mono = grown;
        }
        sf_count_t ask = want - got < CHUNK_FRAMES ? want - got : CHUNK_FRAMES;
        sf_count_t r = sf_readf_float(sf, chunk, ask);
        if (r <= 0)
            break;
        for (sf_count_t i = 0; i < r; i++) {
            float sum = 0.0f;
            for (int c = 0; c < channels; c++)
                sum += chunk[i * channels + c];
            (*mono)[got + i] = sum / (float)channels;
        }
        got += r;
    }
    return got;
}

/* Finite and at most RF_AUDIO_MAX_ABS in magnitude: the resampler's sums
 * and the log-mel powers stay finite. */
static bool all_in_range(const float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!(fabsf(x[i]) <= RF_AUDIO_MAX_ABS))
            return false;
    return true;
}

/* Checks the header libsndfile parsed; the rate ratio goes to *ratio. */
static bool check_info(const char *path, const SF_INFO *info, int rate, double *ratio, rf_status *st)
{
    if (info->channels < 1 || info->channels > MAX_CHANNELS)
        return rf_fail(st, "%s: %d channels (1..%d supported)", path, info->channels, MAX_CHANNELS);
    if (info->samplerate < 1)
        return rf_fail(st, "%s: sample rate %d Hz", path, info->samplerate);
    if (info->frames < 1)
        return rf_fail(st, "%s: no audio frames", path);
    if (info->samplerate > RF_AUDIO_MAX_RATE)
        return rf_fail(st, "%s: sample rate %d Hz (at most %d)", path, info->samplerate, RF_AUDIO_MAX_RATE);
    if (info->frames > RF_AUDIO_MAX_FRAMES || info->frames / info->samplerate >= RF_AUDIO_MAX_SECONDS)
        return rf_fail(st, "%s: %lld frames at %d Hz; a clip is at most %lld frames and %d seconds", path,
                       (long long)info->frames, info->samplerate, (long long)RF_AUDIO_MAX_FRAMES,
                       RF_AUDIO_MAX_SECONDS);
    if (!sf_format_check(info))
        return rf_fail(st, "%s: unsupported sample format 0x%x", path, (unsigned)info->format);
    *ratio = (double)rate / info->samplerate;
    if (!src_is_valid_ratio(*ratio))
        return rf_fail(st, "%s: %d Hz cannot be resampled to %d Hz (libsamplerate converts up to 256x either way)",
                       path, info->samplerate, rate);
    return true;
}

static bool resample(const char *path, const float *in, int64_t n_in, double ratio, float **out, int64_t *n_out,
                     rf_status *st)
{
    int64_t cap = (int64_t)ceil((double)n_in * ratio) + 16;
    *out = malloc((size_t)cap * sizeof **out);
    if (*out == NULL)
        return rf_fail(st, "%s: out of memory resampling %lld samples", path, (long long)n_in);
    SRC_DATA d = {
        .data_in = in,
        .data_out = *out,
        .input_frames = (long)n_in,
        .output_frames = (long)cap,
        .end_of_input = 1,
        .src_ratio = ratio,
    };
    int err = src_simple(&d, SRC_SINC_FASTEST, 1);
    if (err != 0)
        return rf_fail(st, "%s: resampling failed: %s", path, src_strerror(err));
    if (d.output_frames_gen < 1)
        return rf_fail(st, "%s: %lld samples are too short to resample", path, (long long)n_in);
    *n_out = d.output_frames_gen;
    return true;
}

const char *rf_audio_format_name(int sf_format)
{
    static const struct {
        int major;
        const char *name;
    } names[] = {
        {SF_FORMAT_WAV, "wav"},   {SF_FORMAT_WAVEX, "wavex"}, {SF_FORMAT_AIFF, "aiff"}, {SF_FORMAT_AU, "au"},
        {SF_FORMAT_CAF, "caf"},   {SF_FORMAT_W64, "w64"},     {SF_FORMAT_RF64, "rf64"}, {SF_FORMAT_FLAC, "flac"},
        {SF_FORMAT_MPEG, "mp3"},
    };
    int major = sf_format & SF_FORMAT_TYPEMASK, sub = sf_format & SF_FORMAT_SUBMASK;
    if (major == SF_FORMAT_OGG)
        return sub == SF_FORMAT_OPUS ? "opus" : sub == SF_FORMAT_VORBIS ? "ogg vorbis" : "ogg";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].major == major)
            return names[i].name;
    SF_FORMAT_INFO info = {.format = major};
    if (sf_command(NULL, SFC_GET_FORMAT_INFO, &info, sizeof info) == 0 && info.extension != NULL)
        return info.extension;
    return "other";
}

const char *rf_audio_format_of(const char *path)
{
    SF_INFO info = {0};
    SNDFILE *sf = sf_open(path, SFM_READ, &info);
    if (sf == NULL)
        return NULL;
    sf_close(sf);
    return rf_audio_format_name(info.format);
}

bool rf_audio_read(const char *path, int rate, int64_t max_samples, float **wave, int64_t *n, int64_t *duration,
                   const char **format, rf_status *st)
{
    *wave = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return rf_fail(st, "%s: not a readable regular file", path);
    if ((uint64_t)sb.st_size > RF_AUDIO_MAX_FILE)
        return rf_fail(st, "%s: %lld bytes; an audio file is at most %llu", path, (long long)sb.st_size,
                       (unsigned long long)RF_AUDIO_MAX_FILE);
    SF_INFO info = {0};
    SNDFILE *sf = sf_open(path, SFM_READ, &info);
    if (sf == NULL)
        return rf_fail(st, "%s: not audio libsndfile opens (%s)", path, sf_strerror(NULL));
    if (format != NULL)
        *format = rf_audio_format_name(info.format);
    float *mono = NULL, *chunk = NULL, *out = NULL;
    double ratio = 1.0;
    bool ok = check_info(path, &info, rate, &ratio, st);
    int64_t want = 0, got = 0;
    bool estimated = false;
    if (ok) {
        *duration = llround((double)info.frames * ratio);
        double need = ceil((double)(max_samples + RESAMPLE_TAIL) / ratio) + 1;
        want = need < (double)info.frames ? (int64_t)need : info.frames;
        chunk = malloc((size_t)CHUNK_FRAMES * info.channels * sizeof *chunk);
        ok = chunk != NULL;
        if (!ok)
            rf_fail(st, "%s: out of memory", path);
    }
    if (ok) {
        got = read_mono(sf, info.channels, want, &mono, chunk);
        /* MP3's frame count is exact only with a Xing/Info tag, otherwise an
         * estimate from the file size that counts encoder padding: what the
         * codec decodes is the clip, unless the stream is cut mid-frame. */
        estimated = (info.format & SF_FORMAT_TYPEMASK) == SF_FORMAT_MPEG;
        if (estimated && got < want)
            *duration = llround((double)got * ratio);
        if (got < 0)
            ok = rf_fail(st, "%s: out of memory for %lld frames", path, (long long)want);
        else if (sf_error(sf) != SF_ERR_NO_ERROR)
            ok = rf_fail(st, "%s: %s", path, sf_strerror(sf));
        else if (got < want && !estimated)
            ok = rf_fail(st, "%s: truncated (decoded %lld of %lld frames)", path, (long long)got,
                         (long long)want);
        else if (got < want && rf_mpeg_ends_mid_frame(path))
            ok = rf_fail(st, "%s: truncated (the MPEG stream ends mid-frame after %lld frames)", path,
                         (long long)got);
        else if (got < 1)
            ok = rf_fail(st, "%s: no audio frames decoded", path);
        else if (!all_in_range(mono, got))
            ok = rf_fail(st, "%s: non-finite samples, or louder than %g (audio lies in [-1, 1])", path,
                         (double)RF_AUDIO_MAX_ABS);
    }
    if (ok && info.samplerate == rate) {
        out = mono;
        mono = NULL;
        *n = got;
    } else if (ok) {
        ok = resample(path, mono, got, ratio, &out, n, st);
    }
    sf_close(sf);
    free(mono);
    free(chunk);
    if (!ok) {
        free(out);
        return false;
    }
    *n = *n < max_samples ? *n : max_samples;
    *wave = out;
    return true;
}
