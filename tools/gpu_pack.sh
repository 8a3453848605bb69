#!/bin/sh
# gpu_pack.sh: what a run on the project's GPU machine needs that it lacks, gathered here under
# build/gpu/ (one folder to carry, about 45 MiB, real files only: links may not travel): luamt,
# libmindtorch and the Lua C modules built with nvcc's kernels, the Debian runtime packages of
# Lua, OpenBLAS, LAPACKE and busted (apt-get download), and the Fashion-MNIST files.
# tools/gpu_session.sh runs there. Needs the build (make -j2 all) and Debian's package archive.
set -eu
BUILD=${BUILD:-build}
G=$BUILD/gpu
[ -n "$(sed -n 's/^\t.incbin.*/x/p' "$BUILD/obj/backends/cuda/cuda_image.S" 2>/dev/null)" ] ||
    { echo "gpu_pack.sh: the CUDA module was built without nvcc: no kernels to run" >&2; exit 1; }
rm -rf "$G"
mkdir -p "$G/lib/lua/5.4/mindtorch" "$G/debs" "$G/data"
cp -L "$BUILD/luamt" "$G/"
cp -L "$BUILD/lib/libmindtorch.so.0" "$G/lib/"
cp -L "$BUILD"/lib/lua/5.4/mindtorch/core.so "$BUILD"/lib/lua/5.4/mindtorch/cuda_backend.so "$G/lib/lua/5.4/mindtorch/"
(cd "$G/debs" && apt-get download liblua5.4-0 libopenblas0-pthread liblapacke libtmglib3 libgfortran5 \
    libquadmath0 libreadline8 lua-busted lua-cliargs lua-dkjson lua-say lua-luassert lua-term lua-penlight \
    lua-mediator lua-system lua-filesystem lua-argparse >/dev/null)
cp /usr/share/datasets/fashion-mnist/*.gz "$G/data/" 2>/dev/null ||
    echo "gpu_pack.sh: no Fashion-MNIST (apt-get install dataset-fashion-mnist): the training runs are skipped" >&2
du -sh "$G"
