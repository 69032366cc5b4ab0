/* Whether an MPEG audio stream (layer I, II or III; MP3) ends mid-frame.
 *
 * libsndfile's frame count for MP3 is exact only when the file carries a
 * Xing/Info tag; without one it is an estimate from the file size, and what
 * mpg123 decodes may be shorter or longer. A shortfall alone therefore does
 * not mean the file is cut: this walks the frame headers and reports a
 * stream whose last frame runs past the end of the file. */
#ifndef RF_DATASETS_MPEG_FRAMES_H
#define RF_DATASETS_MPEG_FRAMES_H

#include <stdbool.h>

/* True when `path` holds MPEG audio frames and the last one is cut off by
 * the end of the file. Skips a leading ID3v2 tag; stops, answering false, at
 * anything that is not a frame header (a trailing ID3v1 or APE tag, junk, a
 * free-format frame whose length the header does not give) or at a file
 * that cannot be read. */
bool rf_mpeg_ends_mid_frame(const char *path);

#endif
