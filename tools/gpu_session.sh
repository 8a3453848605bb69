#!/bin/sh
# gpu_session.sh: on the project's GPU machine (the device tool), from the repository root, with
# build/gpu carried (tools/gpu_pack.sh made it): unpack the runtime packages, then run the CUDA
# suite, one epoch of the Fashion-MNIST MLP and CNN on cuda (compare their test accuracy with the
# same runs on the CPU, --device cpu, made anywhere: the seed fixes both), and bench/cuda.lua
# against PyTorch on the same GPU. About 5 minutes; the device time of a session is short. Everything it prints is also written under $OUT (or /tmp/gpu-out).
# MT_GPU_SESSION_QUICK=1 skips the training runs and shrinks the benchmarks (a rehearsal on the
# driver stand-in: MINDTORCH_CUDA_DRIVER, MINDTORCH_CUBLAS and MINDTORCH_CUSOLVER set as
# tests/run_all.sh sets them).
set -u
G=build/gpu
OUT=${OUT:-/tmp/gpu-out}
RT=/tmp/mt-runtime
mkdir -p "$OUT" "$RT"
for f in "$G"/debs/*.deb; do dpkg -x "$f" "$RT"; done
LIBDIR="$RT/usr/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$LIBDIR:$LIBDIR/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LUA_PATH="./lua/?.lua;./lua/?/init.lua;$RT/usr/share/lua/5.4/?.lua;$RT/usr/share/lua/5.4/?/init.lua;$RT/usr/share/lua/5.1/?.lua;$RT/usr/share/lua/5.1/?/init.lua"
export LUA_CPATH="$G/lib/lua/5.4/?.so;$LIBDIR/lua/5.4/?.so"
export LUAMT_HISTORY=/dev/null
LUAMT=$G/luamt
{
    echo "== GPU"; nvidia-smi -L 2>&1; nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1
    echo "== the CUDA suite"
    "$LUAMT" "$RT/usr/bin/busted" -o TAP --pattern=_spec tests/cuda 2>&1 | tail -n 60
    if [ -f "$G/data/train-images-idx3-ubyte.gz" ] && [ "${MT_GPU_SESSION_QUICK:-}" != 1 ]; then
        for model in mlp cnn; do
            echo "== Fashion-MNIST $model on cuda, 1 epoch"
            "$LUAMT" examples/fashion_mnist.lua --model "$model" --device cuda --data "$G/data" \
                --out "/tmp/demo-$model" 2>&1 | tail -n 3
        done
    fi
    echo "== bench/cuda: mindtorch, then PyTorch"
    [ "${MT_GPU_SESSION_QUICK:-}" = 1 ] && export MT_BENCH_CUDA_SMALL=1
    MT_BENCH_THREADS=2 "$LUAMT" bench/cuda.lua 2>&1
    (cd bench && python3 cuda.py 2>&1)
} 2>&1 | tee "$OUT/session.txt"
