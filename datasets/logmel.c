/* Log-mel spectrograms with FFTW (see logmel.h). */
#include "logmel.h"

#include <fftw3.h>
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsan_sync.h"

/* FFTW's planner is not thread-safe (plan creation and destruction); the
 * execute calls on an existing plan are. */
static GMutex plan_lock;

struct rf_logmel {
    rf_logmel_params p;
    float *window;      /* [window] */
    int *first;         /* [mel_bins]: first FFT bin of each filter */
    int *count;         /* [mel_bins]: bins with a non-zero weight */
    int *offset;        /* [mel_bins]: where its weights start in `weights` */
    float *weights;
    fftwf_plan plan;    /* n_fft real -> n_fft / 2 + 1 complex */
};

double rf_mel_from_hz(double hz)
{
    return 1127.0 * log1p(hz / 700.0);
}

double rf_hz_from_mel(double mel)
{
    return 700.0 * expm1(mel / 1127.0);
}

/* Weight of FFT bin k in filter b (the triangle in the mel domain). */
static double triangle(const rf_logmel_params *p, int b, int k)
{
    double top = rf_mel_from_hz(p->sample_rate / 2.0), step = top / (p->mel_bins + 1);
    double left = step * b, centre = step * (b + 1), right = step * (b + 2);
    double m = rf_mel_from_hz((double)k * p->sample_rate / p->n_fft);
    if (m > left && m < centre)
        return (m - left) / (centre - left);
    if (m >= centre && m < right)
        return (right - m) / (right - centre);
    return 0.0;
}

static bool build_filters(rf_logmel *lm)
{
    const rf_logmel_params *p = &lm->p;
    int bins = p->n_fft / 2 + 1, mels = p->mel_bins;
    lm->first = calloc((size_t)mels, sizeof *lm->first);
    lm->count = calloc((size_t)mels, sizeof *lm->count);
    lm->offset = calloc((size_t)mels, sizeof *lm->offset);
    /* each FFT bin lies under at most two neighbouring triangles */
    lm->weights = calloc(2 * (size_t)bins, sizeof *lm->weights);
    if (lm->first == NULL || lm->count == NULL || lm->offset == NULL || lm->weights == NULL)
        return false;
    int used = 0;
    for (int b = 0; b < mels; b++) {
        int lo = bins, hi = -1;
        for (int k = 0; k < bins; k++)
            if (triangle(p, b, k) > 0.0) {
                lo = k < lo ? k : lo;
                hi = k;
            }
        lm->offset[b] = used;
        lm->first[b] = hi >= 0 ? lo : 0;
        lm->count[b] = hi >= 0 ? hi - lo + 1 : 0;
        for (int k = lm->first[b]; k < lm->first[b] + lm->count[b]; k++)
            lm->weights[used++] = (float)triangle(p, b, k);
    }
    return true;
}

static bool make_plan(rf_logmel *lm)
{
    int n = lm->p.n_fft;
    float *in = fftwf_malloc((size_t)n * sizeof *in);
    fftwf_complex *out = fftwf_malloc((size_t)(n / 2 + 1) * sizeof *out);
    if (in != NULL && out != NULL) {
        rf_mutex_lock(&plan_lock);
        lm->plan = fftwf_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE);
        rf_mutex_unlock(&plan_lock);
    }
    fftwf_free(in);
    fftwf_free(out);
    return lm->plan != NULL;
}

rf_logmel *rf_logmel_new(int sample_rate, int mel_bins, int max_frames, rf_status *st)
{
    rf_logmel_params p = {
        .sample_rate = sample_rate,
        .mel_bins = mel_bins,
        .max_frames = max_frames,
        .window = (int)lround(sample_rate * RF_LOGMEL_WINDOW_MS / 1000.0),
        .hop = (int)lround(sample_rate * RF_LOGMEL_HOP_MS / 1000.0),
        .n_fft = 1,
    };
    while (p.n_fft < p.window)
        p.n_fft *= 2;
    if (p.window < 4 || p.hop < 1 || max_frames < 1) {
        rf_fail(st, "log-mel: sample rate %d Hz gives a %d-sample window (need >= 4) and max_frames %d (need >= 1)",
                sample_rate, p.window, max_frames);
        return NULL;
    }
    if (mel_bins < 1 || mel_bins > p.n_fft / 2) {
        rf_fail(st, "log-mel: data.mel_bins = %d must be 1..%d at %d Hz (a %d-point FFT has %d bins)", mel_bins,
                p.n_fft / 2, sample_rate, p.n_fft, p.n_fft / 2 + 1);
        return NULL;
    }
    rf_logmel *lm = calloc(1, sizeof *lm);
    if (lm == NULL) {
        rf_fail(st, "out of memory for the log-mel featuriser");
        return NULL;
    }
    lm->p = p;
    lm->window = malloc((size_t)p.window * sizeof *lm->window);
    bool ok = lm->window != NULL && build_filters(lm) && make_plan(lm);
    if (!ok) {
        rf_fail(st, "out of memory for the log-mel featuriser (%d-point FFT)", p.n_fft);
        rf_logmel_free(lm);
        return NULL;
    }
    for (int i = 0; i < p.window; i++)
        lm->window[i] = (float)(0.5 - 0.5 * cos(2.0 * M_PI * i / (p.window - 1)));
    return lm;
}

void rf_logmel_free(rf_logmel *lm)
{
    if (lm == NULL)
        return;
    if (lm->plan != NULL) {
        rf_mutex_lock(&plan_lock);
        fftwf_destroy_plan(lm->plan);
        rf_mutex_unlock(&plan_lock);
    }
    free(lm->window);
    free(lm->first);
    free(lm->count);
    free(lm->offset);
    free(lm->weights);
    free(lm);
}

const rf_logmel_params *rf_logmel_params_of(const rf_logmel *lm)
{
    return &lm->p;
}

int rf_logmel_frames(const rf_logmel *lm, int64_t n)
{
    if (n <= 0)
        return 0;
    int64_t frames = n >= lm->p.window ? 1 + (n - lm->p.window) / lm->p.hop : 1;
    return frames < lm->p.max_frames ? (int)frames : lm->p.max_frames;
}

int64_t rf_logmel_samples_needed(const rf_logmel *lm)
{
    return (int64_t)(lm->p.max_frames - 1) * lm->p.hop + lm->p.window;
}

int rf_logmel_compute(const rf_logmel *lm, const float *wave, int64_t n, float *out)
{
    const rf_logmel_params *p = &lm->p;
    int frames = rf_logmel_frames(lm, n), bins = p->n_fft / 2 + 1;
    /* fftwf_malloc gives the alignment the plan was made with, as new-array execution requires */
    float *in = fftwf_malloc((size_t)p->n_fft * sizeof *in);
    fftwf_complex *spec = fftwf_malloc((size_t)bins * sizeof *spec);
    float *power = malloc((size_t)bins * sizeof *power);
    if (in == NULL || spec == NULL || power == NULL) {
        frames = -1;
        goto done;
    }
    memset(in, 0, (size_t)p->n_fft * sizeof *in);
    for (int t = 0; t < frames; t++) {
        int64_t start = (int64_t)t * p->hop;
        int avail = n - start < p->window ? (int)(n - start) : p->window;
        for (int i = 0; i < avail; i++)
            in[i] = wave[start + i] * lm->window[i];
        for (int i = avail; i < p->window; i++)
            in[i] = 0.0f;
        fftwf_execute_dft_r2c(lm->plan, in, spec);
        for (int k = 0; k < bins; k++)
            power[k] = spec[k][0] * spec[k][0] + spec[k][1] * spec[k][1];
        float *row = out + (size_t)t * p->mel_bins;
        for (int b = 0; b < p->mel_bins; b++) {
            const float *w = lm->weights + lm->offset[b], *pw = power + lm->first[b];
            float e = 0.0f;
            for (int k = 0; k < lm->count[b]; k++)
                e += w[k] * pw[k];
            row[b] = logf(e > (float)RF_LOGMEL_FLOOR ? e : (float)RF_LOGMEL_FLOOR);
        }
    }
done:
    fftwf_free(in);
    fftwf_free(spec);
    free(power);
    return frames;
}

void rf_logmel_filterbank(const rf_logmel *lm, float *w)
{
    int bins = lm->p.n_fft / 2 + 1;
    memset(w, 0, (size_t)lm->p.mel_bins * bins * sizeof *w);
    for (int b = 0; b < lm->p.mel_bins; b++)
        for (int j = 0; j < lm->count[b]; j++)
            w[(size_t)b * bins + lm->first[b] + j] = lm->weights[lm->offset[b] + j];
}
