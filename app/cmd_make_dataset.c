/* `rangefinder make-dataset KIND`: build a data set on disk. One kind so
 * far: spoken-digits (datasets/spoken_digits.h), an audio folder for
 * data.task = audio_folder. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../datasets/spoken_digits.h"
#include "cli.h"
#include "commands.h"

/* The progress line: redrawn in place on a terminal; otherwise one line per
 * tenth of the work, and the last. */
typedef struct progress_state {
    gboolean tty;
    gboolean line_open;     /* tty: a progress line waits for its newline */
    int64_t last_tenth;
} progress_state;

static void on_progress(int64_t done, int64_t total, void *user)
{
    progress_state *p = user;
    int percent = total > 0 ? (int)(100 * done / total) : 100;
    if (p->tty) {
        printf("\r\033[Kmade %lld/%lld files (%d%%)", (long long)done, (long long)total, percent);
        p->line_open = done != total;
        if (!p->line_open)
            putchar('\n');
    } else {
        int64_t tenth = total > 0 ? 10 * done / total : 10;
        if (tenth == p->last_tenth && done != total)
            return;
        p->last_tenth = tenth;
        printf("made %lld/%lld files (%d%%)\n", (long long)done, (long long)total, percent);
    }
    fflush(stdout);
}

/* "130,160,190" into at most RF_SPOKEN_DIGITS_MAX_LIST values in lo..hi. */
static gboolean parse_list(const char *option, const char *text, int lo, int hi, int *out, int *n, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(text, ",", -1);
    *n = 0;
    for (char **p = parts; *p != NULL; p++) {
        guint64 v = 0;
        g_autoptr(GError) local = NULL;
        if (*n == RF_SPOKEN_DIGITS_MAX_LIST) {
            g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "%s '%s': at most %d values", option, text,
                        RF_SPOKEN_DIGITS_MAX_LIST);
            return FALSE;
        }
        if (!g_ascii_string_to_unsigned(g_strstrip(*p), 10, (guint64)lo, (guint64)hi, &v, &local)) {
            g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "%s '%s': %s", option, text, local->message);
            return FALSE;
        }
        out[(*n)++] = (int)v;
    }
    return TRUE;
}

static int make_spoken_digits(int argc, char **argv)
{
    rf_spoken_digits_options opt;
    rf_spoken_digits_defaults(&opt);
    g_autofree char *out = NULL, *speeds = NULL, *pitches = NULL;
    int max_voices = opt.max_voices, test_groups = opt.test_groups, variants = opt.variants, jobs = opt.jobs;
    const GOptionEntry entries[] = {
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Directory to write (a re-run completes it)", "DIR"},
        {"max-voices", 0, 0, G_OPTION_ARG_INT, &max_voices, "Base voices, the first in name order (0: all)", "N"},
        {"test-groups", 0, 0, G_OPTION_ARG_INT, &test_groups, "Voice groups held out for test (default 2)", "N"},
        {"variants", 0, 0, G_OPTION_ARG_INT, &variants, "Voice variants per voice besides the plain one (default 5)",
         "N"},
        {"speeds", 0, 0, G_OPTION_ARG_STRING, &speeds, "Words per minute, 80..450 (default 130,160,190)", "A,B,..."},
        {"pitches", 0, 0, G_OPTION_ARG_STRING, &pitches, "Pitches, 0..99 (default 35,50,65)", "A,B,..."},
        {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "espeak-ng processes at once, 1..64 (default 2)", "N"},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("spoken-digits");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Make the spoken digits data set: the words zero..nine spoken by every English espeak-ng\n"
        "voice, its variants, speeds and pitches, as DIR/train/<word>/*.wav and DIR/test/<word>/*.wav\n"
        "(test voices unseen in training; identical clips removed). Train on it with\n"
        "data.task = audio_folder and data.path = DIR. Needs espeak-ng in PATH.");
    g_option_context_set_description(ctx,
        "Example:\n  rangefinder make-dataset spoken-digits --out data/spoken-digits\n"
        "  rangefinder train --config data/configs/default.ini --set data.task=audio_folder \\\n"
        "      --set data.path=data/spoken-digits\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "make-dataset spoken-digits", &argc, &argv, &error))
        return rf_cli_report(error);
    const char *problem = NULL;
    if (out == NULL)
        problem = "make-dataset spoken-digits needs --out DIR";
    else if (max_voices < 0)
        problem = "--max-voices must be 0 (all) or more";
    else if (test_groups < 1)
        problem = "--test-groups must be 1 or more";
    else if (variants < 0)
        problem = "--variants must be 0 or more";
    else if (jobs < 1 || jobs > 64)
        problem = "--jobs must be 1..64";
    if (problem != NULL) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "%s (see `rangefinder make-dataset --help`)",
                    problem);
        return rf_cli_report(error);
    }
    if ((speeds != NULL && !parse_list("--speeds", speeds, 80, 450, opt.speeds, &opt.n_speeds, &error)) ||
        (pitches != NULL && !parse_list("--pitches", pitches, 0, 99, opt.pitches, &opt.n_pitches, &error)))
        return rf_cli_report(error);
    opt.max_voices = max_voices;
    opt.test_groups = test_groups;
    opt.variants = variants;
    opt.jobs = jobs;

    progress_state progress = {.tty = isatty(STDOUT_FILENO), .last_tenth = -1};
    rf_spoken_digits_result result = {0};
    opt.progress = on_progress;
    opt.user = &progress;
    opt.result = &result;
    rf_status st = {0};
    if (!rf_spoken_digits_make(out, &opt, &st)) {
        if (progress.line_open)
            printf("\n");
        rf_cli_fail_status(&error, &st);
        return rf_cli_report(error);
    }
    printf("%s: %lld train and %lld test clips from %d voices in %d voice groups (%lld duplicates removed)\n",
           out, (long long)result.train, (long long)result.test, result.voices, result.groups,
           (long long)result.duplicates);
    return RF_EXIT_OK;
}

typedef struct dataset_kind {
    const char *name;
    int (*make)(int argc, char **argv);
    const char *summary;
} dataset_kind;

static const dataset_kind kinds[] = {
    {"spoken-digits", make_spoken_digits, "digits zero..nine spoken by espeak-ng voices (audio folder)"},
};

static void print_kinds(FILE *out)
{
    fprintf(out, "Usage:\n  rangefinder make-dataset KIND [OPTION…]\n\nBuild a data set on disk.\n\nKinds:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
        fprintf(out, "  %-14s %s\n", kinds[i].name, kinds[i].summary);
    fprintf(out, "\n`rangefinder make-dataset KIND --help` lists a kind's options.\n");
}

int rf_cmd_make_dataset(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        print_kinds(stdout);
        return RF_EXIT_OK;
    }
    g_autoptr(GError) error = NULL;
    if (argc < 2 || argv[1][0] == '-') {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "make-dataset needs a kind first: spoken-digits (see `rangefinder make-dataset --help`)");
        return rf_cli_report(error);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
        if (strcmp(argv[1], kinds[i].name) == 0) {
            g_autofree char *prgname = g_strdup_printf("rangefinder make-dataset %s", kinds[i].name);
            g_set_prgname(prgname);
            return kinds[i].make(argc - 1, argv + 1);
        }
    }
    g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                "make-dataset: unknown kind '%s' (allowed: spoken-digits)", argv[1]);
    return rf_cli_report(error);
}
