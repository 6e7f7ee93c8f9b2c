#!/usr/bin/env bash
# make exercises and make exercise-solutions: runs each exercise's binary DIR/NAME, with its output
# kept in DIR/NAME.out, and, where RACE_DIR is given, its race-check build RACE_DIR/NAME too
# (ThreadSanitizer, the launches' threads on host threads at once). Prints one line for each,
# "NAME: solved" or "NAME: unsolved (...)", then a tally that starts with LABEL. An exercise is
# solved when every claim is confirmed and, where it was checked, no data race was reported.
# The exit code is 1 if MODE is "strict" and any one is not solved.
# Usage: report_exercises.sh LABEL MODE DIR RACE_DIR NAME...
set -uo pipefail
label=$1 mode=$2 dir=$3 race_dir=$4
shift 4

mismatches_in() {
    sed -n 's/^self-check tally: [0-9]* confirmed, \([0-9]*\) MISMATCH.*/\1/p' "$1"
}

solved=0 unsolved=0
for name in "$@"; do
    "$dir/$name" > "$dir/$name.out" 2>&1
    rc=$?
    mismatches=$(mismatches_in "$dir/$name.out")
    if [ $rc -eq 1 ] && [ -n "$mismatches" ]; then
        verdict="unsolved ($mismatches MISMATCH)"
    elif [ $rc -ne 0 ] || [ "${mismatches:-0}" -ne 0 ]; then
        verdict="unsolved (it stopped with exit code $rc)"
    elif [ -n "$race_dir" ]; then
        "$race_dir/$name" > "$race_dir/$name.out" 2>&1
        race_rc=$?
        if grep -q 'WARNING: ThreadSanitizer' "$race_dir/$name.out"; then
            verdict="unsolved (a data race: its answers are right, but ThreadSanitizer saw two threads touch the same memory, at least one of them writing, with nothing (an atomic, a barrier) ordering them, and on a GPU such an update can be lost. The report in $race_dir/$name.out names the file and line of both accesses: look there for a plain read-modify-write that should be an atomic, or a missing barrier.)"
        elif [ $race_rc -ne 0 ]; then
            verdict="unsolved (with its threads run at once, it stopped with exit code $race_rc: see $race_dir/$name.out)"
        else
            verdict=solved
        fi
    else
        verdict=solved
    fi
    echo "$name: $verdict"
    if [ "$verdict" = solved ]; then solved=$((solved + 1)); else unsolved=$((unsolved + 1)); fi
done
echo
races_note="the race check's output: $race_dir/NAME.out"
[ -z "$race_dir" ] && races_note="not checked for races: ThreadSanitizer is not available here"
echo "$label: $solved solved, $unsolved unsolved (each one's output: $dir/NAME.out; $races_note)"
[ "$mode" != strict ] || [ "$unsolved" -eq 0 ]
