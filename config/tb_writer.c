#include "tb_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "config_file.h"
#include "tb_record.h"
#include "tensorboard.pb-c.h"

#define HPARAMS_PLUGIN "hparams"
#define SESSION_START_TAG "_hparams_/session_start_info"
#define SESSION_END_TAG "_hparams_/session_end_info"

struct rf_tb_writer {
    char *path;
    int fd;
};

static gboolean fail_errno(GError **error, const char *path, int err)
{
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err), "%s: %s", path, g_strerror(err));
    return FALSE;
}

const char *rf_tb_writer_path(const rf_tb_writer *w)
{
    return w->path;
}

static double now_seconds(void)
{
    return (double)g_get_real_time() * 1e-6;
}

/* One framed event, in a single write. */
static gboolean write_event(rf_tb_writer *w, Tensorboard__Event *ev, GError **error)
{
    ev->wall_time = now_seconds();
    size_t len = tensorboard__event__get_packed_size(ev);
    g_autofree uint8_t *packed = g_malloc(len > 0 ? len : 1);
    tensorboard__event__pack(ev, packed);
    size_t framed_len;
    g_autofree uint8_t *framed = rf_tb_record_frame(packed, len, &framed_len);
    for (size_t done = 0; done < framed_len;) {
        ssize_t n = write(w->fd, framed + done, framed_len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail_errno(error, w->path, errno);
        done += (size_t)n;
    }
    return TRUE;
}

rf_tb_writer *rf_tb_writer_open(const char *dir, GError **error)
{
    /* time first, so that name order is write order; pid and a count keep
     * two writers (or two opens within a second) apart */
    g_autofree char *host = g_strdup(g_get_host_name());
    g_strdelimit(host, "/", '_');
    long long t = (long long)(g_get_real_time() / G_USEC_PER_SEC);
    for (int n = 0;; n++) {
        g_autofree char *name = g_strdup_printf("events.out.tfevents.%010lld.%s.%d.%d", t, host, (int)getpid(), n);
        g_autofree char *path = g_build_filename(dir, name, NULL);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST && n < 1000)
            continue;
        if (fd < 0) {
            fail_errno(error, path, errno);
            return NULL;
        }
        rf_tb_writer *w = g_new0(rf_tb_writer, 1);
        w->path = g_steal_pointer(&path);
        w->fd = fd;
        Tensorboard__Event ev = TENSORBOARD__EVENT__INIT;
        ev.what_case = TENSORBOARD__EVENT__WHAT_FILE_VERSION;
        ev.file_version = "brain.Event:2";
        if (!write_event(w, &ev, error))
            g_clear_pointer(&w, rf_tb_writer_close);
        return w;
    }
}

gboolean rf_tb_writer_scalars(rf_tb_writer *w, int64_t step, const char *const *tags, const double *values, size_t n,
                              GError **error)
{
    g_autofree Tensorboard__Summary__Value *v = g_new(Tensorboard__Summary__Value, n > 0 ? n : 1);
    g_autofree Tensorboard__Summary__Value **ptrs = g_new(Tensorboard__Summary__Value *, n > 0 ? n : 1);
    for (size_t i = 0; i < n; i++) {
        v[i] = (Tensorboard__Summary__Value)TENSORBOARD__SUMMARY__VALUE__INIT;
        v[i].tag = (char *)tags[i];
        v[i].value_case = TENSORBOARD__SUMMARY__VALUE__VALUE_SIMPLE_VALUE;
        v[i].simple_value = (float)values[i];
        ptrs[i] = &v[i];
    }
    Tensorboard__Summary summary = TENSORBOARD__SUMMARY__INIT;
    summary.n_value = n;
    summary.value = ptrs;
    Tensorboard__Event ev = TENSORBOARD__EVENT__INIT;
    ev.step = step;
    ev.what_case = TENSORBOARD__EVENT__WHAT_SUMMARY;
    ev.summary = &summary;
    return write_event(w, &ev, error);
}

gboolean rf_tb_writer_restart(rf_tb_writer *w, int64_t step, GError **error)
{
    Tensorboard__SessionLog log = TENSORBOARD__SESSION_LOG__INIT;
    log.status = TENSORBOARD__SESSION_LOG__SESSION_STATUS__START;
    Tensorboard__Event ev = TENSORBOARD__EVENT__INIT;
    ev.step = step;
    ev.what_case = TENSORBOARD__EVENT__WHAT_SESSION_LOG;
    ev.session_log = &log;
    return write_event(w, &ev, error);
}

/* A value-less summary whose metadata carries the plugin's record, as the
 * HParams plugin's own writers (and PyTorch's) make them. */
static gboolean write_hparams(rf_tb_writer *w, const char *tag, Tensorboard__HParamsPluginData *data, GError **error)
{
    size_t len = tensorboard__hparams_plugin_data__get_packed_size(data);
    g_autofree uint8_t *content = g_malloc(len > 0 ? len : 1);
    tensorboard__hparams_plugin_data__pack(data, content);
    Tensorboard__SummaryMetadata__PluginData plugin = TENSORBOARD__SUMMARY_METADATA__PLUGIN_DATA__INIT;
    plugin.plugin_name = HPARAMS_PLUGIN;
    plugin.content.data = content;
    plugin.content.len = len;
    Tensorboard__SummaryMetadata metadata = TENSORBOARD__SUMMARY_METADATA__INIT;
    metadata.plugin_data = &plugin;
    Tensorboard__Summary__Value v = TENSORBOARD__SUMMARY__VALUE__INIT;
    v.tag = (char *)tag;
    v.metadata = &metadata;
    Tensorboard__Summary__Value *values[] = {&v};
    Tensorboard__Summary summary = TENSORBOARD__SUMMARY__INIT;
    summary.n_value = 1;
    summary.value = values;
    Tensorboard__Event ev = TENSORBOARD__EVENT__INIT;
    ev.what_case = TENSORBOARD__EVENT__WHAT_SUMMARY;
    ev.summary = &summary;
    return write_event(w, &ev, error);
}

/* A key's value: a number where TensorBoard's float64 holds it exactly. */
static void set_hparam(Tensorboard__HParamValue *value, const rf_config_key *k, char *text)
{
    char *end = NULL;
    double number = g_ascii_strtod(text, &end);
    gboolean numeric = k->type == RF_KEY_INT || k->type == RF_KEY_FLOAT ||
                       (k->type == RF_KEY_U64 && number <= 9007199254740992.0);
    if (numeric && end != text && *end == '\0') {
        value->kind_case = TENSORBOARD__HPARAM_VALUE__KIND_NUMBER_VALUE;
        value->number_value = number;
    } else {
        value->kind_case = TENSORBOARD__HPARAM_VALUE__KIND_STRING_VALUE;
        value->string_value = text;
    }
}

gboolean rf_tb_writer_session_start(rf_tb_writer *w, const rf_config *cfg, GError **error)
{
    size_t n = 0;
    while (rf_config_keys[n].section != NULL)
        n++;
    g_autofree Tensorboard__SessionStartInfo__HparamsEntry *entries =
        g_new(Tensorboard__SessionStartInfo__HparamsEntry, n);
    g_autofree Tensorboard__SessionStartInfo__HparamsEntry **entry_ptrs =
        g_new(Tensorboard__SessionStartInfo__HparamsEntry *, n);
    g_autofree Tensorboard__HParamValue *values = g_new(Tensorboard__HParamValue, n);
    g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; i < n; i++) {
        const rf_config_key *k = &rf_config_keys[i];
        char *text = g_malloc(RF_STR_LEN + 32);
        rf_config_format_value(cfg, k, text, RF_STR_LEN + 32);
        char *key = g_strdup_printf("%s.%s", k->section, k->key);
        g_ptr_array_add(texts, text);
        g_ptr_array_add(texts, key);
        values[i] = (Tensorboard__HParamValue)TENSORBOARD__HPARAM_VALUE__INIT;
        set_hparam(&values[i], k, text);
        entries[i] = (Tensorboard__SessionStartInfo__HparamsEntry)TENSORBOARD__SESSION_START_INFO__HPARAMS_ENTRY__INIT;
        entries[i].key = key;
        entries[i].value = &values[i];
        entry_ptrs[i] = &entries[i];
    }
    Tensorboard__SessionStartInfo start = TENSORBOARD__SESSION_START_INFO__INIT;
    start.n_hparams = n;
    start.hparams = entry_ptrs;
    start.start_time_secs = now_seconds();
    Tensorboard__HParamsPluginData data = TENSORBOARD__HPARAMS_PLUGIN_DATA__INIT;
    data.data_case = TENSORBOARD__HPARAMS_PLUGIN_DATA__DATA_SESSION_START_INFO;
    data.session_start_info = &start;
    return write_hparams(w, SESSION_START_TAG, &data, error);
}

gboolean rf_tb_writer_session_end(rf_tb_writer *w, rf_tb_status status, GError **error)
{
    Tensorboard__SessionEndInfo end = TENSORBOARD__SESSION_END_INFO__INIT;
    end.status = (Tensorboard__SessionStatus)status;
    end.end_time_secs = now_seconds();
    Tensorboard__HParamsPluginData data = TENSORBOARD__HPARAMS_PLUGIN_DATA__INIT;
    data.data_case = TENSORBOARD__HPARAMS_PLUGIN_DATA__DATA_SESSION_END_INFO;
    data.session_end_info = &end;
    return write_hparams(w, SESSION_END_TAG, &data, error);
}

gboolean rf_tb_writer_sync(rf_tb_writer *w, GError **error)
{
    if (fsync(w->fd) != 0)
        return fail_errno(error, w->path, errno);
    return TRUE;
}

void rf_tb_writer_close(rf_tb_writer *w)
{
    if (w == NULL)
        return;
    close(w->fd);
    g_free(w->path);
    g_free(w);
}
