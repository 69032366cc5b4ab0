#include "tap.h"
int main(void) { tap_ok(true, "placeholder"); return tap_done(); }
