/* Text inputs that are not text (issue 10 item 2): config files, --set
 * values, LRA and UCR TSV tables and a run's config.ini / metrics.csv are
 * refused when they hold a NUL byte or bytes that are not UTF-8, with a
 * message that names the file and the place and is itself UTF-8; an empty
 * config (or one of comments and blank lines) is all defaults. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "../config/config_file.h"
#include "../datasets/datasets.h"
#include "../datasets/text_input.h"
#include "../ui/plot/run_data.h"
#include "tap.h"

/* What issue 10 found accepted as an empty config. */
static const char garbage[] = "\x00\x01\x02garbage\xff\xfe";

static char *tmp;

static char *write_file(const char *name, const char *bytes, size_t len)
{
    char *path = g_build_filename(tmp, name, NULL);
    g_autofree char *folder = g_path_get_dirname(path);
    g_mkdir_with_parents(folder, 0700);
    g_assert_true(g_file_set_contents(path, bytes, (gssize)len, NULL));
    return path;
}

/* The error holds every `want` and is UTF-8 (it reaches terminals and the
 * workbench's dialogs). */
static bool message_has(const char *msg, const char *want1, const char *want2)
{
    bool ok = msg != NULL && g_utf8_validate(msg, -1, NULL) && strstr(msg, want1) != NULL &&
              (want2 == NULL || strstr(msg, want2) != NULL);
    if (!ok)
        tap_diag("message: %s", msg != NULL ? msg : "(none)");
    return ok;
}

static void config_refused(const char *what, const char *bytes, size_t len, const char *where, const char *why)
{
    g_autofree char *path = write_file("bad.ini", bytes, len);
    rf_config cfg;
    g_autoptr(GError) error = NULL;
    bool loaded = rf_config_load_ini(path, NULL, &cfg, &error);
    g_autofree char *want = g_strconcat(path, where, NULL);
    tap_ok(!loaded && message_has(error != NULL ? error->message : NULL, want, why), "config %s is refused", what);
}

static void config_is_defaults(const char *what, const char *text)
{
    g_autofree char *path = write_file("empty.ini", text, strlen(text));
    rf_config cfg, defaults;
    rf_config_defaults(&defaults);
    g_autoptr(GError) error = NULL;
    bool loaded = rf_config_load_ini(path, NULL, &cfg, &error);
    if (!loaded)
        tap_diag("%s", error->message);
    tap_ok(loaded && memcmp(&cfg, &defaults, sizeof cfg) == 0, "config %s is every default", what);
}

static void test_config(void)
{
    config_refused("of garbage bytes", garbage, sizeof garbage - 1, ":1:1:", "NUL byte");
    config_refused("with a NUL byte after a valid key", "[model]\ndim=32\0garbage\n", 23, ":2:7:", "NUL byte");
    config_refused("with a Latin-1 comment", "# caf\xe9\n[model]\ndim=32\n", 23, ":1:6:",
                   "byte 0xe9 is not UTF-8 text");
    config_refused("with a non-UTF-8 value", "[model]\ndim=6\xff" "4\n", 15, ":2:6:", "byte 0xff is not UTF-8 text");
    config_refused("with a key before any group", "dim = 32\n[model]\n", 17, ": ", "does not start with a group");
    config_refused("of plain text", "hello\n", 6, ": ", "not a key-value pair, group, or comment");
    config_is_defaults("that is empty", "");
    config_is_defaults("of comments and blank lines", "# a comment\n\n   \n\t\n# another\n");
}

static void set_refused(const char *assignment)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    const char *sets[] = {assignment, NULL};
    g_autoptr(GError) error = NULL;
    bool applied = rf_config_apply_sets(&cfg, sets, &error);
    g_autofree char *shown = g_utf8_make_valid(assignment, -1);
    tap_ok(!applied && message_has(error != NULL ? error->message : NULL, "--set", "not UTF-8 text"),
           "--set '%s' (not UTF-8) is refused", shown);
}

static void test_set(void)
{
    set_refused("model.dim=6\xff" "4");
    set_refused("data.path=/data/caf\xe9");
    set_refused("mod\xe9l.dim=32");
}

/* The data set `task` at `dir`, expected to fail with both strings. */
static void dataset_refused(const char *what, const char *task, const char *dir, const char *where,
                            const char *why)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    g_strlcpy(cfg.data.task, task, sizeof cfg.data.task);
    g_strlcpy(cfg.data.path, dir, sizeof cfg.data.path);
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds == NULL && message_has(st.msg, where, why), "%s is refused", what);
    rf_dataset_free(ds);
}

static void lra_case(const char *what, const char *name, const char *train, size_t len, const char *where,
                     const char *why)
{
    static const char good[] = "Source\tTarget\n[MAX 2 9 ]\t9\n";
    g_autofree char *tr = g_strconcat(name, "/basic_train.tsv", NULL);
    g_autofree char *va = g_strconcat(name, "/basic_val.tsv", NULL);
    g_autofree char *te = g_strconcat(name, "/basic_test.tsv", NULL);
    g_free(write_file(tr, train, len));
    g_free(write_file(va, good, sizeof good - 1));
    g_free(write_file(te, good, sizeof good - 1));
    g_autofree char *dir = g_build_filename(tmp, name, NULL);
    dataset_refused(what, "lra_tsv", dir, where, why);
}

static void ucr_case(const char *what, const char *name, const char *train, size_t len, const char *where,
                     const char *why)
{
    static const char good[] = "1\t0.5\t1.5\n2\t2.5\t0.5\n";
    g_autofree char *tr = g_strconcat(name, "/Toy_TRAIN.tsv", NULL);
    g_autofree char *te = g_strconcat(name, "/Toy_TEST.tsv", NULL);
    g_free(write_file(tr, train, len));
    g_free(write_file(te, good, sizeof good - 1));
    g_autofree char *dir = g_build_filename(tmp, name, NULL);
    dataset_refused(what, "ucr", dir, where, why);
}

static void test_tsv(void)
{
    static const char lra_latin1[] = "Source\tTarget\n[MAX 2 9 ]\t9\n[MIN caf\xe9 ]\t1\n";
    static const char lra_nul[] = "Source\tTarget\n[MAX 2 9 ]\t9\0\n";
    lra_case("an LRA TSV row with a Latin-1 byte", "lra1", lra_latin1, sizeof lra_latin1 - 1,
             "basic_train.tsv:3:9:", "byte 0xe9 is not UTF-8 text");
    lra_case("an LRA TSV row with a NUL byte", "lra2", lra_nul, sizeof lra_nul - 1, "basic_train.tsv:2:13:",
             "NUL byte");
    lra_case("an LRA TSV file of garbage bytes", "lra3", garbage, sizeof garbage - 1, "basic_train.tsv:1:1:",
             "NUL byte");
    static const char ucr_bad[] = "1\t0.5\t1.5\n2\t2.5\xff\t0.5\n";
    ucr_case("a UCR TSV value with a non-UTF-8 byte", "ucr1", ucr_bad, sizeof ucr_bad - 1, "Toy_TRAIN.tsv:2:6:",
             "byte 0xff is not UTF-8 text");
    ucr_case("a UCR TSV file of garbage bytes", "ucr2", garbage, sizeof garbage - 1, "Toy_TRAIN.tsv:1:1:",
             "NUL byte");
}

/* One table line as the LRA and UCR readers take it: line ends cut, a
 * line past RF_TEXT_MAX_LINE refused by its length before its bytes are
 * looked at, and a bad byte named by file, line and column. */
static void test_table_line(void)
{
    char crlf[] = "1\t0.5\r\n";
    ssize_t n = (ssize_t)strlen(crlf);
    char *why = rf_text_table_line("t.tsv", crlf, &n, 4);
    tap_ok(why == NULL && n == 5 && strcmp(crlf, "1\t0.5") == 0, "a CRLF line end is cut: '%s', %zd bytes", crlf,
           n);
    char latin1[] = "caf\xe9\n";
    n = (ssize_t)strlen(latin1);
    why = rf_text_table_line("t.tsv", latin1, &n, 7);
    tap_ok(why != NULL && g_str_has_prefix(why, "t.tsv:7:4:"), "a Latin-1 byte is named by file:line:column (%s)",
           why != NULL ? why : "accepted");
    g_free(why);
    size_t size = RF_TEXT_MAX_LINE + 1;
    char *huge = g_malloc(size + 1);
    memset(huge, 'x', size);
    huge[size] = '\0';
    n = (ssize_t)size;
    why = rf_text_table_line("t.tsv", huge, &n, 2);
    tap_ok(why != NULL && strstr(why, "t.tsv:2: a line of 67108865 bytes; lines are at most 67108864") != NULL,
           "a line one byte past 64 MiB is refused by its length (%s)", why != NULL ? why : "accepted");
    g_free(why);
    g_free(huge);
}

/* What the row callback saw: the lines, and a stop after `stop_at` rows. */
typedef struct {
    GString *seen;
    int rows, stop_at;
} rows_seen;

static gboolean see_row(void *ctx, int64_t line, char *text)
{
    rows_seen *r = ctx;
    g_string_append_printf(r->seen, "%lld=%s;", (long long)line, text);
    return ++r->rows < r->stop_at;
}

/* rf_text_table_each (the LRA and UCR readers' loop): one call per line
 * that is not blank, line ends cut; blank lines only at the end; a stop
 * asked by the callback is no error; the file's own problems are named. */
static char *each(const char *name, const char *bytes, int stop_at, GString *seen, int64_t *lines)
{
    g_autofree char *path = write_file(name, bytes, strlen(bytes));
    rows_seen r = {seen, 0, stop_at};
    g_string_truncate(seen, 0);
    return rf_text_table_each(path, see_row, &r, lines);
}

static void test_table_each(void)
{
    g_autoptr(GString) seen = g_string_new(NULL);
    int64_t lines = -1;
    char *why = each("each1.tsv", "a\tb\r\nc\n\n\n", 100, seen, &lines);
    tap_ok(why == NULL && lines == 4 && strcmp(seen->str, "1=a\tb;2=c;") == 0,
           "two rows, then blank lines that end the file: %s (%lld lines)", seen->str, (long long)lines);
    g_free(why);
    why = each("each2.tsv", "a\n\nb\n", 100, seen, &lines);
    tap_ok(message_has(why, "each2.tsv:2: blank line inside the table", NULL) && strcmp(seen->str, "1=a;") == 0,
           "a blank line inside the table is refused at its line");
    g_free(why);
    why = each("each3.tsv", "a\nb\nc\n", 2, seen, &lines);
    tap_ok(why == NULL && lines == 2 && strcmp(seen->str, "1=a;2=b;") == 0,
           "the callback's stop ends the reading without an error: %s", seen->str);
    g_free(why);
    why = each("each4.tsv", "", 100, seen, &lines);
    tap_ok(why == NULL && lines == 0 && seen->len == 0, "an empty file: no rows, no lines, no error");
    g_free(why);
    why = each("each5.tsv", "a\nb\xff\n", 100, seen, &lines);
    tap_ok(message_has(why, "each5.tsv:2:2:", "not UTF-8") && strcmp(seen->str, "1=a;") == 0,
           "a bad byte stops the reading with file:line:column");
    g_free(why);
    g_autofree char *missing = g_build_filename(tmp, "no-such.tsv", NULL);
    rows_seen r = {seen, 0, 100};
    why = rf_text_table_each(missing, see_row, &r, &lines);
    tap_ok(message_has(why, "no-such.tsv: cannot open", NULL) && lines == 0, "a missing file is named");
    g_free(why);
}

/* `rangefinder plot` and the workbench's Compare view read a run's folder. */
static void test_run_folder(void)
{
    static const char metrics[] = "step,split,loss,accuracy,lr,seconds\n1,train,2.3,0.1,0.0004,0.5\n";
    g_free(write_file("run1/metrics.csv", metrics, sizeof metrics - 1));
    g_free(write_file("run1/config.ini", garbage, sizeof garbage - 1));
    g_autofree char *run1 = g_build_filename(tmp, "run1", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(rf_run_data) r1 = rf_run_data_load_dir(run1, &error);
    tap_ok(r1 == NULL && message_has(error != NULL ? error->message : NULL, "config.ini:1:1:", "NUL byte"),
           "a run whose config.ini is garbage is refused");
    static const char cut[] = "step,split,loss,accuracy,lr,seconds\n1,train,2.3,0.1,0.0004,0.5\n\0\xff\n";
    g_free(write_file("run2/metrics.csv", cut, sizeof cut - 1));
    g_autofree char *run2 = g_build_filename(tmp, "run2", NULL);
    g_clear_error(&error);
    g_autoptr(rf_run_data) r2 = rf_run_data_load_dir(run2, &error);
    tap_ok(r2 == NULL && message_has(error != NULL ? error->message : NULL, "metrics.csv:3:1:", "NUL byte"),
           "a metrics.csv with a NUL byte is refused");
}

int main(void)
{
    tmp = g_dir_make_tmp("rf-text-XXXXXX", NULL);
    g_assert_nonnull(tmp);
    test_config();
    test_set();
    test_tsv();
    test_table_line();
    test_table_each();
    test_run_folder();
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmp);
    g_free(tmp);
    return tap_done();
}
