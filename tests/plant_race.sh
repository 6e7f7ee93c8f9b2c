#!/usr/bin/env bash
# Plants a data race for make races and tests/test_races.cpp: copies SOURCE to OUT with the one
# line that holds ATOMIC (an atomic's call, as fixed text) holding PLAIN instead (the same update
# as a plain read-modify-write). Line numbers stay as they are, and OUT.line gets the planted
# line's number, which ThreadSanitizer's report must name.
# Usage: plant_race.sh SOURCE ATOMIC PLAIN OUT
set -euo pipefail
source=$1 atomic=$2 plain=$3 out=$4
found=$(grep -cF -- "$atomic" "$source" || true)
if [ "$found" -ne 1 ]; then
    echo "plant_race.sh: $source holds '$atomic' on $found lines, not on one" >&2
    exit 2
fi
mkdir -p "$(dirname "$out")"
ATOMIC=$atomic PLAIN=$plain awk -v line_file="$out.line" '
    !done && (at = index($0, ENVIRON["ATOMIC"])) {
        $0 = substr($0, 1, at - 1) ENVIRON["PLAIN"] substr($0, at + length(ENVIRON["ATOMIC"]))
        done = 1
        print NR > line_file
    }
    { print }' "$source" > "$out"
