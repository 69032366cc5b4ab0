/* The order of a folder task's classes, which fixes their label numbers:
 * sorted by name, except that folders named by digit words (zero, one, ...
 * nine, any case) keep the digits' order, so "zero" is class 0 and "nine"
 * class 9 rather than "eight" coming first. */
#ifndef RF_DATASETS_CLASS_ORDER_H
#define RF_DATASETS_CLASS_ORDER_H

#include <glib.h>

/* Sort the class names (char *) in place, as above. */
void rf_class_names_sort(GPtrArray *names);

#endif
