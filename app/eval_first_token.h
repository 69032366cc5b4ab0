/* `eval --by-first-token`: the model's accuracy and answers grouped by each
 * sample's first token (token data). On ListOps the first token is the
 * outermost operator, and a model that answers one class per operator is a
 * lookup of it, whatever its accuracy (docs/reproduction.md, "What 36%
 * means"); `--set data.concat=2` then shows what it makes of [MAX e e ]. */
#ifndef RF_APP_EVAL_FIRST_TOKEN_H
#define RF_APP_EVAL_FIRST_TOKEN_H

#include "json_line.h"
#include "saved_model.h"

typedef struct rf_first_token_group {
    int token;            /* the id */
    char name[32];        /* its text as the data set describes it ("[MAX"), or "token N" */
    int64_t samples, right;
    int64_t *answers;     /* [classes]: how often the model answered each class */
} rf_first_token_group;

typedef struct rf_first_token_table {
    int count, classes;   /* groups, in order of their token id */
    rf_first_token_group *groups;
} rf_first_token_table;

/* Classify every sample of `split` (forward only, batched by length) and
 * group by first token. False with a message for data that are not
 * tokens, or when the model or a sample fails. */
gboolean rf_first_token_table_measure(rf_saved_model *sm, rf_split split, rf_first_token_table *out,
                                      GError **error);
void rf_first_token_table_clear(rf_first_token_table *t);

/* One line per group: "[MAX  251 samples  accuracy 0.606  answers 9: 251". */
void rf_first_token_table_print(const rf_first_token_table *t);
/* "by_first_token": [{"token": "[MAX", "samples": 251, "accuracy": 0.606,
 * "answers": [count per class]}, ...] */
void rf_first_token_table_json(const rf_first_token_table *t, rf_json_line *j);

#endif
