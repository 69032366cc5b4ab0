/* TaLK convolution (SPEC §5), fused: an adaptive window sum per token,
 * O(N * D) time and memory whatever the window size.
 *
 * x: [B, N, D], D channels in H groups of R = D/H that share window offsets.
 * offsets: [B, N, 2H], ã^l for heads 0..H-1 then ã^r for heads 0..H-1
 * (sigmoid outputs, normally in [0, 1]; larger values only widen the window
 * up to the clamp). key_mask: [B, N] (1 valid, 0 padding) or RF_NONE.
 *
 * Per sample, let L be one past its last valid position (N without a mask).
 * Padded positions of x count as zero, and for a valid position i of head h
 *     a^l = clamp(i - ã^l lmax, 0, L-1),   a^r = clamp(i + ã^r rmax, 0, L-1),
 *     S_j = sum_{k<=j} x_k / (lmax + rmax + 1),   S_{-1} = 0,
 *     out_i = S(a^r) - S(a^l - 1)
 * with S at a fractional position linearly interpolated as SPEC §5. Clamping
 * to the valid length (SPEC says [0, N-1]) keeps windows off the padding, so
 * appending padding never changes a valid output. Padded positions output 0.
 *
 * Gradients follow the published kernel: into x through the prefix sums;
 * into ã^l, lmax (S_{⌈a^l⌉-1} - S_{⌊a^l⌋-1}) g summed over the head's R
 * channels, into ã^r, rmax (S_{⌈a^r⌉} - S_{⌊a^r⌋}) g. Both vanish where a
 * bound is an integer (in particular where it is clamped): the clamp is not
 * differentiated, and at an exactly integer bound the published convention
 * gives zero although the one-sided derivatives are not.
 *
 * aux: the prefix sums S [B, N, D], then the bounds [B, N, 2H] (a^l per head,
 * then a^r per head, both 0 at padded positions; the "TaLK window bounds"
 * probe reads them at offset rf_talk_bounds_offset), then the mask [B, N].
 * ia = {heads, lmax, rmax, heads per kernel task}.
 */
#ifndef RF_OPS_TALK_H
#define RF_OPS_TALK_H

#include "../graph.h"

rf_id rf_talk(rf_graph *g, rf_id x, rf_id offsets, rf_id key_mask, int lmax, int rmax);

/* Floats into a talk node's aux where the bounds [B, N, 2H] start. */
int64_t rf_talk_bounds_offset(const rf_graph *g, rf_id talk);

#endif
