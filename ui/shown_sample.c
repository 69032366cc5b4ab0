/* The shown sample and its attribution (shown_sample.h). */
#include "shown_sample.h"

#define SAMPLE_KEY "rf-shown-sample"
#define ATTRIBUTION_KEY "rf-shown-attribution"

/* One sample: a split's index, or an inspected input (held). */
typedef struct which {
    rf_split split;
    int64_t index;
    rf_inspected *in;
} which;

typedef struct shown_attribution {
    which of;
    float *values;
    int len;
    rf_attr_method method;
} shown_attribution;

static which *which_new(rf_split split, int64_t index, const rf_inspected *in)
{
    which *w = g_new0(which, 1);
    w->split = split;
    w->index = index;
    w->in = in != NULL ? rf_inspected_acquire((rf_inspected *)in) : NULL;
    return w;
}

static void which_clear(which *w)
{
    if (w->in != NULL)
        rf_inspected_release(w->in);
    w->in = NULL;
}

static void which_free(which *w)
{
    which_clear(w);
    g_free(w);
}

static gboolean same(const which *w, rf_split split, int64_t index, const rf_inspected *in)
{
    if (w->in != NULL || in != NULL)
        return w->in == in;
    return w->split == split && w->index == index;
}

static void shown_attribution_free(shown_attribution *a)
{
    which_clear(&a->of);
    g_free(a->values);
    g_free(a);
}

void rf_shown_sample_set(RfSession *s, rf_split split, int64_t index, const rf_inspected *in)
{
    if (in == NULL && index < 0)
        g_object_set_data(G_OBJECT(s), SAMPLE_KEY, NULL);
    else
        g_object_set_data_full(G_OBJECT(s), SAMPLE_KEY, which_new(split, index, in), (GDestroyNotify)which_free);
}

gboolean rf_shown_sample_get(RfSession *s, rf_split *split, int64_t *index, const rf_inspected **in)
{
    const which *w = g_object_get_data(G_OBJECT(s), SAMPLE_KEY);
    if (w == NULL)
        return FALSE;
    *split = w->split;
    *index = w->index;
    *in = w->in;
    return TRUE;
}

void rf_shown_attribution_set(RfSession *s, rf_split split, int64_t index, const rf_inspected *in,
                              const rf_attribution *a, rf_attr_method method)
{
    shown_attribution *sa = g_new0(shown_attribution, 1);
    which *w = which_new(split, index, in);
    sa->of = *w;
    g_free(w);
    sa->values = g_memdup2(a->values, sizeof(float) * (size_t)a->len);
    sa->len = a->len;
    sa->method = method;
    g_object_set_data_full(G_OBJECT(s), ATTRIBUTION_KEY, sa, (GDestroyNotify)shown_attribution_free);
}

const float *rf_shown_attribution_get(RfSession *s, rf_split split, int64_t index, const rf_inspected *in, int *len,
                                      rf_attr_method *method)
{
    const shown_attribution *sa = g_object_get_data(G_OBJECT(s), ATTRIBUTION_KEY);
    if (sa == NULL || !same(&sa->of, split, index, in))
        return NULL;
    *len = sa->len;
    *method = sa->method;
    return sa->values;
}
