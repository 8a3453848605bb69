#!/bin/sh
# api_fuzz.sh: the Lua API fuzzer (api_fuzz.lua) over a few seeds, one test per seed; a seed
# fails on a finding, a crash or a hang. BUILD picks the luamt (build/asan for the sanitized
# one); API_FUZZ_SEEDS and API_FUZZ_CALLS size the run. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
SEEDS=${API_FUZZ_SEEDS:-"1 2 3 4 5 6 7 8"}
CALLS=${API_FUZZ_CALLS:-3000}
export LUAMT_HISTORY=/dev/null
# allocations past 3 GiB fail cleanly (sizes near and past any limit are among the edge cases);
# ASan reserves its shadow as virtual memory, so it gets the limit as an option, not ulimit -v
export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=3072:detect_leaks=1"
if [ -z "${MT_PRELOAD:-}" ] && ! ldd "$BUILD/luamt" | grep -q libasan; then ulimit -v 4000000; fi
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log" "$log.calls"' EXIT
for seed in $SEEDS; do
    if timeout 600 "$BUILD/luamt" tests/fuzz/api_fuzz.lua --seed "$seed" --calls "$CALLS" --log "$log.calls" >"$log" 2>&1; then
        echo "ok - api_fuzz seed $seed: $(tail -n 1 "$log")"
        passed=$((passed + 1))
    else
        echo "not ok - api_fuzz seed $seed (replay: $BUILD/luamt tests/fuzz/api_fuzz.lua --seed $seed --calls $CALLS)"
        tail -n 30 "$log"
        echo "last call: $(tail -n 1 "$log.calls")"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
