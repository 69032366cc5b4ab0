#!/usr/bin/env bash
# Inside Xvfb and a D-Bus session (tests/test_install.sh): start the
# workbench, `RANGEFINDER gui ARGS...`, wait until its window "Rangefinder"
# shows and is the only window showing (a dialog, such as "Could not load
# the configuration", would be a second), then quit it through its app.quit
# action over D-Bus. Exit 0 when all of that happened and the workbench
# exited with status 0; otherwise say what went wrong.
rf=$1
shift
"$rf" gui "$@" &
pid=$!

# viewable_windows: the names of the root's children that show.
viewable_windows() {
    xwininfo -root -children | sed -nE 's/^ +(0x[0-9a-f]+) .*/\1/p' | while read -r id; do
        info=$(xwininfo -id "$id")
        if grep -q 'Map State: IsViewable' <<<"$info"; then
            sed -nE '1,3s/.*xwininfo: Window id: 0x[0-9a-f]+ (.*)$/\1/p' <<<"$info"
        fi
    done
}

shown=""
for ((i = 0; i < 600; i++)); do   # up to a minute: a loaded CI machine, an ASan build
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"
        echo "the workbench exited (status $?) before showing its window"
        exit 1
    fi
    shown=$(viewable_windows)
    [[ $shown == *'"Rangefinder"'* ]] && break
    sleep 0.1
done
if [[ $shown != *'"Rangefinder"'* ]]; then
    echo "no window \"Rangefinder\" showed within a minute"
    kill "$pid"
    exit 1
fi
# A dialog opens with the window or just after it.
sleep 1
shown=$(viewable_windows)
if [ "$shown" != '"Rangefinder"' ]; then
    echo "windows showing besides the workbench's:"
    echo "$shown"
    gapplication action org.rangefinder.Workbench quit
    wait "$pid"
    exit 1
fi
if ! gapplication action org.rangefinder.Workbench quit; then
    echo "the workbench's app.quit action could not be called over D-Bus"
    kill "$pid"
    exit 1
fi
wait "$pid"
status=$?
[ "$status" -eq 0 ] || echo "the workbench exited with status $status after app.quit"
exit "$status"
