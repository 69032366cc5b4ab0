#include "projection_tensorboard.h"

#include <errno.h>
#include <glib.h>
#include <string.h>

#include "../core/atomic_file.h"

static bool write_string(const char *path, const GString *text, rf_status *st)
{
    return rf_atomic_write_bytes(path, text->str, text->len, st);
}

bool rf_projection_write_csv(const rf_projection *p, const float *coords, int dims, const char *path,
                             rf_status *st)
{
    g_autoptr(GString) out = g_string_new("index,label,prediction,correct,length");
    for (int k = 0; k < dims; k++)
        g_string_append_printf(out, ",pc%d", k + 1);
    g_string_append_c(out, '\n');
    for (int64_t i = 0; i < p->count; i++) {
        g_string_append_printf(out, "%lld,%d,%d,%d,%d", (long long)i, p->label[i], p->predicted[i],
                               p->label[i] == p->predicted[i], p->length[i]);
        for (int k = 0; k < dims; k++)
            g_string_append_printf(out, ",%.9g", coords[(size_t)i * dims + k]);
        g_string_append_c(out, '\n');
    }
    return write_string(path, out, st);
}

bool rf_projection_write_tensorboard(const rf_projection *p, const char *dir, rf_status *st)
{
    if (g_mkdir_with_parents(dir, 0755) != 0)
        return rf_fail(st, "%s: cannot make the folder: %s", dir, g_strerror(errno));
    g_autoptr(GString) tensors = g_string_new(NULL), meta = g_string_new("index\tlabel\tprediction\tcorrect\tlength\n");
    for (int64_t i = 0; i < p->count; i++) {
        const float *v = p->vectors + (size_t)i * (size_t)p->width;
        for (int j = 0; j < p->width; j++)
            g_string_append_printf(tensors, j ? "\t%.9g" : "%.9g", v[j]);
        g_string_append_c(tensors, '\n');
        g_string_append_printf(meta, "%lld\t%d\t%d\t%d\t%d\n", (long long)i, p->label[i], p->predicted[i],
                               p->label[i] == p->predicted[i], p->length[i]);
    }
    g_autoptr(GString) config = g_string_new(NULL);
    g_string_append_printf(config,
                           "embeddings {\n  tensor_name: \"%s\"\n  tensor_path: \"tensors.tsv\"\n"
                           "  metadata_path: \"metadata.tsv\"\n}\n",
                           p->tap);
    g_autofree char *tp = g_build_filename(dir, "tensors.tsv", NULL);
    g_autofree char *mp = g_build_filename(dir, "metadata.tsv", NULL);
    g_autofree char *cp = g_build_filename(dir, "projector_config.pbtxt", NULL);
    /* the config last: a reader that finds it finds both files it names */
    return write_string(tp, tensors, st) && write_string(mp, meta, st) && write_string(cp, config, st);
}
