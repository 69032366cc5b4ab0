/* Checkpoints: a safetensors file holding every parameter under its own
 * name (so `safetensors.torch.load_file` gives a PyTorch user the weights),
 * the AdamW moments as "optimizer.m.<name>" and "optimizer.v.<name>", and in
 * __metadata__: "format" = "rangefinder-checkpoint", "version" = "1",
 * "config" = the full run config as JSON, "step" = the number of finished
 * steps, "optimizer" = "adamw", "crc32" = zlib's CRC-32 of the data section
 * (every byte after the header) as 8 lowercase hex digits.
 */
#ifndef RF_CHECKPOINT_H
#define RF_CHECKPOINT_H

#include "config.h"
#include "params.h"

bool rf_checkpoint_save(const char *path, const rf_config *cfg, const rf_params *p, int64_t step,
                        rf_status *st);
/* A weights file: the same but the parameters' values alone (no moments),
 * with "optimizer" = "none"; a forward-only store can write one. The
 * functions below read it as a checkpoint whose moments are zero. */
bool rf_checkpoint_save_weights(const char *path, const rf_config *cfg, const rf_params *p, int64_t step,
                                rf_status *st);

/* Read only the config and step (to rebuild the model before loading). */
bool rf_checkpoint_read_config(const char *path, rf_config *cfg, int64_t *step, rf_status *st);

/* Load values and optimizer moments into an allocated store built from the
 * same config (a weights file's values, the moments zeroed). The data must match the crc32 (a file without one loads with
 * a warning through rf_warn). Every parameter must be present with the same
 * shape and finite values; a missing, extra, mis-shaped or non-finite tensor
 * is an error naming the file and the tensor; nothing is changed in `p`
 * unless the whole file is good. */
bool rf_checkpoint_load(const char *path, rf_params *p, int64_t *step, rf_status *st);

#endif
