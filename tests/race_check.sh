#!/usr/bin/env bash
# make races: runs each race-check binary (built with ThreadSanitizer, its launches' threads on a
# pool of host threads at once), several at a time, with its output kept in BINARY.out.
# Prints one line per binary and a tally; exits 1 unless every one is race-free and passes.
# Usage: race_check.sh BINARY...
set -uo pipefail
: "${JOBS:=2}"

one_run() {
    local binary=$1
    "$binary" > "$binary.out" 2>&1
    local rc=$?
    local verdict
    if grep -q 'WARNING: ThreadSanitizer' "$binary.out"; then
        verdict="DATA RACE: $(grep -h '^SUMMARY: ThreadSanitizer' "$binary.out" |
            sed 's/^SUMMARY: ThreadSanitizer: //' | sort -u | head -n 3 | paste -sd ';' -)"
    elif [ $rc -ne 0 ]; then
        verdict="FAILED (exit $rc): $(grep -h '^self-check tally\|^error' "$binary.out" | tail -n 1)"
    else
        verdict="race-free: $(grep -h '^self-check tally' "$binary.out" | tail -n 1)"
    fi
    printf '%-52s %s\n' "${binary#*/races/}" "$verdict" > "$binary.verdict"
}
export -f one_run

start=$SECONDS
rm -f "${@/%/.verdict}"
printf '%s\0' "$@" | xargs -0 -n 1 -P "$JOBS" bash -c 'one_run "$0"'
for binary in "$@"; do cat "$binary.verdict"; done
clean=$(for binary in "$@"; do cat "$binary.verdict"; done | grep -c ' race-free: ')
echo "races: $clean race-free, $(($# - clean)) not ($((SECONDS - start)) s; each one's output: BINARY.out)"
[ "$clean" -eq $# ]
