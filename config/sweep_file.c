#include "sweep_file.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../datasets/text_input.h"
#include "config_file.h"

G_DEFINE_QUARK(rf-sweep-file-error-quark, rf_sweep_file_error)


static const char *const sweep_keys[] = {"config", "name", "method", "budget_runs", "budget_minutes", "seed",
                                         "early_stop", "min_evaluations", "metric", NULL};

static gboolean fail(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static gboolean fail(GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(error, RF_SWEEP_FILE_ERROR, RF_SWEEP_FILE_ERROR_FAILED, msg);
    return FALSE;
}

/* The line (from 1) of `key` in [group] of the file's text; 0 when not found
 * (GKeyFile keeps no line numbers). */
static int key_line(const char *text, const char *group, const char *key)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    gboolean in_group = FALSE;
    for (int i = 0; lines[i] != NULL; i++) {
        const char *l = lines[i];
        while (*l == ' ' || *l == '\t')
            l++;
        if (*l == '[') {
            const char *end = strchr(l, ']');
            in_group = end != NULL && (size_t)(end - l - 1) == strlen(group) && strncmp(l + 1, group, end - l - 1) == 0;
            continue;
        }
        size_t n = strlen(key);
        if (in_group && strncmp(l, key, n) == 0 && (l[n] == '=' || l[n] == ' ' || l[n] == '\t'))
            return i + 1;
    }
    return 0;
}

/* "FILE:LINE" or "FILE" when the line is unknown. */
static char *where(const char *path, int line)
{
    return line > 0 ? g_strdup_printf("%s:%d", path, line) : g_strdup(path);
}

static const rf_config_key *find_key(const char *dotted)
{
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        size_t n = strlen(k->section);
        if (strncmp(dotted, k->section, n) == 0 && dotted[n] == '.' && strcmp(dotted + n + 1, k->key) == 0)
            return k;
    }
    return NULL;
}

static gboolean parse_double(const char *text, double *v)
{
    char *end = NULL;
    *v = g_ascii_strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*v);
}

/* A range "KIND LO HI" onto k; FALSE with the problem in `why`. */
static gboolean parse_range(const char *value, const rf_config_key *ck, rf_sweep_key *k, char *why, size_t size)
{
    g_auto(GStrv) words = g_strsplit_set(value, " \t", -1);
    char *w[4];
    int n = 0;
    for (char **p = words; *p != NULL; p++)
        if (**p != '\0' && n < 4)
            w[n++] = *p;
    if (n != 3) {
        snprintf(why, size, "'%s': a range is KIND LOW HIGH, e.g. log-uniform 1e-4 3e-3", value);
        return FALSE;
    }
    k->kind = strcmp(w[0], "uniform") == 0 ? RF_SWEEP_UNIFORM
              : strcmp(w[0], "log-uniform") == 0 ? RF_SWEEP_LOG_UNIFORM
                                                  : RF_SWEEP_INT;
    if (ck->type != RF_KEY_INT && ck->type != RF_KEY_FLOAT && ck->type != RF_KEY_U64) {
        snprintf(why, size, "'%s': a range needs a number key; give a list of values", value);
        return FALSE;
    }
    if (!parse_double(w[1], &k->lo) || !parse_double(w[2], &k->hi)) {
        snprintf(why, size, "'%s': the bounds must be numbers", value);
        return FALSE;
    }
    if (!(k->lo < k->hi)) {
        snprintf(why, size, "'%s': the low bound must be below the high one", value);
        return FALSE;
    }
    if (k->kind == RF_SWEEP_LOG_UNIFORM && k->lo <= 0) {
        snprintf(why, size, "'%s': log-uniform bounds must be above 0", value);
        return FALSE;
    }
    if (k->kind == RF_SWEEP_INT && (k->lo != floor(k->lo) || k->hi != floor(k->hi))) {
        snprintf(why, size, "'%s': int bounds must be whole numbers", value);
        return FALSE;
    }
    if (k->kind == RF_SWEEP_INT && (k->lo < G_MININT32 || k->hi >= G_MAXINT32)) {
        snprintf(why, size, "'%s': int bounds must lie within +-2147483646", value);
        return FALSE;
    }
    if (k->kind != RF_SWEEP_INT && ck->type != RF_KEY_FLOAT) {
        snprintf(why, size, "'%s': %s.%s takes whole numbers; use int LOW HIGH", value, ck->section, ck->key);
        return FALSE;
    }
    if (ck->type != RF_KEY_U64 && (k->lo < ck->min || k->hi > ck->max)) {   /* a u64's range is its type's */
        snprintf(why, size, "'%s': %s.%s allows %g to %g", value, ck->section, ck->key, ck->min, ck->max);
        return FALSE;
    }
    return TRUE;
}

/* One [keys] line: its values, each checked by setting it. */
static gboolean parse_key(rf_sweep *s, const char *text, const char *name, const char *value, GError **error)
{
    rf_sweep_key *k = &s->keys[s->n_keys];
    k->line = key_line(text, "keys", name);
    g_autofree char *at = where(s->path, k->line);
    const rf_config_key *ck = find_key(name);
    rf_config probe;
    rf_config_defaults(&probe);
    rf_status st = {0};
    if (ck == NULL) {
        rf_config_set(&probe, name, "0", &st);
        return fail(error, "%s: [keys] %s: %s", at, name, st.msg[0] != '\0' ? st.msg : "not a config key");
    }
    for (int i = 0; i < s->n_keys; i++)
        if (strcmp(s->keys[i].name, name) == 0)
            return fail(error, "%s: [keys] %s: given twice", at, name);
    k->name = g_strdup(name);
    s->n_keys++;
    k->numeric = ck->type == RF_KEY_INT || ck->type == RF_KEY_FLOAT || ck->type == RF_KEY_U64;
    char why[512];
    if (g_str_has_prefix(value, "uniform ") || g_str_has_prefix(value, "log-uniform ") ||
        g_str_has_prefix(value, "int ")) {
        if (!parse_range(value, ck, k, why, sizeof why))
            return fail(error, "%s: [keys] %s: %s", at, name, why);
        if (s->method == RF_SWEEP_GRID)
            return fail(error, "%s: [keys] %s: grid search takes lists of values; ranges are for method = random",
                        at, name);
        return TRUE;
    }
    k->kind = RF_SWEEP_LIST;
    k->values = g_strsplit(value, strchr(value, '|') != NULL ? "|" : ",", -1);
    for (char **v = k->values; *v != NULL; v++) {
        g_strstrip(*v);
        if (**v == '\0')
            return fail(error, "%s: [keys] %s: an empty value in '%s'", at, name, value);
        if (!rf_config_set(&probe, name, *v, &st))
            return fail(error, "%s: [keys] %s: %s", at, name, st.msg);
        k->n_values++;
    }
    return TRUE;
}

static gboolean get_int(GKeyFile *kf, const char *text, const char *path, const char *key, int min, int max,
                        int *out, GError **error)
{
    g_autofree char *v = g_key_file_get_string(kf, "sweep", key, NULL);
    if (v == NULL)
        return TRUE;
    g_strstrip(v);
    char *end = NULL;
    gint64 n = g_ascii_strtoll(v, &end, 10);
    if (end == v || *end != '\0' || n < min || n > max) {
        g_autofree char *at = where(path, key_line(text, "sweep", key));
        return fail(error, "%s: [sweep] %s: '%s': give a whole number from %d to %d", at, key, v, min, max);
    }
    *out = (int)n;
    return TRUE;
}

/* The [sweep] section: one choice among `choices` ("a|b"), into *index. */
static gboolean get_choice(GKeyFile *kf, const char *text, const char *path, const char *key, const char *choices,
                           int *index, GError **error)
{
    g_autofree char *v = g_key_file_get_string(kf, "sweep", key, NULL);
    if (v == NULL)
        return TRUE;
    g_strstrip(v);
    g_auto(GStrv) allowed = g_strsplit(choices, "|", -1);
    for (int i = 0; allowed[i] != NULL; i++)
        if (strcmp(v, allowed[i]) == 0) {
            *index = i;
            return TRUE;
        }
    g_autofree char *at = where(path, key_line(text, "sweep", key));
    return fail(error, "%s: [sweep] %s: '%s': allowed values are %s", at, key, v, choices);
}

static gboolean parse_sweep_section(rf_sweep *s, GKeyFile *kf, const char *text, GError **error)
{
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "sweep", NULL, NULL);
    for (char **k = keys; *k != NULL; k++)
        if (!g_strv_contains(sweep_keys, *k)) {
            g_autofree char *at = where(s->path, key_line(text, "sweep", *k));
            return fail(error, "%s: [sweep] %s: unknown key (known: config, name, method, budget_runs, "
                               "budget_minutes, seed, early_stop, min_evaluations, metric)", at, *k);
        }
    int method = -1, early = 0, metric = 0;
    if (!get_choice(kf, text, s->path, "method", "grid|random", &method, error) ||
        !get_choice(kf, text, s->path, "early_stop", "off|median", &early, error) ||
        !get_choice(kf, text, s->path, "metric", "val_accuracy|val_loss", &metric, error) ||
        !get_int(kf, text, s->path, "budget_runs", 1, 1000000, &s->budget_runs, error) ||
        !get_int(kf, text, s->path, "min_evaluations", 1, 1000000, &s->min_evaluations, error))
        return FALSE;
    if (method < 0)
        return fail(error, "%s: [sweep] has no method: give method = grid or method = random", s->path);
    s->method = method;
    s->early_stop = early == 1;
    s->metric_is_loss = metric == 1;
    g_autofree char *minutes = g_key_file_get_string(kf, "sweep", "budget_minutes", NULL);
    if (minutes != NULL && (!parse_double(g_strstrip(minutes), &s->budget_minutes) || s->budget_minutes <= 0)) {
        g_autofree char *at = where(s->path, key_line(text, "sweep", "budget_minutes"));
        return fail(error, "%s: [sweep] budget_minutes: '%s': give a number of minutes above 0", at, minutes);
    }
    g_autofree char *seed = g_key_file_get_string(kf, "sweep", "seed", NULL);
    if (seed != NULL) {
        char *end = NULL;
        g_strstrip(seed);
        s->seed = g_ascii_strtoull(seed, &end, 10);
        if (end == seed || *end != '\0' || seed[0] == '-') {
            g_autofree char *at = where(s->path, key_line(text, "sweep", "seed"));
            return fail(error, "%s: [sweep] seed: '%s': give a whole number from 0", at, seed);
        }
    }
    g_autofree char *name = g_key_file_get_string(kf, "sweep", "name", NULL);
    if (name != NULL) {
        g_strstrip(name);
        if (name[0] == '\0' || name[0] == '.' || strchr(name, '/') != NULL) {
            g_autofree char *at = where(s->path, key_line(text, "sweep", "name"));
            return fail(error, "%s: [sweep] name: '%s': give a folder name (no '/', not starting with '.')", at,
                        name);
        }
        g_free(s->name);
        s->name = g_steal_pointer(&name);
    }
    g_autofree char *config = g_key_file_get_string(kf, "sweep", "config", NULL);
    if (config != NULL) {
        g_strstrip(config);
        g_autofree char *folder = g_path_get_dirname(s->path);
        s->base_config = g_path_is_absolute(config) ? g_strdup(config) : g_build_filename(folder, config, NULL);
    }
    if (s->method == RF_SWEEP_RANDOM && s->budget_runs == 0 && s->budget_minutes == 0)
        return fail(error, "%s: [sweep] method = random needs budget_runs or budget_minutes (it draws without end)",
                    s->path);
    return TRUE;
}

/* The file's config sections as --set assignments, each checked. */
static gboolean parse_base(rf_sweep *s, GKeyFile *kf, const char *text, GError **error)
{
    g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func(g_free);
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    rf_config probe;
    rf_config_defaults(&probe);
    for (char **g = groups; *g != NULL; g++) {
        if (strcmp(*g, "sweep") == 0 || strcmp(*g, "keys") == 0)
            continue;
        g_auto(GStrv) keys = g_key_file_get_keys(kf, *g, NULL, NULL);
        for (char **k = keys; *k != NULL; k++) {
            g_autofree char *value = g_key_file_get_string(kf, *g, *k, NULL);
            rf_status st = {0};
            if (value == NULL || !rf_config_set2(&probe, *g, *k, g_strchomp(value), &st)) {
                g_autofree char *at = where(s->path, key_line(text, *g, *k));
                return fail(error, "%s: [%s] %s: %s", at, *g, *k, value == NULL ? "not text" : st.msg);
            }
            g_ptr_array_add(sets, g_strdup_printf("%s.%s=%s", *g, *k, value));
        }
    }
    g_ptr_array_add(sets, NULL);
    g_ptr_array_set_free_func(sets, NULL);
    s->base_sets = (char **)g_ptr_array_free(g_steal_pointer(&sets), FALSE);
    return TRUE;
}

rf_sweep *rf_sweep_load(const char *path, GError **error)
{
    g_autoptr(rf_sweep) s = g_new0(rf_sweep, 1);
    s->path = g_strdup(path);
    g_autofree char *base = g_path_get_basename(path);
    s->name = g_str_has_suffix(base, ".ini") ? g_strndup(base, strlen(base) - 4) : g_strdup(base);
    s->seed = 1;
    s->min_evaluations = 2;
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) local = NULL;
    g_autofree char *text = NULL;
    if (!rf_text_load_key_file(kf, path, &local) || !g_file_get_contents(path, &text, NULL, &local)) {
        fail(error, "%s", local->message);
        return NULL;
    }
    if (!g_key_file_has_group(kf, "sweep")) {
        fail(error, "%s: no [sweep] section: give at least method = grid or method = random", path);
        return NULL;
    }
    if (!g_key_file_has_group(kf, "keys")) {
        fail(error, "%s: no [keys] section: name the config keys to sweep, e.g. model.encoder = ls, talk", path);
        return NULL;
    }
    if (!parse_sweep_section(s, kf, text, error) || !parse_base(s, kf, text, error))
        return NULL;
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "keys", NULL, NULL);
    s->keys = g_new0(rf_sweep_key, g_strv_length(keys) + 1);
    for (char **k = keys; *k != NULL; k++) {
        g_autofree char *value = g_key_file_get_string(kf, "keys", *k, NULL);
        if (value == NULL || !parse_key(s, text, *k, g_strstrip(value), error)) {
            if (value == NULL)
                fail(error, "%s: [keys] %s: not text", path, *k);
            return NULL;
        }
    }
    if (s->n_keys == 0) {
        fail(error, "%s: [keys] is empty: name the config keys to sweep, e.g. model.encoder = ls, talk", path);
        return NULL;
    }
    return g_steal_pointer(&s);
}

void rf_sweep_free(rf_sweep *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->n_keys; i++) {
        g_free(s->keys[i].name);
        g_strfreev(s->keys[i].values);
    }
    g_free(s->keys);
    g_strfreev(s->base_sets);
    g_free(s->base_config);
    g_free(s->name);
    g_free(s->path);
    g_free(s);
}

const char *rf_sweep_metric_name(const rf_sweep *s)
{
    return s->metric_is_loss ? "val_loss" : "val_accuracy";
}

int rf_sweep_trial_count(const rf_sweep *s)
{
    if (s->method == RF_SWEEP_RANDOM)
        return s->budget_runs > 0 ? s->budget_runs : -1;
    gint64 n = 1;
    for (int i = 0; i < s->n_keys; i++)
        n = MIN(n * s->keys[i].n_values, G_MAXINT);
    return s->budget_runs > 0 ? (int)MIN(n, s->budget_runs) : (int)n;
}

/* A drawn number as the config will read it back: ints whole, floats in
 * four significant digits (the table shows what the trial trained with). */
static char *draw(GRand *r, const rf_sweep_key *k)
{
    switch (k->kind) {
    case RF_SWEEP_LIST:
        return g_strdup(k->values[g_rand_int_range(r, 0, k->n_values)]);
    case RF_SWEEP_INT:
        return g_strdup_printf("%d", g_rand_int_range(r, (gint32)k->lo, (gint32)k->hi + 1));
    case RF_SWEEP_LOG_UNIFORM:
        return g_strdup_printf("%.4g", exp(g_rand_double_range(r, log(k->lo), log(k->hi))));
    case RF_SWEEP_UNIFORM:
        break;
    }
    return g_strdup_printf("%.4g", g_rand_double_range(r, k->lo, k->hi));
}

char **rf_sweep_trial_values(const rf_sweep *s, int index)
{
    char **v = g_new0(char *, s->n_keys + 1);
    if (s->method == RF_SWEEP_GRID) {
        int rest = index;
        for (int i = s->n_keys - 1; i >= 0; i--) {
            v[i] = g_strdup(s->keys[i].values[rest % s->keys[i].n_values]);
            rest /= s->keys[i].n_values;
        }
        return v;
    }
    guint32 seed[3] = {(guint32)s->seed, (guint32)(s->seed >> 32), (guint32)index};
    GRand *r = g_rand_new_with_seed_array(seed, 3);
    for (int i = 0; i < s->n_keys; i++)
        v[i] = draw(r, &s->keys[i]);
    g_rand_free(r);
    return v;
}

gboolean rf_sweep_trial_config(const rf_sweep *s, int index, rf_config *cfg, char ***sets, GError **error)
{
    rf_config_defaults(cfg);
    if (s->base_config != NULL && !rf_config_apply_ini(cfg, s->base_config, error))
        return FALSE;
    g_auto(GStrv) values = rf_sweep_trial_values(s, index);
    g_autoptr(GPtrArray) trial = g_ptr_array_new_with_free_func(g_free);
    for (int i = 0; i < s->n_keys; i++)
        g_ptr_array_add(trial, g_strdup_printf("%s=%s", s->keys[i].name, values[i]));
    g_ptr_array_add(trial, NULL);
    g_autoptr(GError) local = NULL;
    if (!rf_config_apply_sets(cfg, (const char *const *)s->base_sets, &local) ||
        !rf_config_apply_sets(cfg, (const char *const *)trial->pdata, &local)) {
        return fail(error, "%s: trial %d: %s", s->path, index + 1, local->message);
    }
    rf_status st = {0};
    if (!rf_config_validate(cfg, &st)) {
        g_autofree char *shown = g_strjoinv(", ", (char **)trial->pdata);
        return fail(error, "%s: trial %d (%s): %s", s->path, index + 1, shown, st.msg);
    }
    if (sets != NULL) {
        g_ptr_array_set_free_func(trial, NULL);
        *sets = (char **)g_ptr_array_free(g_steal_pointer(&trial), FALSE);
    }
    return TRUE;
}
