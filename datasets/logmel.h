/* Log-mel spectrograms (the AST / MAELRE audio recipe, SPEC 4).
 *
 * Mono float samples at `sample_rate` are cut into frames of a 25 ms window
 * every 10 ms (400 and 160 samples at 16 kHz); frame t covers samples
 * [t * hop, t * hop + window). Each frame is multiplied by a symmetric Hann
 * window (0.5 - 0.5 cos(2 pi i / (window - 1)), Kaldi's "hanning"), zero-padded
 * to n_fft (the power of two >= window: 512), transformed with FFTW (single
 * precision, real to complex), and its power spectrum |X_k|^2 (k = 0 ..
 * n_fft / 2) is summed through `mel_bins` triangular filters; the result is
 * log(max(energy, 1e-10)) (natural log).
 *
 * Filters are HTK mel triangles built in the mel domain as Kaldi does:
 * mel(f) = 1127 ln(1 + f / 700), mel_bins + 2 points equally spaced in mel
 * from 0 Hz to sample_rate / 2; filter b rises from point b to point b + 1
 * and falls to point b + 2, peak weight 1 (no Slaney area normalisation, as in
 * Kaldi and AST), so inside the first and last centres the filters sum to 1
 * at every FFT bin. With 128 filters at 16 kHz / 512 the lowest filter is
 * narrower than an FFT bin and catches none: it always holds log(1e-10).
 *
 * No dither, pre-emphasis or DC removal. A clip gives 1 + (n - window) / hop
 * frames (one zero-padded frame when shorter than a window), cropped to
 * max_frames; padding up to max_frames is left to the engine, which
 * zero-fills and masks positions past a sample's length.
 *
 * An rf_logmel is read-only after rf_logmel_new, so any number of threads may
 * call rf_logmel_compute on it at once.
 */
#ifndef RF_DATASETS_LOGMEL_H
#define RF_DATASETS_LOGMEL_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/status.h"

#define RF_LOGMEL_WINDOW_MS 25
#define RF_LOGMEL_HOP_MS 10
#define RF_LOGMEL_FLOOR 1e-10

typedef struct rf_logmel_params {
    int sample_rate;   /* Hz */
    int mel_bins;
    int max_frames;
    int window;        /* samples per frame */
    int hop;           /* samples between frame starts */
    int n_fft;
} rf_logmel_params;

typedef struct rf_logmel rf_logmel;

/* Fails (naming the value) when the parameters give a window under 4
 * samples or more mel filters than FFT bins. */
rf_logmel *rf_logmel_new(int sample_rate, int mel_bins, int max_frames, rf_status *st);
void rf_logmel_free(rf_logmel *lm);

const rf_logmel_params *rf_logmel_params_of(const rf_logmel *lm);

/* Frames a clip of n samples gives, after the crop to max_frames. */
int rf_logmel_frames(const rf_logmel *lm, int64_t n);

/* Samples the longest kept clip covers: (max_frames - 1) * hop + window.
 * Later samples never reach a feature. */
int64_t rf_logmel_samples_needed(const rf_logmel *lm);

/* Features of wave[0 .. n) into out[frames x mel_bins] (row per frame);
 * returns frames (rf_logmel_frames(lm, n)), or -1 when scratch memory
 * cannot be had. */
int rf_logmel_compute(const rf_logmel *lm, const float *wave, int64_t n, float *out);

/* The filterbank as a dense matrix w[mel_bins x (n_fft / 2 + 1)] (for the
 * GUI and tests). */
void rf_logmel_filterbank(const rf_logmel *lm, float *w);

/* The HTK mel scale and its inverse. */
double rf_mel_from_hz(double hz);
double rf_hz_from_mel(double mel);

#endif
