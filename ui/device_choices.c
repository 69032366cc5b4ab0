/* The Run section's device list, from core's device table. */
#include "device_choices.h"

#include "../core/device.h"

RfDeviceChoices *rf_device_choices_new(void)
{
    RfDeviceChoices *c = g_new0(RfDeviceChoices, 1);
    c->values = g_ptr_array_new_with_free_func(g_free);
    c->labels = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(c->values, g_strdup("cpu"));
    guint cores = g_get_num_processors();
    g_ptr_array_add(c->labels, g_strdup_printf("CPU (%u core%s)", cores, cores == 1 ? "" : "s"));

    const rf_device_backend *b = rf_device_backend_of(RF_DEVICE_CUDA);
    if (b == NULL) {
        c->no_gpu = g_strdup("This build has no CUDA backend (meson setup -Dcuda=enabled on a machine with nvcc).");
        return c;
    }
    int n = 0;
    rf_status st = {0};
    if (!b->count(&n, &st)) {
        c->no_gpu = g_strdup_printf("No usable GPU (%s).", st.msg);
        return c;
    }
    for (int i = 0; i < n; i++) {
        char name[256] = "";
        size_t memory = 0;
        rf_status_clear(&st);
        g_ptr_array_add(c->values, g_strdup_printf("cuda:%d", i));
        if (b->describe(i, name, sizeof name, &memory, &st))
            g_ptr_array_add(c->labels, g_strdup_printf("cuda:%d · %s, %.1f GiB", i, name, memory / 1073741824.0));
        else
            g_ptr_array_add(c->labels, g_strdup_printf("cuda:%d (%s)", i, st.msg));
    }
    return c;
}

void rf_device_choices_free(RfDeviceChoices *c)
{
    if (c == NULL)
        return;
    g_ptr_array_unref(c->values);
    g_ptr_array_unref(c->labels);
    g_free(c->no_gpu);
    g_free(c);
}

char *rf_device_choices_label(const RfDeviceChoices *c, const char *value)
{
    for (guint i = 0; i < c->values->len; i++)
        if (g_strcmp0(c->values->pdata[i], value) == 0)
            return g_strdup(c->labels->pdata[i]);
    /* "cuda" means the first GPU, as rf_device_parse reads it */
    if (g_strcmp0(value, "cuda") == 0 && c->values->len > 1)
        return g_strdup(c->labels->pdata[1]);
    return g_strdup_printf("%s (not on this machine)", value);
}
