#!/usr/bin/env bash
# The GUI test under a virtual X server: run_gui.sh TEST_GUI RANGEFINDER.
# Without xvfb-run the whole test is one TAP skip with the reason, so it
# still shows in the counts (and CI, which installs xvfb, fails on it).
if ! command -v xvfb-run >/dev/null; then
    echo "1..0 # SKIP xvfb-run is not installed (Debian: apt-get install xvfb xauth)"
    exit 0
fi
exec xvfb-run -a -s '-screen 0 1920x1200x24' "$@"
