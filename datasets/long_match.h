/* The long-range match task (data.task = long_match): a task that needs
 * the whole sequence. Every sample has exactly data.max_len tokens: two
 * markers, A and B, each followed by a digit, placed anywhere, in a
 * sequence of distractors (digits and dots); the label is the sum of the
 * two digits, 0-18. Either digit alone answers no better than chance (the
 * other is uniform, so 10 sums stay equally likely: 10%, as guessing 9),
 * and the markers can be any distance apart, so no window or local
 * pattern answers; a model must find and combine both. (One digit does
 * narrow the sum, which lowers the loss: the gradient that leads a model
 * to the markers. A sum mod 10 would leave no such signal, and small
 * models did not learn it.)
 * Like the random task, a sample is a pure function of (train.seed, split,
 * index) computed in get(): nothing is stored, at any length.
 *
 * Tokens: 0 padding, 1 'A', 2 'B', 3-12 the digits '0'-'9', 13 '.'.
 * An input to inspect is text, one token per character ("A3..7B9" or
 * "A 3 . . 7 B 9"; white space is skipped). */
#ifndef RF_LONG_MATCH_H
#define RF_LONG_MATCH_H

#include "../core/config.h"
#include "../core/data.h"

enum {
    RF_LONG_MATCH_A = 1,
    RF_LONG_MATCH_B = 2,
    RF_LONG_MATCH_DIGIT0 = 3,
    RF_LONG_MATCH_DOT = 13,
    RF_LONG_MATCH_VOCAB = 14,
    RF_LONG_MATCH_CLASSES = 19,
    RF_LONG_MATCH_MIN_LEN = 5,   /* room for both markers and digits, apart */
};

rf_dataset *rf_long_match_open(const rf_config *cfg, rf_status *st);

/* The character of a token ('A', 'B', '0'-'9', '.'), or '?' for another. */
char rf_long_match_token_char(int token);

/* Where the markers are in x[0, len): false unless each appears once and
 * is followed by a digit; the digits in *digit_a and *digit_b. */
bool rf_long_match_find(const float *x, int len, int *pos_a, int *digit_a, int *pos_b, int *digit_b);

#endif
