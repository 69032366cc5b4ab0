#!/usr/bin/env bash
# xvfb_run.sh SCREEN COMMAND...: COMMAND under a virtual X server of its own
# (SCREEN: WIDTHxHEIGHTxDEPTH), with its exit status. The server picks a free
# display itself and tells its number (-displayfd), so tests starting at once
# never share one: `xvfb-run -a` chooses a number before starting the server,
# and two runs choosing together leave one client on the other's server,
# refused ("no display").
screen=$1
shift
tmp=$(mktemp -d)
Xvfb -displayfd 3 -screen 0 "$screen" -nolisten tcp 3>"$tmp/display" 2>"$tmp/log" &
server=$!
for ((i = 0; i < 600; i++)); do   # up to a minute on a loaded machine
    [ -s "$tmp/display" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
done
display=$(head -n 1 "$tmp/display")
if [ -z "$display" ]; then
    echo "Bail out! Xvfb did not start: $(tail -n 5 "$tmp/log")"
    kill "$server" 2>/dev/null
    rm -rf "$tmp"
    exit 1
fi
DISPLAY=:$display "$@"
status=$?
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
rm -rf "$tmp"
exit $status
