/* The text folder reader (datasets/text_folder.c): the input becomes a
 * folder of three classes, split at form feeds ('\f') into up to 8 files
 * (c<k % 3>/f<k>.txt, every other one a folder deeper; an empty part is an
 * empty file); the data set opens or is refused with a message, every
 * sample of one that opens reads back within its bounds (ids 1..256), its
 * describe text is valid UTF-8 and starts with the file's path below the
 * root (which fuzz_path gives with a trailing '/'), and each file and the
 * whole input as a string featurise to ids byte + 1 or are refused with a
 * message. The first byte picks data.max_len (1..64) and data.strict. */
#include <glib.h>
#include <glib/gstdio.h>

#include "fuzz_tsv_common.h"
#include "text_folder.h"

#define MAX_FILES 8

static void file_name(int k, char *buf, size_t size)
{
    snprintf(buf, size, k % 2 ? "c%d/sub/f%d.txt" : "c%d/f%d.txt", k % 3, k);
}

static void remove_all(void)
{
    char rel[64];
    for (int k = 0; k < MAX_FILES; k++) {
        file_name(k, rel, sizeof rel);
        g_remove(fuzz_path(rel));
    }
    for (int c = 0; c < 3; c++) {
        snprintf(rel, sizeof rel, "c%d/sub", c);
        g_rmdir(fuzz_path(rel));
        snprintf(rel, sizeof rel, "c%d", c);
        g_rmdir(fuzz_path(rel));
    }
}

static void check_featurise(const rf_dataset *ds, const char *path, const char *text, const uint8_t *bytes)
{
    float *x = malloc((size_t)ds->seq_len * sizeof *x);
    int len = -1;
    rf_status st = {0};
    if (ds->featurise(ds, path, text, x, &len, &st)) {
        FUZZ_CHECK(len >= 1 && len <= ds->seq_len, "featurised length %d of %d", len, ds->seq_len);
        for (int t = 0; t < len; t++)
            FUZZ_CHECK(x[t] == (float)bytes[t] + 1, "id %g for byte %d", x[t], bytes[t]);
    } else {
        FUZZ_CHECK(st.msg[0] != '\0', "featurise refused without a message");
    }
    free(x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *part[MAX_FILES];
    size_t len[MAX_FILES];
    int files = 0;
    const uint8_t *p = data + 1, *end = data + size;
    while (files < MAX_FILES) {
        const uint8_t *ff = files + 1 < MAX_FILES ? memchr(p, '\f', (size_t)(end - p)) : NULL;
        part[files] = p;
        len[files++] = (size_t)((ff != NULL ? ff : end) - p);
        if (ff == NULL)
            break;
        p = ff + 1;
    }
    char rel[64], dir[80];
    for (int k = 0; k < files; k++) {
        file_name(k, rel, sizeof rel);
        snprintf(dir, sizeof dir, "%s", fuzz_path(rel));
        *strrchr(dir, '/') = '\0';
        g_mkdir_with_parents(dir, 0700);
        fuzz_file(rel, part[k], len[k]);
    }
    rf_config cfg;
    rf_config_defaults(&cfg);
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", fuzz_path(""));
    snprintf(cfg.data.task, sizeof cfg.data.task, "text_folder");
    cfg.data.max_len = 1 + data[0] % 64;
    snprintf(cfg.data.strict, sizeof cfg.data.strict, "%s", data[0] & 0x80 ? "true" : "false");
    cfg.data.val_size = 1;
    cfg.data.test_size = 1;
    rf_status st = {0};
    rf_dataset *ds = rf_text_folder_open(&cfg, &st);
    if (ds == NULL) {
        FUZZ_CHECK(st.failed && st.msg[0] != '\0', "refused without a message");
    } else {
        FUZZ_CHECK(ds->seq_len <= cfg.data.max_len && ds->vocab == RF_TEXT_FOLDER_VOCAB, "seq_len %d, vocab %d",
                   ds->seq_len, ds->vocab);
        fuzz_read_every_sample(ds);
        char text[96];
        for (int s = 0; s < RF_SPLIT_COUNT; s++)
            for (int64_t i = 0; i < ds->size[s]; i++) {
                ds->describe(ds, (rf_split)s, i, text, sizeof text);
                FUZZ_CHECK(g_utf8_validate(text, -1, NULL), "describe gave invalid UTF-8");
                FUZZ_CHECK(text[0] == 'c' && text[1] >= '0' && text[1] <= '2' && text[2] == '/',
                           "describe does not start with the file's class folder: %s", text);
            }
        for (int k = 0; k < files; k++) {
            file_name(k, rel, sizeof rel);
            check_featurise(ds, fuzz_path(rel), NULL, part[k]);
        }
        char *whole = g_strndup((const char *)data, size);   /* up to its first NUL */
        check_featurise(ds, NULL, whole, (const uint8_t *)whole);
        g_free(whole);
        rf_dataset_free(ds);
    }
    char shown[40];
    rf_text_folder_printable(data, size, shown, 1 + data[0] % sizeof shown);
    FUZZ_CHECK(g_utf8_validate(shown, -1, NULL), "printable text is not UTF-8");
    remove_all();
    return 0;
}
