/* WAV through libsndfile (datasets/audio_decode.c): the input is a WAV
 * file's body after "RIFF", its length and "WAVE" (the fmt and data
 * chunks, and any others), so every input takes libsndfile's WAV path;
 * the checks are fuzz_audio.c's. */
#define FUZZ_AUDIO_NAME "in.wav"
#define FUZZ_AUDIO_NO_MAIN
#include "fuzz_audio.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *file = malloc(size + 12);
    uint32_t riff = (uint32_t)(size + 4);
    memcpy(file, "RIFF", 4);
    for (int i = 0; i < 4; i++)
        file[4 + i] = (uint8_t)(riff >> (8 * i));
    memcpy(file + 8, "WAVE", 4);
    memcpy(file + 12, data, size);
    decode(data, size, file, size + 12);
    free(file);
    return 0;
}
