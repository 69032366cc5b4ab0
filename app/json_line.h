/* One JSON object on one line, for the machine-readable outputs (--json and
 * train's final line). Keys are written in the order they are added. */
#ifndef RF_APP_JSON_LINE_H
#define RF_APP_JSON_LINE_H

#include <glib.h>
#include <stdint.h>

typedef struct rf_json_line {
    GString *text;
} rf_json_line;

void rf_json_begin(rf_json_line *j);
void rf_json_str(rf_json_line *j, const char *key, const char *value);   /* NULL writes null */
void rf_json_int(rf_json_line *j, const char *key, int64_t value);
void rf_json_num(rf_json_line *j, const char *key, double value);        /* NaN/Inf write null */
void rf_json_num_array(rf_json_line *j, const char *key, const float *values, int n);   /* [a,b,...] */
/* `json`, already JSON (an array of finished objects), as the value of key. */
void rf_json_raw(rf_json_line *j, const char *key, const char *json);
/* The finished object, without a newline; the builder is reset. */
char *rf_json_end(rf_json_line *j);

/* Print the object and a newline on stdout, and flush. */
void rf_json_print(rf_json_line *j);

#endif
