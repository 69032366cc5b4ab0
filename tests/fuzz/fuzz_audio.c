/* The audio wrapper (datasets/audio_decode.c over libsndfile and
 * libsamplerate): any file decodes to 1..max_samples finite mono samples
 * and names its format, or is refused with a message, within the limits
 * on file size, rate and duration. Every format libsndfile opens is
 * reachable (the name says nothing: libsndfile reads the content); the
 * seeds hold one of each. The last byte picks the output rate and how much is kept.
 * fuzz_wav.c feeds the same function WAV files only. */
#include <math.h>

#include "audio_decode.h"
#include "fuzz_common.h"

#ifndef FUZZ_AUDIO_NAME
#define FUZZ_AUDIO_NAME "in.audio"
#endif

static void decode(const uint8_t *data, size_t size, const uint8_t *file, size_t file_size)
{
    static const int rates[4] = {8000, 16000, 22050, 44100};
    int pick = size > 0 ? data[size - 1] : 0, rate = rates[pick & 3];
    int64_t max_samples = 1 + (int64_t)(pick >> 2) * 400;
    const char *path = fuzz_file(FUZZ_AUDIO_NAME, file, file_size);
    float *wave = NULL;
    int64_t n = -1, duration = -1;
    rf_status st = {0};
    const char *format = NULL;
    if (!rf_audio_read(path, rate, max_samples, &wave, &n, &duration, &format, &st)) {
        FUZZ_CHECK(st.failed && strstr(st.msg, path) != NULL, "refused without naming the file: %s", st.msg);
        FUZZ_CHECK(wave == NULL, "a refused file left samples");
        return;
    }
    FUZZ_CHECK(n >= 1 && n <= max_samples && duration >= 0, "%lld samples (at most %lld), duration %lld",
               (long long)n, (long long)max_samples, (long long)duration);
    FUZZ_CHECK(format != NULL && format[0] != '\0', "decoded without naming the format");
    for (int64_t i = 0; i < n; i++)
        FUZZ_CHECK(isfinite(wave[i]), "sample %lld is %g", (long long)i, wave[i]);
    free(wave);
}

#ifndef FUZZ_AUDIO_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode(data, size, data, size);
    return 0;
}
#endif
