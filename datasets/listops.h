/* ListOps (Long Range Arena): nested MIN / MAX / MED / SM expressions over
 * the digits 0-9, labelled with their value.
 *
 * The generator follows LRA's listops.py: a tree starts at depth 1; while
 * depth < max_depth a node is an operator with probability 0.25, otherwise a
 * digit (at depth == max_depth always a digit); an operator takes
 * randint(2, max_args) children and one of the four operators uniformly.
 * Length = digits + 2 x operators (the opening token and the closing ']').
 * Only expressions with min_len < length < max_len are kept, without
 * duplicates, drawn from one stream seeded by train.seed in the order
 * train, val, test.
 *
 * Token ids (a fixed table; LRA's vocabulary writes ']' as 'X'):
 *     0 pad    1 [MIN    2 [MAX    3 [MED    4 [SM    5 ]
 *     6..15    the digits 0..9
 */
#ifndef RF_LISTOPS_H
#define RF_LISTOPS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/config.h"
#include "../core/data.h"
#include "../core/rng.h"

enum {
    RF_LISTOPS_PAD = 0,
    RF_LISTOPS_MIN = 1,
    RF_LISTOPS_MAX = 2,
    RF_LISTOPS_MED = 3,
    RF_LISTOPS_SM = 4,
    RF_LISTOPS_CLOSE = 5,
    RF_LISTOPS_DIGIT0 = 6,
    RF_LISTOPS_VOCAB = 16,
};

/* Generate the data set cfg describes (data.min_len, max_len, max_depth,
 * max_args, train_size, val_size, test_size, concat; train.seed). With
 * data.concat = k > 1 every sample reads [MAX e e ... e ] (k copies of its
 * expression e: rf_listops_concat) and keeps its label. data.max_len keeps
 * bounding e, so the expressions are those of k = 1 and a sample holds up
 * to k (max_len - 1) + 2 tokens. */
rf_dataset *rf_listops_open(const rf_config *cfg, rf_status *st);

/* One raw tree from LRA's rules into buf. Returns its length, or -1 when it
 * grows past cap tokens (generation stops there; the caller discards it).
 * *value gets the expression's value. */
int rf_listops_generate(rf_rng *rng, int max_depth, int max_args, uint8_t *buf, int cap, int *value);

/* Tokenise LRA's TSV source text, e.g. "( ( ( [MAX 2 ) 3 ) ] )": '(' and ')'
 * are dropped, ']' (or 'X') is the close token. Returns the number of ids
 * written, or -1 with a message on an unknown token or more than cap tokens. */
int rf_listops_tokenize(const char *text, uint8_t *ids, int cap, rf_status *st);

/* The value (0-9) of a token sequence holding exactly one expression, or -1
 * if it is malformed (or memory runs out). MED is int(np.median(args)): on an
 * even count the mean of the two middle values, truncated. */
int rf_listops_eval(const uint8_t *ids, int n);

/* data.concat = k (the BLRP length test, SPEC §3): the sample of an
 * expression of n tokens, [MAX e e ... e ] with k copies of e for k > 1, e
 * itself for k = 1. Its value is e's (MAX of k equal values). Shared by
 * listops and lra_tsv, so both sources give a model the same sequences. */
int rf_listops_concat_length(int n, int k);
/* Token `pos` (0 <= pos < rf_listops_concat_length(n, k)) of that sample. */
int rf_listops_concat_token(const uint8_t *expr, int n, int k, int pos);
/* Write that sample's tokens to x as floats (the model's input row);
 * returns its length. */
int rf_listops_concat_fill(const uint8_t *expr, int n, int k, float *x);
/* The longest expression a sample of at most seq_len tokens holds. */
int rf_listops_concat_room(int seq_len, int k);
/* The sample as text, "[MAX 2 9 [MIN 4 7 ] 0 ]", cut at a token boundary
 * and marked " ..." when buf is short. */
void rf_listops_concat_text(const uint8_t *expr, int n, int k, char *buf, size_t size);

/* An outside source as a model input row (the featurise of listops and
 * lra_tsv): tokenised by rf_listops_tokenize and filled as
 * rf_listops_concat_fill does; refused, with a message naming `name`, when
 * it has no tokens, when the sample would be longer than seq_len, or, with
 * `whole`, unless it is one well-formed expression. `task` names the
 * model's data.task in the messages. */
bool rf_listops_featurise(const char *source, const char *name, const char *task, bool whole, int concat,
                          int seq_len, float *x, int *len, rf_status *st);

/* The text of a token id ("[MIN", "]", "7"; "<pad>"), or "?" if out of range. */
const char *rf_listops_token_text(int id);

#endif
