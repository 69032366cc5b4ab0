#include "tb_reader.h"

#include <string.h>

#include "tb_record.h"
#include "tensorboard.pb-c.h"

#define SCALARS_PLUGIN "scalars"

/* What TensorBoard's EventAccumulator keeps across the files of a run. */
typedef struct read_state {
    rf_tb_run *run;
    GHashTable *plugins;       /* tag -> the plugin its first metadata named ("" if none) */
    double file_version;       /* of the last file_version event; 0 before one */
    int64_t most_recent_step;  /* for files older than version 2 */
} read_state;

static void series_free(gpointer p)
{
    rf_tb_series *s = p;
    g_free(s->tag);
    g_array_unref(s->points);
    g_free(s);
}

rf_tb_run *rf_tb_run_new(const char *dir)
{
    rf_tb_run *run = g_new0(rf_tb_run, 1);
    run->dir = g_strdup(dir);
    run->series = g_ptr_array_new_with_free_func(series_free);
    return run;
}

void rf_tb_run_free(rf_tb_run *run)
{
    if (run == NULL)
        return;
    g_ptr_array_unref(run->series);
    g_free(run->dir);
    g_free(run);
}

const rf_tb_series *rf_tb_run_find(const rf_tb_run *run, const char *tag)
{
    for (guint i = 0; i < run->series->len; i++) {
        const rf_tb_series *s = g_ptr_array_index(run->series, i);
        if (strcmp(s->tag, tag) == 0)
            return s;
    }
    return NULL;
}

/* Points of `s` at steps >= step go. */
static void drop_from(rf_tb_series *s, int64_t step)
{
    guint keep = 0;
    for (guint i = 0; i < s->points->len; i++) {
        rf_tb_point p = g_array_index(s->points, rf_tb_point, i);
        if (p.step < step)
            g_array_index(s->points, rf_tb_point, keep++) = p;
    }
    g_array_set_size(s->points, keep);
}

static void add_point(rf_tb_run *run, const char *tag, const Tensorboard__Event *ev, double value)
{
    rf_tb_series *s = (rf_tb_series *)rf_tb_run_find(run, tag);
    if (s == NULL) {
        s = g_new0(rf_tb_series, 1);
        s->tag = g_strdup(tag);
        s->points = g_array_new(FALSE, FALSE, sizeof(rf_tb_point));
        g_ptr_array_add(run->series, s);
    }
    rf_tb_point p = {ev->step, value, ev->wall_time};
    g_array_append_val(s->points, p);
}

static gboolean little_endian_copy(void *out, const ProtobufCBinaryData *bytes, size_t size)
{
    if (bytes->len != size)
        return FALSE;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
    memcpy(out, bytes->data, size);
#else
    for (size_t i = 0; i < size; i++)
        ((uint8_t *)out)[i] = bytes->data[size - 1 - i];
#endif
    return TRUE;
}

/* A tensor holding one float or double (any shape of one element). */
static gboolean tensor_scalar(const Tensorboard__TensorProto *t, double *value)
{
    if (t->tensor_shape != NULL)
        for (size_t i = 0; i < t->tensor_shape->n_dim; i++)
            if (t->tensor_shape->dim[i]->size != 1)
                return FALSE;
    if (t->dtype == TENSORBOARD__DATA_TYPE__DT_FLOAT) {
        float f;
        if (t->n_float_val == 1)
            f = t->float_val[0];
        else if (!little_endian_copy(&f, &t->tensor_content, sizeof f))
            return FALSE;
        *value = f;
        return TRUE;
    }
    if (t->dtype == TENSORBOARD__DATA_TYPE__DT_DOUBLE) {
        if (t->n_double_val == 1)
            *value = t->double_val[0];
        else if (!little_endian_copy(value, &t->tensor_content, sizeof *value))
            return FALSE;
        return TRUE;
    }
    return FALSE;
}

static void read_value(read_state *rs, const Tensorboard__Summary__Value *v, const Tensorboard__Event *ev)
{
    if (v->metadata != NULL && !g_hash_table_contains(rs->plugins, v->tag)) {
        const char *plugin = v->metadata->plugin_data != NULL ? v->metadata->plugin_data->plugin_name : "";
        g_hash_table_insert(rs->plugins, g_strdup(v->tag), g_strdup(plugin));
    }
    double value;
    if (v->value_case == TENSORBOARD__SUMMARY__VALUE__VALUE_SIMPLE_VALUE) {
        add_point(rs->run, v->tag, ev, v->simple_value);
    } else if (v->value_case == TENSORBOARD__SUMMARY__VALUE__VALUE_TENSOR) {
        /* a scalar tensor of another plugin (a text, a histogram's bucket) is not a scalar series */
        const char *plugin = g_hash_table_lookup(rs->plugins, v->tag);
        if ((plugin == NULL || *plugin == '\0' || strcmp(plugin, SCALARS_PLUGIN) == 0) &&
            tensor_scalar(v->tensor, &value))
            add_point(rs->run, v->tag, ev, value);
    }
}

/* TensorBoard's purge of orphaned points, before the event's own values:
 * from version 2 on a SessionLog START drops every tag's points at its step
 * and after; older files drop a tag's points from a step that goes back. */
static void purge(read_state *rs, const Tensorboard__Event *ev)
{
    if (rs->file_version >= 2) {
        if (ev->what_case == TENSORBOARD__EVENT__WHAT_SESSION_LOG &&
            ev->session_log->status == TENSORBOARD__SESSION_LOG__SESSION_STATUS__START)
            for (guint i = 0; i < rs->run->series->len; i++)
                drop_from(g_ptr_array_index(rs->run->series, i), ev->step);
    } else if (ev->what_case == TENSORBOARD__EVENT__WHAT_SUMMARY && ev->step < rs->most_recent_step) {
        for (size_t i = 0; i < ev->summary->n_value; i++) {
            rf_tb_series *s = (rf_tb_series *)rf_tb_run_find(rs->run, ev->summary->value[i]->tag);
            if (s != NULL)
                drop_from(s, ev->step);
        }
    } else {
        rs->most_recent_step = ev->step;
    }
}

static void read_event(read_state *rs, const Tensorboard__Event *ev)
{
    if (ev->what_case == TENSORBOARD__EVENT__WHAT_FILE_VERSION) {
        const char *colon = strrchr(ev->file_version, ':');
        rs->file_version = colon != NULL ? g_ascii_strtod(colon + 1, NULL) : 0;
    }
    purge(rs, ev);
    if (ev->what_case == TENSORBOARD__EVENT__WHAT_SUMMARY)
        for (size_t i = 0; i < ev->summary->n_value; i++)
            read_value(rs, ev->summary->value[i], ev);
}

static gboolean add_events(read_state *rs, const char *name, const uint8_t *buf, size_t size, GError **error)
{
    size_t offset = 0;
    for (;;) {
        const uint8_t *data = NULL;
        size_t len = 0, next = 0;
        const char *problem = NULL;
        rf_tb_record_result r = rf_tb_record_next(buf, size, offset, &data, &len, &next, &problem);
        if (r == RF_TB_RECORD_END || r == RF_TB_RECORD_TRUNCATED)
            return TRUE;
        if (r == RF_TB_RECORD_BAD) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: byte %zu: %s", name, offset, problem);
            return FALSE;
        }
        Tensorboard__Event *ev = tensorboard__event__unpack(NULL, len, data);
        if (ev == NULL) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                        "%s: byte %zu: the record is not a TensorBoard event (its protobuf does not decode)", name,
                        offset);
            return FALSE;
        }
        read_event(rs, ev);
        tensorboard__event__free_unpacked(ev, NULL);
        offset = next;
    }
}

gboolean rf_tb_run_add_events(rf_tb_run *run, const char *name, const uint8_t *buf, size_t size, GError **error)
{
    read_state rs = {run, g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free), 0, -1};
    gboolean ok = add_events(&rs, name, buf, size, error);
    g_hash_table_unref(rs.plugins);
    return ok;
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The event files of `dir`, in name order; NULL if it cannot be listed. */
static GPtrArray *event_files(const char *dir, GError **error)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, error);
    if (d == NULL)
        return NULL;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (const char *name; (name = g_dir_read_name(d)) != NULL;) {
        g_autofree char *path = g_build_filename(dir, name, NULL);
        if (strstr(name, "tfevents") != NULL && g_file_test(path, G_FILE_TEST_IS_REGULAR))
            g_ptr_array_add(names, g_strdup(name));
    }
    g_ptr_array_sort(names, compare_names);
    return names;
}

gboolean rf_tb_dir_has_events(const char *dir)
{
    g_autoptr(GPtrArray) names = event_files(dir, NULL);
    return names != NULL && names->len > 0;
}

rf_tb_run *rf_tb_run_read(const char *dir, GError **error)
{
    g_autoptr(GPtrArray) names = event_files(dir, error);
    if (names == NULL)
        return NULL;
    if (names->len == 0) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "%s: no TensorBoard event files (events.out.tfevents.*) in this folder", dir);
        return NULL;
    }
    g_autoptr(rf_tb_run) run = rf_tb_run_new(dir);
    read_state rs = {run, g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free), 0, -1};
    gboolean ok = TRUE;
    for (guint i = 0; ok && i < names->len; i++) {
        /* mapped, not read: a PyTorch run's file with images in it may be large */
        g_autofree char *path = g_build_filename(dir, g_ptr_array_index(names, i), NULL);
        g_autoptr(GMappedFile) mapped = g_mapped_file_new(path, FALSE, error);
        ok = mapped != NULL && add_events(&rs, path, (const uint8_t *)g_mapped_file_get_contents(mapped),
                                          g_mapped_file_get_length(mapped), error);
    }
    g_hash_table_unref(rs.plugins);
    return ok ? g_steal_pointer(&run) : NULL;
}
