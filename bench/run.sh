#!/bin/sh
# run.sh: every benchmark for mindtorch and for PyTorch (python3-torch) in one run, with the
# same thread count, then a table of both and their ratio (mindtorch / PyTorch: below 1 is
# mindtorch faster or smaller), and the machine's limits. `make bench`; BENCH=name runs one.
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
export MT_BENCH_THREADS=${MT_BENCH_THREADS:-1}
# every library of both processes gets the same thread count (PyTorch's set_num_threads does
# not reach the OpenBLAS it calls for matmul)
export OMP_NUM_THREADS=$MT_BENCH_THREADS OPENBLAS_NUM_THREADS=$MT_BENCH_THREADS
export BUILD
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cc -O3 -march=native -Ibackends/cpu -o "$out/machine" bench/machine.c -fno-tree-loop-distribute-patterns -lopenblas -pthread || exit 1
# The limits are measured at the start and again beside each round of bench/ops (whose
# element-wise figures are judged against the copy bandwidth), and each keeps its highest
# value: on these shared machines one measurement read 41 GB/s for a copy that ran at 104 in
# another run, which would have judged the element-wise rates against a fraction of the machine.
limits() { "$out/machine" "$MT_BENCH_THREADS" >>"$out/limits.all"; }
limits

# The machines are shared and noisy: each benchmark runs BENCH_ROUNDS times, mindtorch and
# PyTorch alternating, and each figure keeps its best round (the highest rate, the lowest
# time or size).
ROUNDS=${BENCH_ROUNDS:-3}
best() { # best RESULT line per key over the rounds' files
    cat "$@" | awk '$1 == "RESULT" {
        k = $2; v = $3 + 0; u = $4
        lower = (u == "us" || u == "ms" || u == "s" || u == "MiB" || u == "KiB")
        if (!(k in b) || (lower ? v < b[k] : v > b[k])) { b[k] = v; unit[k] = u; if (!(k in ord)) { ord[k] = ++n; keys[n] = k } }
    } END { for (i = 1; i <= n; i++) print "RESULT", keys[i], b[keys[i]], unit[keys[i]] }'
}
for lua in bench/*.lua; do
    name=$(basename "$lua" .lua)
    [ "$name" = common ] || [ "$name" = report ] && continue
    [ -n "$BENCH" ] && [ "$BENCH" != "$name" ] && continue
    echo "running $name ..." >&2
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        [ "$name" = ops ] && limits
        "$BUILD/luamt" "$lua" >"$out/$name.mt.$r" || { echo "mindtorch $name failed" >&2; exit 1; }
        if [ -f "bench/$name.py" ]; then
            (cd bench && "$PY" "$name.py") >"$out/$name.pt.$r" || { echo "pytorch $name failed" >&2; exit 1; }
        fi
        r=$((r + 1))
    done
    best "$out/$name.mt".* >"$out/$name.mt"
    [ -f "bench/$name.py" ] && best "$out/$name.pt".* >"$out/$name.pt"
done

echo
echo "threads: $MT_BENCH_THREADS    machine: $(nproc --all) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
awk '$1 == "LIMIT" { if (!($2 in b) || $3 + 0 > b[$2]) { b[$2] = $3 + 0; u[$2] = $4; if (!($2 in o)) { o[$2] = ++n; k[n] = $2 } } }
    END { for (i = 1; i <= n; i++) printf "limit  %-28s %10s %s\n", k[i], b[k[i]], u[k[i]] }' "$out/limits.all"
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
