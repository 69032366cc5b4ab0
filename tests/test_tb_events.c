/* TensorBoard event files (config/tb_*.h): CRC-32C against RFC 3720's
 * vectors, TFRecord framing, a run's event file as metrics.csv writes it
 * (scalars, HParams records, a resumed run's START) read back by our reader,
 * the reader's rules for restarts, and bad files: every cut and every
 * flipped byte of a file read without a crash, and a CRC mismatch named
 * with the file and the byte offset.
 *
 * Also a tool for tests/check_tensorboard.py, which checks both ways against
 * TensorBoard's own reader and writer:
 *   test_tb_events --write-resumed DIR   a run whose resume drops rows
 *   test_tb_events --dump DIR            "TAG STEP VALUE" per point read
 *
 * And the plots' side (ui/plot/tb_run_data.h): common tags matched to our
 * series, and a folder of event files loaded as a run. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "../config/config_file.h"
#include "../config/metrics_csv.h"
#include "../config/tb_reader.h"
#include "../config/tb_record.h"
#include "../config/tb_writer.h"
#include "../ui/plot/tb_run_data.h"
#include "tap.h"

static void test_crc(void)
{
    uint8_t zeros[32] = {0}, ones[32], rising[32], falling[32];
    for (int i = 0; i < 32; i++) {
        ones[i] = 0xff;
        rising[i] = (uint8_t)i;
        falling[i] = (uint8_t)(31 - i);
    }
    /* RFC 3720, B.4, and the common check value of "123456789" */
    tap_ok(rf_crc32c(zeros, 32) == 0x8a9136aa, "CRC-32C of 32 zero bytes (%08x)", rf_crc32c(zeros, 32));
    tap_ok(rf_crc32c(ones, 32) == 0x62a8ab43, "CRC-32C of 32 0xff bytes (%08x)", rf_crc32c(ones, 32));
    tap_ok(rf_crc32c(rising, 32) == 0x46dd794e, "CRC-32C of 0..31 (%08x)", rf_crc32c(rising, 32));
    tap_ok(rf_crc32c(falling, 32) == 0x113fdb5c, "CRC-32C of 31..0 (%08x)", rf_crc32c(falling, 32));
    tap_ok(rf_crc32c("123456789", 9) == 0xe3069283, "CRC-32C of \"123456789\" (%08x)", rf_crc32c("123456789", 9));
}

static void test_framing(void)
{
    size_t framed_len;
    g_autofree uint8_t *framed = rf_tb_record_frame("abc", 3, &framed_len);
    tap_ok(framed_len == 12 + 3 + 4 && framed[0] == 3 && framed[1] == 0 && memcmp(framed + 12, "abc", 3) == 0,
           "a record is the length (little-endian, 8 bytes), its CRC, the data and its CRC");
    uint32_t crc = rf_crc32c("abc", 3), masked = ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
    uint32_t stored = framed[15] | framed[16] << 8 | framed[17] << 16 | (uint32_t)framed[18] << 24;
    tap_ok(stored == masked, "the data's CRC is masked as TFRecord masks it");
    const uint8_t *data;
    size_t len, next;
    const char *problem = NULL;
    tap_ok(rf_tb_record_next(framed, framed_len, 0, &data, &len, &next, &problem) == RF_TB_RECORD_OK && len == 3 &&
               next == framed_len,
           "a framed record reads back");
    tap_ok(rf_tb_record_next(framed, framed_len - 1, 0, &data, &len, &next, &problem) == RF_TB_RECORD_TRUNCATED,
           "a record cut short is truncated, not bad");
    framed[13] ^= 1;
    tap_ok(rf_tb_record_next(framed, framed_len, 0, &data, &len, &next, &problem) == RF_TB_RECORD_BAD &&
               strstr(problem, "data's CRC") != NULL,
           "a changed data byte fails the data's CRC");
    framed[13] ^= 1;
    framed[2] ^= 1;
    tap_ok(rf_tb_record_next(framed, framed_len, 0, &data, &len, &next, &problem) == RF_TB_RECORD_BAD &&
               strstr(problem, "length's CRC") != NULL,
           "a changed length byte fails the length's CRC");
}

static rf_metrics row(int64_t step, rf_split split, double loss)
{
    return (rf_metrics){.step = step, .split = split, .loss = loss, .accuracy = loss / 10, .lr = 1e-3 * (double)step,
                        .seconds = 0.5 * (double)step, .step_seconds = 0.01, .grad_norm = 2 * loss};
}

/* A run of 8 steps, killed after its checkpoint at step 5, resumed there
 * and trained to 10 with other losses: rows 6..8 of the first invocation
 * must go, in metrics.csv and for the event files' readers. */
static gboolean write_resumed_run(const char *dir, GError **error)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    g_autofree char *csv = g_build_filename(dir, "metrics.csv", NULL);
    g_autofree char *ini = g_build_filename(dir, "config.ini", NULL);
    if (!rf_config_write_ini(&cfg, ini, NULL, error))
        return FALSE;
    g_autoptr(rf_metrics_csv) first = rf_metrics_csv_create(csv, &cfg, error);
    if (first == NULL)
        return FALSE;
    for (int64_t step = 1; step <= 8; step++) {
        rf_metrics m = row(step, RF_SPLIT_TRAIN, 3.0 - 0.1 * (double)step);
        if (!rf_metrics_csv_write(first, &m, error))
            return FALSE;
        if (step % 4 == 0 && !rf_metrics_csv_write(first, &(rf_metrics){.step = step, .split = RF_SPLIT_VAL,
                                                                         .loss = 2.5, .accuracy = 0.25}, error))
            return FALSE;
    }
    g_clear_pointer(&first, rf_metrics_csv_close);
    cfg.train.steps = 10;
    g_autoptr(rf_metrics_csv) resumed = rf_metrics_csv_resume(csv, 5, &cfg, error);
    if (resumed == NULL)
        return FALSE;
    for (int64_t step = 6; step <= 10; step++) {
        rf_metrics m = row(step, RF_SPLIT_TRAIN, 1.0 - 0.05 * (double)step);
        if (!rf_metrics_csv_write(resumed, &m, error))
            return FALSE;
    }
    rf_metrics test = {.step = 10, .split = RF_SPLIT_TEST, .loss = 0.75, .accuracy = 0.5};
    return rf_metrics_csv_write(resumed, &test, error) && rf_metrics_csv_end(resumed, RF_TB_STATUS_SUCCESS, error);
}

static gboolean series_is(const rf_tb_run *run, const char *tag, const int64_t *steps, const double *values, guint n)
{
    const rf_tb_series *s = rf_tb_run_find(run, tag);
    if (s == NULL || s->points->len != n)
        return FALSE;
    for (guint i = 0; i < n; i++) {
        rf_tb_point p = g_array_index(s->points, rf_tb_point, i);
        if (p.step != steps[i] || fabs(p.value - values[i]) > 1e-6 * fabs(values[i]) + 1e-7)
            return FALSE;
    }
    return TRUE;
}

static char *first_event_file(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    char *found = NULL;
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;)
        if (g_str_has_prefix(name, "events.out.tfevents.") && (found == NULL || strcmp(name, found) < 0)) {
            g_free(found);
            found = g_strdup(name);
        }
    return found;
}

static void test_run_round_trip(const char *root)
{
    g_autofree char *dir = g_build_filename(root, "resumed", NULL);
    g_mkdir(dir, 0700);
    g_autoptr(GError) error = NULL;
    tap_ok(write_resumed_run(dir, &error), "a run and its resume write metrics.csv and event files%s%s",
           error ? ": " : "", error ? error->message : "");
    g_autoptr(rf_tb_run) run = rf_tb_run_read(dir, &error);
    if (!tap_ok(run != NULL, "the run's event files read back%s%s", error ? ": " : "", error ? error->message : ""))
        return;
    static const int64_t steps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    double losses[10];
    for (int i = 0; i < 10; i++)
        losses[i] = i < 5 ? 3.0 - 0.1 * (double)(i + 1) : 1.0 - 0.05 * (double)(i + 1);
    tap_ok(series_is(run, "train/loss", steps, losses, 10),
           "train/loss has steps 1-10 once each: the first invocation's rows after step 5 are dropped");
    static const int64_t val_steps[] = {4};
    static const double val_losses[] = {2.5};
    tap_ok(series_is(run, "val/loss", val_steps, val_losses, 1),
           "val/loss keeps step 4 and drops step 8, logged after the checkpoint resumed from");
    static const int64_t test_steps[] = {10};
    static const double test_acc[] = {0.5};
    tap_ok(series_is(run, "test/accuracy", test_steps, test_acc, 1), "test/accuracy is the test row");
    double lrs[10], grads[10];
    for (int i = 0; i < 10; i++) {
        lrs[i] = 1e-3 * (double)(i + 1);
        grads[i] = 2 * losses[i];
    }
    tap_ok(series_is(run, "lr", steps, lrs, 10) && series_is(run, "train/grad_norm", steps, grads, 10),
           "lr and train/grad_norm follow the train rows");
    tap_ok(rf_tb_run_find(run, "_hparams_/session_start_info") == NULL,
           "the HParams records (metadata only) are not scalar series");
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    int files = 0;
    for (const char *name; (name = g_dir_read_name(d)) != NULL;)
        files += g_str_has_prefix(name, "events.out.tfevents.");
    tap_ok(files == 2, "each invocation writes its own event file (%d)", files);
}

/* Every cut and every flipped byte of a real event file: no crash (ASan
 * watches), and a failure always names the file and a byte offset. */
static void test_bad_files(const char *root)
{
    g_autofree char *dir = g_build_filename(root, "resumed", NULL);
    g_autofree char *name = first_event_file(dir);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autofree char *bytes = NULL;
    gsize size = 0;
    gboolean read = g_file_get_contents(path, &bytes, &size, NULL);
    if (!tap_ok(read && size > 100, "an event file to damage (%zu bytes)", size))
        return;
    gboolean cuts_read = TRUE;
    for (gsize cut = 0; cut < size; cut++) {
        g_autoptr(rf_tb_run) run = rf_tb_run_new(dir);
        cuts_read &= rf_tb_run_add_events(run, path, (const uint8_t *)bytes, cut, NULL);
    }
    tap_ok(cuts_read, "every prefix of the file reads (a last record cut short ends the file)");
    g_autofree uint8_t *copy = g_memdup2(bytes, size);
    gboolean named = TRUE;
    gsize passed = 0;
    for (gsize at = 0; at < size; at++) {
        copy[at] ^= 0x41;
        g_autoptr(rf_tb_run) run = rf_tb_run_new(dir);
        g_autoptr(GError) error = NULL;
        if (rf_tb_run_add_events(run, path, copy, size, &error))
            passed++;
        else
            named &= strstr(error->message, path) != NULL && strstr(error->message, ": byte ") != NULL;
        copy[at] ^= 0x41;
    }
    /* every byte is under a CRC, so no change goes unnoticed */
    tap_ok(passed == 0 && named, "a flipped byte anywhere fails with the file and the byte offset named (%zu read)",
           passed);
    bytes[size - 20] ^= 1;   /* inside the last record's data */
    g_file_set_contents(path, bytes, (gssize)size, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(rf_tb_run) run = rf_tb_run_read(dir, &error);
    tap_ok(run == NULL && error != NULL && strstr(error->message, "CRC-32C does not match") != NULL,
           "a damaged record's CRC is reported: %s", error ? error->message : "(no error)");
    g_autofree char *empty = g_build_filename(root, "empty", NULL);
    g_mkdir(empty, 0700);
    g_clear_error(&error);
    g_autoptr(rf_tb_run) none = rf_tb_run_read(empty, &error);
    tap_ok(none == NULL && error != NULL && strstr(error->message, "no TensorBoard event files") != NULL,
           "a folder without event files is an error naming it");
}

static void test_tag_meanings(void)
{
    static const struct {
        const char *tag;
        gboolean ok;
        rf_split split;
        rf_tb_quantity q;
        int extra;
    } cases[] = {
        {"loss", TRUE, RF_SPLIT_TRAIN, RF_TB_LOSS, 0},
        {"train/loss", TRUE, RF_SPLIT_TRAIN, RF_TB_LOSS, 0},
        {"Loss/train", TRUE, RF_SPLIT_TRAIN, RF_TB_LOSS, 0},
        {"val_acc", TRUE, RF_SPLIT_VAL, RF_TB_ACCURACY, 0},
        {"Accuracy/validation", TRUE, RF_SPLIT_VAL, RF_TB_ACCURACY, 0},
        {"eval/accuracy", TRUE, RF_SPLIT_VAL, RF_TB_ACCURACY, 0},
        {"test/loss", TRUE, RF_SPLIT_TEST, RF_TB_LOSS, 0},
        {"learning_rate", TRUE, RF_SPLIT_TRAIN, RF_TB_LR, 0},
        {"lr", TRUE, RF_SPLIT_TRAIN, RF_TB_LR, 0},
        {"epoch_loss", TRUE, RF_SPLIT_TRAIN, RF_TB_LOSS, 1},
        {"train/loss_smoothed", TRUE, RF_SPLIT_TRAIN, RF_TB_LOSS, 1},
        {"val/lr", FALSE, 0, 0, 0},
        {"train/val/loss", FALSE, 0, 0, 0},
        {"loss/accuracy", FALSE, 0, 0, 0},
        {"grad_norm", FALSE, 0, 0, 0},
    };
    gboolean all = TRUE;
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        rf_split split = RF_SPLIT_TRAIN;
        rf_tb_quantity q = RF_TB_LOSS;
        int extra = -1;
        gboolean ok = rf_tb_tag_meaning(cases[i].tag, &split, &q, &extra);
        gboolean right = ok == cases[i].ok &&
                         (!ok || (split == cases[i].split && q == cases[i].q && extra == cases[i].extra));
        if (!right)
            tap_diag("%s: ok %d split %d quantity %d extra %d", cases[i].tag, ok, (int)split, (int)q, extra);
        all &= right;
    }
    tap_ok(all, "common tags (loss, Loss/train, val_acc, learning_rate, ...) match our series, odd ones none");
}

/* Our resumed run without its metrics.csv: the plots read it from the
 * event files, one row per step and split with the same values. */
static void test_plot_run(const char *root)
{
    g_autofree char *dir = g_build_filename(root, "plotted", NULL);
    g_mkdir(dir, 0700);
    g_autoptr(GError) error = NULL;
    if (!tap_ok(write_resumed_run(dir, &error), "a run to plot is written"))
        return;
    g_autofree char *csv_path = g_build_filename(dir, "metrics.csv", NULL);
    g_autoptr(rf_run_data) from_csv = rf_run_data_load_dir(dir, &error);
    g_unlink(csv_path);
    g_autoptr(rf_run_data) from_events = rf_run_data_load_dir(dir, &error);
    if (!tap_ok(from_csv != NULL && from_events != NULL && from_events->tensorboard,
                "without metrics.csv the folder loads from its event files%s%s", error ? ": " : "",
                error ? error->message : ""))
        return;
    gboolean same = from_csv->rows->len == from_events->rows->len;
    for (guint i = 0; same && i < from_csv->rows->len; i++) {
        const rf_metrics *a = &g_array_index(from_csv->rows, rf_metrics, i);
        const rf_metrics *b = &g_array_index(from_events->rows, rf_metrics, i);
        same = a->step == b->step && a->split == b->split && fabs(a->loss - b->loss) < 1e-5 * fabs(a->loss) &&
               fabs(a->accuracy - b->accuracy) < 1e-5 * fabs(a->accuracy) + 1e-7 &&
               (a->split != RF_SPLIT_TRAIN || fabs(a->lr - b->lr) < 1e-5 * a->lr);
        if (!same)
            tap_diag("row %u: csv step %lld %s loss %g acc %g, events step %lld %s loss %g acc %g", i,
                     (long long)a->step, rf_split_name(a->split), a->loss, a->accuracy, (long long)b->step,
                     rf_split_name(b->split), b->loss, b->accuracy);
    }
    tap_ok(same, "its rows are metrics.csv's: steps, splits, loss, accuracy and learning rate (%u rows)",
           from_events->rows->len);
}

static int dump(const char *dir)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(rf_tb_run) run = rf_tb_run_read(dir, &error);
    if (run == NULL) {
        fprintf(stderr, "%s\n", error->message);
        return 1;
    }
    for (guint i = 0; i < run->series->len; i++) {
        const rf_tb_series *s = g_ptr_array_index(run->series, i);
        for (guint j = 0; j < s->points->len; j++) {
            rf_tb_point p = g_array_index(s->points, rf_tb_point, j);
            printf("%s %lld %.17g\n", s->tag, (long long)p.step, p.value);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--dump") == 0)
        return dump(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--write-resumed") == 0) {
        g_autoptr(GError) error = NULL;
        if (!write_resumed_run(argv[2], &error)) {
            fprintf(stderr, "%s\n", error->message);
            return 1;
        }
        return 0;
    }
    g_autofree char *root = g_dir_make_tmp("rf-tb-XXXXXX", NULL);
    test_crc();
    test_framing();
    test_run_round_trip(root);
    test_bad_files(root);
    test_tag_meanings();
    test_plot_run(root);
    g_autofree char *rm = g_strdup_printf("rm -rf '%s'", root);
    if (system(rm) != 0)
        tap_diag("could not remove %s", root);
    return tap_done();
}
