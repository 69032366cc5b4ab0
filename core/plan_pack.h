/* Where the memory planner puts each buffer in the arena (core/exec.c
 * lists the buffers and their live slots; this places them).
 *
 * The rule is greedy first-fit by decreasing size: buffers are taken in
 * rf_plan_buffer_order (size descending, then birth, then node and kind)
 * and each goes at the lowest offset that clears every buffer placed
 * before it whose live interval meets its own.
 */
#ifndef RF_PLAN_PACK_H
#define RF_PLAN_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RF_PLAN_ALIGN_FLOATS 16   /* 64 bytes */

typedef struct rf_plan_buffer {
    int32_t node;
    int kind;             /* 0 value, 1 grad, 2 aux */
    int birth, death;     /* live slots, both included; birth <= death */
    size_t floats;
    size_t offset;        /* set by rf_plan_pack, in floats */
} rf_plan_buffer;

/* floats rounded up to the arena's alignment: the room a buffer takes. */
size_t rf_plan_round_up(size_t floats);

/* qsort comparator: the order in which buffers are placed. */
int rf_plan_buffer_order(const void *a, const void *b);

/* Sort buf into rf_plan_buffer_order and set every offset; returns the
 * arena's size in floats. */
size_t rf_plan_pack(rf_plan_buffer *buf, size_t count);

#endif
