#!/usr/bin/env bash
# make sanitize: compute-sanitizer's tools on the kernel programs, with each input, several runs
# at a time. Usage: sanitize_programs.sh "TOOLS" "INPUT,INPUT" PROGRAM...
# An input is "default" (the book's example) or the flags to give, e.g. "--scale 12".
# Prints one line per run and a tally; exits 1 if any run reported an error or failed.
set -uo pipefail
tools=$1
IFS=',' read -r -a inputs <<< "$2"
shift 2
: "${SANITIZER:?}" "${BUILD:?}" "${JOBS:=4}"
logs=$BUILD/sanitize
mkdir -p "$logs"
rm -f "$logs"/*.log "$logs"/*.result

one_run() {
    local tool=$1 program=$2 input=$3
    local args=()
    [ "$input" != default ] && read -r -a args <<< "$input"
    local name=${input// /_}
    local log="$logs/$program.$tool.${name//\//_}.log"
    # racecheck reports shared-memory hazards inside cuSPARSE's own SpMV kernels (113's
    # reference); the suite checks its own kernels and leaves the library's to NVIDIA.
    local extra=()
    [ "$tool" = racecheck ] && extra=(--kernel-name-exclude kns=cusparse)
    SUITE_TIMED_RUNS=1 "$SANITIZER" --tool "$tool" --error-exitcode 99 "${extra[@]}" \
        "$BUILD/$program" "${args[@]}" > "$log" 2>&1
    local rc=$?
    local summary
    summary=$(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$log" | tail -n 1)
    local verdict=ok
    [ $rc -ne 0 ] && verdict="FAILED (exit $rc)"
    printf '%-10s %-42s %-12s %s: %s\n' "$tool" "$program" "$input" "$verdict" "$summary" \
        > "$log.result"
    if [ $rc -ne 0 ]; then
        grep -m 4 -E 'Race reported|Invalid|Uninitialized|Barrier|=========  +at |error' "$log" |
            cut -c 1-200 >> "$log.result"
    fi
}
export -f one_run
export logs SANITIZER BUILD

start=$SECONDS
for program in "$@"; do
    for tool in $tools; do
        for input in "${inputs[@]}"; do
            printf '%s\0%s\0%s\0' "$tool" "$program" "$input"
        done
    done
done | xargs -0 -n 3 -P "$JOBS" bash -c 'one_run "$0" "$1" "$2"'

cat "$logs"/*.result
passed=$(grep -l ' ok: ' "$logs"/*.result | wc -l)
total=$(ls "$logs"/*.result | wc -l)
echo "sanitize: $passed passed, $((total - passed)) failed ($((SECONDS - start)) s; logs in $logs)"
[ "$passed" -eq "$total" ]
