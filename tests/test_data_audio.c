#include "tap.h"
int main(void) { tap_ok(true, "placeholder until the loaders land"); return tap_done(); }
