#include "tap.h"
int main(void) { tap_ok(true, "placeholder until the mechanism lands"); return tap_done(); }
