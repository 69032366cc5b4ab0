/* The ListOps expression reader (datasets/listops.c): LRA's source text
 * through rf_listops_tokenize, then rf_listops_eval on the ids; a value is
 * 0..9 or -1, and the ids are in the vocabulary. The input's bytes are also
 * evaluated as raw token ids (mod the vocabulary). */
#include "fuzz_common.h"
#include "listops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    int cap = (int)(size / 2 + 1);
    uint8_t *ids = malloc((size_t)cap);
    rf_status st = {0};
    int n = rf_listops_tokenize(text, ids, cap, &st);
    if (n < 0) {
        FUZZ_CHECK(st.failed && st.msg[0] != '\0', "refused without a message");
    } else {
        for (int i = 0; i < n; i++)
            FUZZ_CHECK(ids[i] >= 1 && ids[i] < RF_LISTOPS_VOCAB, "id %d", ids[i]);
        int v = rf_listops_eval(ids, n);
        FUZZ_CHECK(v >= -1 && v <= 9, "value %d", v);
        for (int i = 0; i < n; i++)
            FUZZ_CHECK(strcmp(rf_listops_token_text(ids[i]), "?") != 0, "id %d has no text", ids[i]);
    }
    uint8_t *raw = malloc(size + 1);
    for (size_t i = 0; i < size; i++)
        raw[i] = data[i] % RF_LISTOPS_VOCAB;
    int v = rf_listops_eval(raw, (int)(size < 1u << 30 ? size : 1u << 30));
    FUZZ_CHECK(v >= -1 && v <= 9, "value %d", v);
    free(raw);
    free(ids);
    free(text);
    return 0;
}
