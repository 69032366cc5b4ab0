/* Reading one audio file as mono float samples at a chosen rate.
 *
 * libsndfile decodes (WAV, FLAC, OGG/Vorbis and the rest it knows; integer
 * samples come out in [-1, 1)), channels are averaged to mono, and
 * libsamplerate converts the rate with SRC_SINC_FASTEST: a band-limited
 * sinc that passes 80% of the lower Nyquist flat (6.4 of 8 kHz at 16 kHz;
 * the top mel bins see its roll-off). SRC_SINC_MEDIUM (90%) measured 2.2x
 * slower here: 44.1 -> 16 kHz at 105x real time against 230x.
 */
#ifndef RF_DATASETS_AUDIO_DECODE_H
#define RF_DATASETS_AUDIO_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/status.h"

#define RF_AUDIO_RESAMPLER "sinc_fastest"

/* Limits, checked before decoding: a file of at most 1 GiB, a sample rate
 * of at most 384 kHz, a clip shorter than an hour and of at most 2^27
 * frames (46 minutes at 48 kHz). The decoded frames' buffer grows as they
 * arrive and holds at most the frames needed for `max_samples` outputs, so
 * decoding allocates at most 512 MiB of mono samples and the resampled copy. */
#define RF_AUDIO_MAX_FILE ((uint64_t)1 << 30)
#define RF_AUDIO_MAX_RATE 384000
#define RF_AUDIO_MAX_SECONDS 3600
#define RF_AUDIO_MAX_FRAMES ((int64_t)1 << 27)
/* Samples are refused beyond this magnitude (integer formats decode to
 * [-1, 1); a float file this loud is corrupt, and its squares, in the
 * log-mel powers, or the resampler's sums could overflow). */
#define RF_AUDIO_MAX_ABS 1000.0f

/* Decode `path` to mono at `rate` Hz, keeping at most `max_samples` output
 * samples (the start of the clip). The format is whatever libsndfile makes
 * of the content, whatever the name. *wave is malloc'd (free()), *n its
 * length (>= 1); *duration is the whole clip's length at `rate`, before the
 * crop; *format (may be NULL) the format's name (rf_audio_format_name).
 * Fails with "PATH: problem" on unreadable, empty, non-finite or too loud, or
 * unconvertible audio. Thread-safe. */
bool rf_audio_read(const char *path, int rate, int64_t max_samples, float **wave, int64_t *n, int64_t *duration,
                   const char **format, rf_status *st);

/* A short static name for a libsndfile format (SF_INFO.format): "wav",
 * "wavex" (WAVE_FORMAT_EXTENSIBLE), "aiff", "au", "caf", "w64", "rf64",
 * "flac", "ogg vorbis", "opus", "mp3", or libsndfile's own extension for
 * the rest. */
const char *rf_audio_format_name(int sf_format);

/* The format of the file at path by its header, or NULL if libsndfile does
 * not open it. */
const char *rf_audio_format_of(const char *path);

#endif
