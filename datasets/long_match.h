/* The long-range match task (data.task = long_match): a task that needs
 * the whole sequence. Every sample has exactly data.max_len tokens: two
 * markers, each carrying a digit (A0-A9 and B0-B9), placed anywhere in a
 * sequence of distractors (plain digits and dots); the label is the sum of
 * the markers' digits, 0-18. Either marker alone answers no better than
 * chance (the other digit is uniform, so 10 sums stay equally likely: 10%,
 * as guessing 9), and the markers can be any distance apart, so no window
 * or local pattern answers; a model must find and combine both. (One digit
 * does narrow the sum, which lowers the loss: the gradient that leads a
 * model to the markers. A sum mod 10, or a digit written after its marker,
 * left small models with no signal to learn from.)
 * Like the random task, a sample is a pure function of (train.seed, split,
 * index) computed in get(): nothing is stored, at any length.
 *
 * Tokens: 0 padding, 1-10 A0-A9, 11-20 B0-B9, 21-30 the digits 0-9, 31 '.'.
 * An input to inspect is text: "A3", "B7", a digit or '.' per token
 * ("..A3.7..B9", white space skipped). */
#ifndef RF_LONG_MATCH_H
#define RF_LONG_MATCH_H

#include "../core/config.h"
#include "../core/data.h"

enum {
    RF_LONG_MATCH_A0 = 1,
    RF_LONG_MATCH_B0 = 11,
    RF_LONG_MATCH_DIGIT0 = 21,
    RF_LONG_MATCH_DOT = 31,
    RF_LONG_MATCH_VOCAB = 32,
    RF_LONG_MATCH_CLASSES = 19,
    RF_LONG_MATCH_MIN_LEN = 2,   /* room for both markers */
};

rf_dataset *rf_long_match_open(const rf_config *cfg, rf_status *st);

/* A token's text ("A3", "B7", "5", "."), or "?" for an id outside the task. */
const char *rf_long_match_token_text(int token);

/* Where the markers are in x[0, len): false unless there is exactly one A
 * and one B; their digits in *digit_a and *digit_b. */
bool rf_long_match_find(const float *x, int len, int *pos_a, int *digit_a, int *pos_b, int *digit_b);

#endif
