#!/usr/bin/env bash
# The GUI test under a virtual X server: run_gui.sh TEST_GUI RANGEFINDER.
# Without Xvfb the whole test is one TAP skip with the reason, so it
# still shows in the counts (and CI, which installs xvfb, fails on it).
if ! command -v Xvfb >/dev/null; then
    echo "1..0 # SKIP Xvfb is not installed (Debian: apt-get install xvfb)"
    exit 0
fi
# RF_XVFB_SCREEN: the virtual screen, WIDTHxHEIGHTxDEPTH in device pixels
# (GDK_SCALE=2 needs twice the logical size of the largest window). The
# pointer rests at the screen's centre: at 3840 x 2400 that is off every
# window, so no hover read-out shows in a screenshot.
exec "$(dirname "$0")/xvfb_run.sh" "${RF_XVFB_SCREEN:-3840x2400x24}" "$@"
