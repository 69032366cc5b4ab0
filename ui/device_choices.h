/* The devices the Run section offers for train.device: the CPU, then every
 * GPU the registered backends see, with name and memory. */
#ifndef RF_UI_DEVICE_CHOICES_H
#define RF_UI_DEVICE_CHOICES_H

#include <glib.h>

typedef struct RfDeviceChoices {
    GPtrArray *values;   /* "cpu", "cuda:0", ... (char *) */
    GPtrArray *labels;   /* "CPU (2 cores)", "cuda:0 · NVIDIA H100, 79.1 GiB", ... */
    char *no_gpu;        /* why no GPU is listed (one sentence), or NULL */
} RfDeviceChoices;

RfDeviceChoices *rf_device_choices_new(void);
void rf_device_choices_free(RfDeviceChoices *c);
/* The label for `value`, which need not be in the list (a config's cuda:3
 * on a machine without it): "cuda:3 (not on this machine)". */
char *rf_device_choices_label(const RfDeviceChoices *c, const char *value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(RfDeviceChoices, rf_device_choices_free)

#endif
