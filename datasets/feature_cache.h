/* On-disk cache of per-clip log-mel features.
 *
 * Entries live in DIR/.rangefinder-cache/<key>.f32, where <key> is the hex
 * SHA-256 of the clip file's bytes followed by a text describing the
 * features (cache version, sample rate, mel bins, max frames, window, hop,
 * FFT size, window shape, mel scale, resampler). Changing a clip or any
 * parameter gives a new key; stale entries are left alone (delete the
 * folder to reclaim the space).
 *
 * An entry: a 48-byte header in native byte order
 *   "RFLOGMEL" | u32 version | u32 sample_rate, mel_bins, max_frames, window,
 *   hop, n_fft, frames | u64 duration (clip length in samples at the rate)
 * then frames x mel_bins f32. Entries are written whole to a temporary file
 * and renamed (g_file_set_contents), so readers never see half an entry; a
 * reader checks the header against the parameters, the exact size and that
 * every value is finite, and treats anything else as invalid.
 */
#ifndef RF_DATASETS_FEATURE_CACHE_H
#define RF_DATASETS_FEATURE_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/status.h"
#include "logmel.h"

#define RF_FEATURE_CACHE_DIR ".rangefinder-cache"
#define RF_FEATURE_CACHE_VERSION 1
#define RF_FEATURE_KEY_LEN 64   /* hex characters */

typedef enum rf_cache_result {
    RF_CACHE_HIT,
    RF_CACHE_MISS,      /* no entry */
    RF_CACHE_INVALID,   /* an entry that fails the checks: recompute and overwrite */
} rf_cache_result;

/* The key of the clip at `path` for these features (key gets 65 bytes). */
bool rf_feature_cache_key(const char *path, const rf_logmel_params *p, char *key, rf_status *st);

/* Look up `key` in cache_dir; on a hit fills feat[frames x mel_bins] (room
 * for max_frames rows), *frames and *duration. */
rf_cache_result rf_feature_cache_read(const char *cache_dir, const char *key, const rf_logmel_params *p,
                                      float *feat, int *frames, int64_t *duration);

/* Store an entry, creating cache_dir if needed. */
bool rf_feature_cache_write(const char *cache_dir, const char *key, const rf_logmel_params *p, const float *feat,
                            int frames, int64_t duration, rf_status *st);

#endif
