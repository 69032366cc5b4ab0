/* The spoken digits data set builder (see spoken_digits.h). */
#include "spoken_digits.h"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sndfile.h>
#include <stdio.h>
#include <string.h>

#include "tsan_sync.h"

#define WORDS 10
#define MAX_VARIANTS 13
#define STAGING ".staging"

static const char *const words[WORDS] = {"zero", "one", "two", "three", "four",
                                         "five", "six", "seven", "eight", "nine"};
/* Variants in the order they are taken, men and women alternating. */
static const char *const variant_order[MAX_VARIANTS] = {"m1", "f1", "m2", "f2", "m3", "f3", "m4",
                                                        "f4", "m5", "f5", "m6", "m7", "m8"};
static const char *const split_names[2] = {"train", "test"};

void rf_spoken_digits_defaults(rf_spoken_digits_options *opt)
{
    *opt = (rf_spoken_digits_options){
        .program = "espeak-ng",
        .test_groups = 2,
        .variants = 5,
        .speeds = {130, 160, 190},
        .n_speeds = 3,
        .pitches = {35, 50, 65},
        .n_pitches = 3,
        .jobs = 2,
    };
}

static bool check_options(const rf_spoken_digits_options *o, rf_status *st)
{
    if (o->n_speeds < 1 || o->n_speeds > RF_SPOKEN_DIGITS_MAX_LIST || o->n_pitches < 1 ||
        o->n_pitches > RF_SPOKEN_DIGITS_MAX_LIST)
        return rf_fail(st, "spoken digits: 1..%d speeds and pitches (got %d and %d)", RF_SPOKEN_DIGITS_MAX_LIST,
                       o->n_speeds, o->n_pitches);
    for (int i = 0; i < o->n_speeds; i++)
        if (o->speeds[i] < 80 || o->speeds[i] > 450)
            return rf_fail(st, "spoken digits: speed %d words per minute is outside espeak-ng's 80..450",
                           o->speeds[i]);
    for (int i = 0; i < o->n_pitches; i++)
        if (o->pitches[i] < 0 || o->pitches[i] > 99)
            return rf_fail(st, "spoken digits: pitch %d is outside espeak-ng's 0..99", o->pitches[i]);
    if (o->variants < 0 || o->variants > MAX_VARIANTS || o->max_voices < 0 || o->test_groups < 1 ||
        o->jobs < 1 || o->jobs > 64)
        return rf_fail(st, "spoken digits: need 0..%d variants, max_voices >= 0, test_groups >= 1 and 1..64 jobs "
                           "(got %d, %d, %d, %d)", MAX_VARIANTS, o->variants, o->max_voices, o->test_groups,
                       o->jobs);
    return true;
}

/* ---- asking espeak-ng ---- */

/* stdout of `program arg`, or NULL with a message. */
static char *run_query(const char *program, const char *arg, rf_status *st)
{
    char *argv[] = {(char *)program, (char *)arg, NULL};
    char *out = NULL, *err_text = NULL;
    int status = 0;
    GError *err = NULL;
    if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err_text, &status, &err) ||
        !g_spawn_check_wait_status(status, &err)) {
        rf_fail(st, "%s %s: %s", program, arg, err->message);
        g_error_free(err);
        g_free(out);
        out = NULL;
    }
    g_free(err_text);
    return out;
}

/* The whitespace-separated fields of each line after the header. */
static void for_each_row(const char *text, void (*fn)(char **fields, int n, void *user), void *user)
{
    char **lines = g_strsplit(text, "\n", -1);
    for (int i = 1; lines[i] != NULL; i++) {
        char **fields = g_strsplit_set(g_strstrip(lines[i]), " \t", -1);
        char *kept[8];
        int n = 0;
        for (int k = 0; fields[k] != NULL && n < 8; k++)
            if (fields[k][0] != '\0')
                kept[n++] = fields[k];
        fn(kept, n, user);
        g_strfreev(fields);
    }
    g_strfreev(lines);
}

typedef struct voice {
    char *name;   /* language column: en-gb-scotland (file names, README) */
    char *file;   /* file column: gmw/en-GB-scotland (the -v argument) */
    int group;
    bool test;
} voice;

static int compare_voices(gconstpointer a, gconstpointer b)
{
    return strcmp(((const voice *)a)->name, ((const voice *)b)->name);
}

/* Columns: Pty Language Age/Gender VoiceName File [Other Languages]. */
static void add_voice(char **f, int n, void *user)
{
    GArray *voices = user;
    if (n < 5 || strcmp(f[1], "variant") == 0 || g_str_has_prefix(f[4], "mb/") || g_str_has_prefix(f[4], "!v/"))
        return;
    for (guint i = 0; i < voices->len; i++)
        if (strcmp(g_array_index(voices, voice, i).name, f[1]) == 0)
            return;
    voice v = {.name = g_strdup(f[1]), .file = g_strdup(f[4])};
    g_array_append_val(voices, v);
}

static void add_variant(char **f, int n, void *user)
{
    if (n >= 5 && g_str_has_prefix(f[4], "!v/"))
        g_ptr_array_add(user, g_strdup(f[4] + 3));
}

static bool listed(GPtrArray *names, const char *name)
{
    for (guint i = 0; i < names->len; i++)
        if (strcmp(names->pdata[i], name) == 0)
            return true;
    return false;
}

/* The base voices (sorted by name, at most max_voices) and the variants to use. */
static bool find_voices(const char *program, const rf_spoken_digits_options *o, GArray *voices,
                        GPtrArray *variants, rf_status *st)
{
    char *text = run_query(program, "--voices=en", st);
    if (text == NULL)
        return false;
    for_each_row(text, add_voice, voices);
    g_free(text);
    g_array_sort(voices, compare_voices);
    while (o->max_voices > 0 && voices->len > (guint)o->max_voices) {
        voice *last = &g_array_index(voices, voice, voices->len - 1);
        g_free(last->name);
        g_free(last->file);
        g_array_set_size(voices, voices->len - 1);
    }
    if ((int)voices->len <= o->test_groups)
        return rf_fail(st, "spoken digits: %u usable English voices, too few to hold %d voice group%s out for test "
                           "and keep one for training", voices->len, o->test_groups, o->test_groups == 1 ? "" : "s");
    if (o->variants == 0)
        return true;
    text = run_query(program, "--voices=variant", st);
    if (text == NULL)
        return false;
    GPtrArray *known = g_ptr_array_new_with_free_func(g_free);
    for_each_row(text, add_variant, known);
    g_free(text);
    for (int i = 0; i < MAX_VARIANTS && (int)variants->len < o->variants; i++)
        if (listed(known, variant_order[i]))
            g_ptr_array_add(variants, g_strdup(variant_order[i]));
    g_ptr_array_unref(known);
    if ((int)variants->len < o->variants)
        return rf_fail(st, "spoken digits: %d voice variants asked for; espeak-ng has %u of m1, f1, m2, ...",
                       o->variants, variants->len);
    return true;
}

/* ---- making the files ---- */

typedef struct job {
    int voice, word, speed, pitch;
    char *arg;            /* -v argument: gmw/en-US+m1 */
    char *name;           /* en-us+m1_s160_p50.wav */
    char *found;          /* where the file is once made or found */
    char digest[65];      /* SHA-256 of its bytes */
} job;

typedef struct maker {
    const char *program, *out_dir;
    job *jobs;
    int64_t total, done;
    int failed;           /* atomic: set once a job fails; the rest return at once */
    GMutex lock;          /* guards done, error and the progress callback */
    char error[RF_STATUS_MSG];
    const rf_spoken_digits_options *opt;
} maker;

/* Records the first failure (takes `message`); the other jobs then stop. */
static bool job_failed(maker *mk, char *message)
{
    rf_mutex_lock(&mk->lock);
    if (!g_atomic_int_get(&mk->failed))
        g_strlcpy(mk->error, message, sizeof mk->error);
    g_atomic_int_set(&mk->failed, 1);
    rf_mutex_unlock(&mk->lock);
    g_free(message);
    return false;
}

/* The file espeak-ng wrote must be audio libsndfile can read. */
static bool wav_ok(const char *path)
{
    SF_INFO info = {0};
    SNDFILE *sf = sf_open(path, SFM_READ, &info);
    bool ok = sf != NULL && info.frames > 0 && info.channels >= 1 && info.samplerate > 0;
    if (sf != NULL)
        sf_close(sf);
    return ok;
}

static bool file_digest(const char *path, char *digest)
{
    char *data = NULL;
    gsize size = 0;
    if (!g_file_get_contents(path, &data, &size, NULL))
        return false;
    char *hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, size);
    g_strlcpy(digest, hex, 65);
    g_free(hex);
    g_free(data);
    return true;
}

/* espeak-ng into a hidden temporary file, checked, renamed to `path`. */
static bool synthesise(maker *mk, const job *j, const char *path)
{
    char speed[16], pitch[16];
    snprintf(speed, sizeof speed, "%d", j->speed);
    snprintf(pitch, sizeof pitch, "%d", j->pitch);
    char *dir = g_path_get_dirname(path), *base = g_strdup_printf(".%s.part", j->name);
    char *temp = g_build_filename(dir, base, NULL);
    char *argv[] = {(char *)mk->program, "-v", j->arg, "-s", speed, "-p", pitch, "-w", temp,
                    (char *)words[j->word], NULL};
    char *err_text = NULL;
    int status = 0;
    GError *err = NULL;
    bool ok = g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err_text, &status,
                           &err) && g_spawn_check_wait_status(status, &err);
    if (!ok) {
        bool said = err_text != NULL && g_strstrip(err_text)[0] != '\0';
        job_failed(mk, g_strdup_printf("espeak-ng -v %s %s: %s%s%s", j->arg, words[j->word], err->message,
                                       said ? ": " : "", said ? err_text : ""));
        g_error_free(err);
    } else if (!wav_ok(temp)) {
        ok = job_failed(mk, g_strdup_printf("%s: espeak-ng -v %s wrote no readable WAV", temp, j->arg));
    } else if (g_rename(temp, path) != 0) {
        ok = job_failed(mk, g_strdup_printf("%s: cannot rename into place: %s", path, g_strerror(errno)));
    }
    if (!ok)
        g_remove(temp);
    g_free(err_text);
    g_free(temp);
    g_free(base);
    g_free(dir);
    return ok;
}

/* Phase 1, per job: find the file (train/, test/ or the staging folder,
 * from an earlier run) or make it in staging; then its digest. */
static void run_job_now(gpointer item, gpointer user)
{
    maker *mk = user;
    job *j = &mk->jobs[(uintptr_t)item - 1];
    if (g_atomic_int_get(&mk->failed))
        return;
    const char *places[] = {"train", "test", STAGING};
    for (int p = 0; p < 3 && j->found == NULL; p++) {
        char *path = g_build_filename(mk->out_dir, places[p], words[j->word], j->name, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_REGULAR) || (p == 2 && synthesise(mk, j, path)))
            j->found = path;
        else
            g_free(path);
    }
    if (j->found == NULL)
        return;
    if (!file_digest(j->found, j->digest)) {
        job_failed(mk, g_strdup_printf("%s: cannot read it back", j->found));
        return;
    }
    rf_mutex_lock(&mk->lock);
    mk->done++;
    if (mk->opt->progress != NULL)
        mk->opt->progress(mk->done, mk->total, mk->opt->user);
    rf_mutex_unlock(&mk->lock);
}

static void run_job(gpointer item, gpointer user)
{
    RF_TSAN_ACQUIRE(user);
    run_job_now(item, user);
    RF_TSAN_RELEASE(user);
}

static void run_all(maker *mk, int jobs)
{
    GThreadPool *pool = g_thread_pool_new(run_job, mk, jobs, FALSE, NULL);
    for (int64_t i = 0; i < mk->total; i++) {
        gpointer item = (gpointer)(uintptr_t)(i + 1);
        RF_TSAN_RELEASE(mk);
        if (pool == NULL || !g_thread_pool_push(pool, item, NULL))
            run_job(item, mk);
    }
    if (pool != NULL)
        g_thread_pool_free(pool, FALSE, TRUE);
    RF_TSAN_ACQUIRE(mk);
}

/* A job per voice, variant, speed, pitch and word; the folders made. */
static bool plan_jobs(const char *out_dir, const rf_spoken_digits_options *o, GArray *voices,
                      GPtrArray *variants, GArray *jobs, rf_status *st)
{
    const char *places[] = {"train", "test", STAGING};
    for (int p = 0; p < 3; p++)
        for (int w = 0; w < WORDS; w++) {
            char *dir = g_build_filename(out_dir, places[p], words[w], NULL);
            int rc = g_mkdir_with_parents(dir, 0755);
            if (rc != 0)
                rf_fail(st, "%s: cannot create: %s", dir, g_strerror(errno));
            g_free(dir);
            if (rc != 0)
                return false;
        }
    for (guint v = 0; v < voices->len; v++) {
        const voice *vc = &g_array_index(voices, voice, v);
        for (guint k = 0; k <= variants->len; k++)
            for (int sp = 0; sp < o->n_speeds; sp++)
                for (int pi = 0; pi < o->n_pitches; pi++)
                    for (int w = 0; w < WORDS; w++) {
                        const char *variant = k == 0 ? NULL : variants->pdata[k - 1];
                        job j = {.voice = (int)v, .word = w, .speed = o->speeds[sp], .pitch = o->pitches[pi]};
                        j.arg = g_strconcat(vc->file, variant != NULL ? "+" : "", variant, NULL);
                        j.name = g_strdup_printf("%s%s%s_s%d_p%d.wav", vc->name, variant != NULL ? "+" : "",
                                                 variant != NULL ? variant : "", j.speed, j.pitch);
                        g_array_append_val(jobs, j);
                    }
    }
    return true;
}

/* ---- voice groups, the split, duplicates ---- */

static int find_root(int *parent, int v)
{
    while (parent[v] != v)
        v = parent[v] = parent[parent[v]];
    return v;
}

/* Voices with any identical file share a group; groups are numbered in
 * voice (name) order; the test groups are marked. Returns the group count. */
static int group_voices(GArray *voices, const maker *mk, int test_groups)
{
    int n = (int)voices->len, groups = 0;
    int *parent = g_new(int, n), *number = g_new(int, n);
    for (int v = 0; v < n; v++)
        parent[v] = v;
    GHashTable *owner = g_hash_table_new(g_str_hash, g_str_equal);
    for (int64_t i = 0; i < mk->total; i++) {
        const job *j = &mk->jobs[i];
        gpointer other = g_hash_table_lookup(owner, j->digest);
        if (other == NULL)
            g_hash_table_insert(owner, (gpointer)j->digest, GINT_TO_POINTER(j->voice + 1));
        else
            parent[find_root(parent, GPOINTER_TO_INT(other) - 1)] = find_root(parent, j->voice);
    }
    g_hash_table_unref(owner);
    for (int v = 0; v < n; v++)
        number[v] = -1;
    for (int v = 0; v < n; v++) {
        int root = find_root(parent, v);
        if (number[root] < 0)
            number[root] = groups++;
        g_array_index(voices, voice, v).group = number[root];
    }
    for (int v = 0; v < n; v++) {
        int g = g_array_index(voices, voice, v).group;
        g_array_index(voices, voice, v).test = (g + 1) * test_groups / groups > g * test_groups / groups;
    }
    g_free(parent);
    g_free(number);
    return groups;
}

/* Phase 3: train jobs, then test jobs, each file moved into its split
 * unless an identical one came before (then it is deleted). */
static bool place_files(maker *mk, GArray *voices, int64_t count[2], int64_t *duplicates, rf_status *st)
{
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    bool ok = true;
    for (int s = 0; s < 2 && ok; s++)
        for (int64_t i = 0; i < mk->total && ok; i++) {
            const job *j = &mk->jobs[i];
            if (g_array_index(voices, voice, j->voice).test != (s == 1))
                continue;
            if (g_hash_table_contains(seen, j->digest)) {
                g_remove(j->found);
                (*duplicates)++;
                continue;
            }
            g_hash_table_add(seen, (gpointer)j->digest);
            char *target = g_build_filename(mk->out_dir, split_names[s], words[j->word], j->name, NULL);
            if (strcmp(target, j->found) != 0 && g_rename(j->found, target) != 0)
                ok = rf_fail(st, "%s: cannot move to %s: %s", j->found, target, g_strerror(errno));
            count[s] += ok;
            g_free(target);
        }
    g_hash_table_unref(seen);
    for (int w = 0; w < WORDS; w++) {
        char *dir = g_build_filename(mk->out_dir, STAGING, words[w], NULL);
        g_rmdir(dir);   /* fails harmlessly if a stray temporary file is left */
        g_free(dir);
    }
    char *staging = g_build_filename(mk->out_dir, STAGING, NULL);
    g_rmdir(staging);
    g_free(staging);
    return ok;
}

/* ---- README ---- */

static void append_voices(GString *s, const char *title, GArray *voices, bool test, int groups)
{
    g_string_append(s, title);
    for (int g = 0; g < groups; g++) {
        GString *members = g_string_new(NULL);
        int n = 0;
        for (guint v = 0; v < voices->len; v++) {
            const voice *vc = &g_array_index(voices, voice, v);
            if (vc->group == g && vc->test == test) {
                g_string_append_printf(members, "%s%s", n > 0 ? " " : "", vc->name);
                n++;
            }
        }
        if (n > 0)
            g_string_append_printf(s, " %s%s%s", n > 1 ? "[" : "", members->str, n > 1 ? "]" : "");
        g_string_free(members, TRUE);
    }
    g_string_append_c(s, '\n');
}

static bool write_readme(const maker *mk, GArray *voices, GPtrArray *variants, int groups,
                         const rf_spoken_digits_result *r, rf_status *st)
{
    const rf_spoken_digits_options *o = mk->opt;
    rf_status ignore = {0};
    char *version = run_query(mk->program, "--version", &ignore);
    char *data_at = version != NULL ? strstr(version, "  Data at") : NULL;   /* keep the name and version */
    if (data_at != NULL)
        *data_at = '\0';
    GString *s = g_string_new("Spoken digits, made by `rangefinder make-dataset spoken-digits`.\n\n");
    g_string_append_printf(s, "The words zero..nine spoken by %s,\n", version != NULL ? g_strstrip(version) : "");
    g_string_append(s, "one process per file: espeak-ng -v VOICE[+VARIANT] -s SPEED -p PITCH -w FILE WORD\n\n");
    append_voices(s, "Training voices:", voices, false, groups);
    append_voices(s, "Test voices (never heard in training):", voices, true, groups);
    g_string_append(s, "Voices in [brackets] form a group: they said at least one file byte for byte alike,\n"
                       "so they go to the same split.\n");
    g_string_append(s, "Variants of each voice, besides the plain voice:");
    for (guint i = 0; i < variants->len; i++)
        g_string_append_printf(s, " +%s", (char *)variants->pdata[i]);
    g_string_append(s, variants->len == 0 ? " (none)\nSpeeds (words per minute):" : "\nSpeeds (words per minute):");
    for (int i = 0; i < o->n_speeds; i++)
        g_string_append_printf(s, " %d", o->speeds[i]);
    g_string_append(s, "\nPitches (0..99):");
    for (int i = 0; i < o->n_pitches; i++)
        g_string_append_printf(s, " %d", o->pitches[i]);
    g_string_append_printf(s, "\n\nFiles: train %lld, test %lld; %lld duplicates (byte-identical to an earlier "
                              "file) deleted.\n16-bit mono WAV at espeak-ng's 22,050 Hz.\n",
                           (long long)r->train, (long long)r->test, (long long)r->duplicates);
    g_string_append(s, "Layout: train/<word>/<voice>[+<variant>]_s<speed>_p<pitch>.wav, and test/ alike.\n"
                       "Open it with data.task = audio_folder and data.path = this folder.\n");
    char *path = g_build_filename(mk->out_dir, "README.txt", NULL);
    GError *err = NULL;
    bool ok = g_file_set_contents(path, s->str, (gssize)s->len, &err);
    if (!ok) {
        rf_fail(st, "%s", err->message);
        g_error_free(err);
    }
    g_free(path);
    g_string_free(s, TRUE);
    g_free(version);
    return ok;
}

/* ---- the whole run ---- */

static void free_all(GArray *voices, GPtrArray *variants, GArray *jobs)
{
    for (guint i = 0; i < jobs->len; i++) {
        job *j = &g_array_index(jobs, job, i);
        g_free(j->arg);
        g_free(j->name);
        g_free(j->found);
    }
    for (guint i = 0; i < voices->len; i++) {
        g_free(g_array_index(voices, voice, i).name);
        g_free(g_array_index(voices, voice, i).file);
    }
    g_array_unref(jobs);
    g_array_unref(voices);
    g_ptr_array_unref(variants);
}

static bool make_files(maker *mk, GArray *voices, GPtrArray *variants, rf_spoken_digits_result *r, rf_status *st)
{
    g_mutex_init(&mk->lock);
    run_all(mk, mk->opt->jobs);
    g_mutex_clear(&mk->lock);
    if (g_atomic_int_get(&mk->failed))
        return rf_fail(st, "%s", mk->error);
    int groups = group_voices(voices, mk, mk->opt->test_groups);
    if (groups <= mk->opt->test_groups)
        return rf_fail(st, "spoken digits: the %u voices form %d voice group%s, too few to hold %d out for test and "
                           "keep one for training", voices->len, groups, groups == 1 ? "" : "s",
                       mk->opt->test_groups);
    int64_t count[2] = {0, 0};
    *r = (rf_spoken_digits_result){.voices = (int)voices->len, .groups = groups};
    bool ok = place_files(mk, voices, count, &r->duplicates, st);
    r->train = count[0];
    r->test = count[1];
    return ok && write_readme(mk, voices, variants, groups, r, st);
}

bool rf_spoken_digits_make(const char *out_dir, const rf_spoken_digits_options *opt, rf_status *st)
{
    if (!check_options(opt, st))
        return false;
    const char *wanted = opt->program != NULL ? opt->program : "espeak-ng";
    char *program = g_find_program_in_path(wanted);
    if (program == NULL)
        return rf_fail(st, "spoken digits: %s not found in PATH (install the espeak-ng package)", wanted);
    GArray *voices = g_array_new(FALSE, TRUE, sizeof(voice)), *jobs = g_array_new(FALSE, TRUE, sizeof(job));
    GPtrArray *variants = g_ptr_array_new_with_free_func(g_free);
    rf_spoken_digits_result result = {0};
    bool ok = find_voices(program, opt, voices, variants, st) && plan_jobs(out_dir, opt, voices, variants, jobs, st);
    if (ok) {
        maker mk = {.program = program, .out_dir = out_dir, .jobs = (job *)(void *)jobs->data, .total = jobs->len,
                    .opt = opt};
        ok = make_files(&mk, voices, variants, &result, st);
    }
    if (opt->result != NULL)
        *opt->result = result;
    free_all(voices, variants, jobs);
    g_free(program);
    return ok;
}
