/* The verbs of `rangefinder VERB [OPTION…]`. Each parses its own options
 * (argv[0] is the verb) and returns the process exit code. */
#ifndef RF_APP_COMMANDS_H
#define RF_APP_COMMANDS_H

int rf_cmd_train(int argc, char **argv);
int rf_cmd_eval(int argc, char **argv);
int rf_cmd_bench(int argc, char **argv);
int rf_cmd_memory(int argc, char **argv);
int rf_cmd_config(int argc, char **argv);
int rf_cmd_inspect(int argc, char **argv);
int rf_cmd_predict(int argc, char **argv);
int rf_cmd_make_dataset(int argc, char **argv);
int rf_cmd_plot(int argc, char **argv);

#endif
