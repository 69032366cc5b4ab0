/* The order of a folder task's classes (see class_order.h). */
#include "class_order.h"

#include <string.h>

static const char *const digit_words[] = {"zero", "one", "two", "three", "four",
                                          "five", "six", "seven", "eight", "nine"};

/* 0..9 for a digit word, -1 for any other name. */
static int digit_value(const char *name)
{
    for (int d = 0; d < (int)G_N_ELEMENTS(digit_words); d++)
        if (g_ascii_strcasecmp(name, digit_words[d]) == 0)
            return d;
    return -1;
}

static int compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Ties (the same word in two cases) fall back to the names. */
static int compare_digits(gconstpointer a, gconstpointer b)
{
    int da = digit_value(*(char *const *)a), db = digit_value(*(char *const *)b);
    return da != db ? da - db : compare_names(a, b);
}

void rf_class_names_sort(GPtrArray *names)
{
    gboolean digits = names->len > 0;
    for (guint i = 0; i < names->len && digits; i++)
        digits = digit_value(names->pdata[i]) >= 0;
    g_ptr_array_sort(names, digits ? compare_digits : compare_names);
}
