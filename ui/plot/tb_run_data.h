/* A folder of TensorBoard event files (anyone's: PyTorch's SummaryWriter,
 * TensorFlow, our own) as a run the plots draw beside ours. Its scalar tags
 * are matched to our series by their words: a split (train, training; val,
 * valid, validation, eval, dev; test; none is train) and a quantity (loss;
 * acc, accuracy; lr, learning rate), in any order and with any separator:
 * `loss`, `train/loss`, `Loss/train`, `val_acc`, `Accuracy/validation`,
 * `learning_rate`. Where several tags match one series the one with the
 * fewest other words wins (`train/loss` before `train/loss_smoothed`), then
 * the first written. Steps are the events' steps, time the seconds since
 * the first event.
 */
#ifndef RF_TB_RUN_DATA_H
#define RF_TB_RUN_DATA_H

#include <glib.h>

#include "../../config/tb_reader.h"
#include "run_data.h"

typedef enum { RF_TB_LOSS, RF_TB_ACCURACY, RF_TB_LR, RF_TB_QUANTITIES } rf_tb_quantity;

/* Whether `tag` names one of our series; *extra counts its other words. */
gboolean rf_tb_tag_meaning(const char *tag, rf_split *split, rf_tb_quantity *quantity, int *extra);

/* The run of `dir`'s event files; an error names the folder when none of
 * its tags is a loss, accuracy or learning rate. The config is the
 * defaults (a TensorBoard run has none of ours). */
rf_run_data *rf_run_data_load_tensorboard(const char *dir, GError **error);
/* The same from a run already read (its `dir` names it). */
rf_run_data *rf_run_data_from_tensorboard(const rf_tb_run *run, GError **error);

#endif
