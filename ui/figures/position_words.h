/* A position of a sample in the data's own words, for every figure's hover
 * and tick labels: the ListOps token, the text's character, the id of a
 * random task's token, the pixel rows and columns of an image patch (the
 * images are flattened row by row into sequences of grid_w patches a row),
 * the start time of an audio frame (from the featuriser's hop at the
 * folder's sample rate; a frame holds every mel band).
 * GTK-free, so the headless tests drive it with real data sets. */
#ifndef RF_POSITION_WORDS_H
#define RF_POSITION_WORDS_H

#include "../../core/data.h"

/* Position i of input x (len positions, as ds->get or the featurise hook
 * made it): a new string (g_free it), or NULL where the data have no
 * words for a position (a series of several features; i outside [0, len)). */
char *rf_position_words(const rf_dataset *ds, const float *x, int len, int i);

/* The words of positions [first, last) of x (cut to len) as the cells of a
 * map whose first `offset` cells are the model's own (named "CLS"):
 * a NULL-terminated array (g_strfreev it) of *n names, or NULL (n 0) for
 * data without words. */
char **rf_position_words_range(const rf_dataset *ds, const float *x, int len, int offset, int first, int last,
                               int *n);

/* Seconds from one audio frame to the next for an audio folder (0 for
 * other data): the featuriser's hop in whole samples over the rate. */
double rf_position_frame_seconds(const rf_dataset *ds);

#endif
