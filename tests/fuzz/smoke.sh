#!/bin/sh
# smoke.sh: each fuzz target (make fuzz) for FUZZ_SECONDS (default 60) from its seed corpus in
# tests/fuzz/corpus/<target>/, with a fixed seed and bounded memory; new inputs go to a
# temporary directory, never into the tree. A crash, sanitizer report, timeout, leak or
# memory past the limit fails the run: its log tail is shown and the input is kept in
# FUZZ_ARTIFACTS (default build/fuzz/artifacts). Prints one line per target, then
# "N passed, N failed" like tests/run_all.sh; exit status 0 only when nothing was found.
FUZZ_BUILD=${FUZZ_BUILD:-build/fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_ARTIFACTS=${FUZZ_ARTIFACTS:-$FUZZ_BUILD/artifacts}
mkdir -p "$FUZZ_ARTIFACTS"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
for bin in "$FUZZ_BUILD"/fuzz_*; do
    [ -x "$bin" ] || continue
    name=${bin##*/fuzz_}
    seeds=tests/fuzz/corpus/$name
    dict=
    [ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
    mkdir -p "$work/$name"
    # ASan and UBSan stop at the first report; leaks are findings too
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        TMPDIR="$work" "$bin" -seed=1 -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -timeout=20 \
        -max_len=8192 -print_final_stats=1 -artifact_prefix="$FUZZ_ARTIFACTS/$name-" $dict \
        "$work/$name" "$seeds" >"$work/log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$work/log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        printf 'fuzz/%-22s %s execs, %s: 1 passed, 0 failed\n' "$name" "${execs:-?}" "${cov:-cov: ?}"
        passed=$((passed + 1))
    else
        tail -n 40 "$work/log"
        printf 'fuzz/%-22s finding (exit %d), input in %s: 0 passed, 1 failed\n' "$name" "$rc" "$FUZZ_ARTIFACTS"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
