#!/bin/sh
# run.sh: every benchmark for mindtorch and for PyTorch (python3-torch) in one run, with the
# same thread count, then a table of both and their ratio (mindtorch / PyTorch: below 1 is
# mindtorch faster or smaller), and the machine's limits. `make bench`; BENCH=name runs one.
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
export MT_BENCH_THREADS=${MT_BENCH_THREADS:-1}
export BUILD
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cc -O2 -o "$out/machine" bench/machine.c -lopenblas || exit 1
"$out/machine" "$MT_BENCH_THREADS" >"$out/limits"

for lua in bench/*.lua; do
    name=$(basename "$lua" .lua)
    [ "$name" = common ] && continue
    [ -n "$BENCH" ] && [ "$BENCH" != "$name" ] && continue
    echo "running $name ..." >&2
    "$BUILD/luamt" "$lua" >"$out/$name.mt" || { echo "mindtorch $name failed" >&2; exit 1; }
    if [ -f "bench/$name.py" ]; then
        (cd bench && "$PY" "$name.py") >"$out/$name.pt" || { echo "pytorch $name failed" >&2; exit 1; }
    fi
done

echo
echo "threads: $MT_BENCH_THREADS    machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
grep '^LIMIT' "$out/limits" | awk '{printf "limit  %-28s %10s %s\n", $2, $3, $4}'
echo
printf '%-30s %12s %12s %8s  %s\n' benchmark mindtorch pytorch ratio unit
for f in "$out"/*.mt; do
    name=$(basename "$f" .mt)
    grep '^RESULT' "$f" | while read -r _ key val unit; do
        pt=$(grep "^RESULT $key " "$out/$name.pt" 2>/dev/null | awk '{print $3}')
        if [ -n "$pt" ]; then
            ratio=$(awk -v a="$val" -v b="$pt" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')
        else
            pt=-; ratio=-
        fi
        printf '%-30s %12s %12s %8s  %s\n' "$key" "$val" "$pt" "$ratio" "$unit"
    done
done
