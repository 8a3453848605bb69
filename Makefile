# mindtorch: one entry point for building, testing and benchmarking.
#
#   make            build everything into build/ (library, Lua module, luamt)
#   make check      build (and the ACL stand-in the NPU tests use), then run every test suite
#   make asan       the same under AddressSanitizer + UBSan (in build/asan/)
#   make api-fuzz   the Lua API fuzzer over a few seeds (api-fuzz-asan: on the asan build)
#   make fuzz       libFuzzer targets for the file readers and the embedding API (build/fuzz/)
#   make fuzz-smoke each fuzz target for FUZZ_SECONDS (60) from its seed corpus: fails on a finding
#   make bench      benchmarks against PyTorch, with the machine's limits
#   make demo       the demo (a tour of tensors)
#   make golden     regenerate the contract goldens with PyTorch (python3-torch)
#   make parity     count PyTorch 1.13's public names mindtorch has, write doc/parity.md (python3-torch)
#   make format-check  every C file as .clang-format writes it (make format: rewrite them)
#   make lua-env    print the LUA_PATH/LUA_CPATH exports for a plain lua5.4
#   make install    PREFIX=/usr/local DESTDIR=

BUILD   ?= build
CC      ?= cc
LUA     ?= lua5.4
PYTHON  ?= /usr/bin/python3
PREFIX  ?= /usr/local
LUA_VERSION := 5.4
# make install's directories (LuaRocks passes BINDIR, LIBDIR and LUADIR for its tree)
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
LUADIR     ?= $(PREFIX)/share/lua/$(LUA_VERSION)
CMODDIR    ?= $(LIBDIR)/lua/$(LUA_VERSION)
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

OPT      ?= -O2
SANITIZE ?=
# -ffp-contract=off: no implicit fused multiply-adds, so results do not depend on the target
# (the random streams of doc/rng.md write their fmas explicitly)
# warnings are errors in CI and `make dev` (WERROR=-Werror), not in users' and LuaRocks' builds,
# where a newer compiler's new warning must not stop an install
WERROR ?=
CFLAGS_BASE := -std=gnu11 $(OPT) -g -fPIC -fvisibility=hidden -Wall -Wextra $(WERROR) \
               -Wno-unused-parameter -Wno-missing-field-initializers -fwrapv -ffp-contract=off $(SANITIZE)
LUA_INC  := $(shell pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)
BLAS_INC := $(shell pkg-config --cflags openblas 2>/dev/null)
# Layers point one way: every file sees the core's headers (src/) and the generated ones; only
# backends/ see the backends' headers, so src/lua and src/autograd cannot include them (a file's
# own directory needs no -I: "" includes look there first).
INCLUDES := -Isrc -I$(BUILD)/gen $(LUA_INC) $(BLAS_INC)
BACKEND_INCLUDES := -Ibackends/common -Ibackends/cpu -Ibackends/meta
# override: flags given on the command line (LuaRocks passes CFLAGS) come first, ours are kept
override CFLAGS += $(CFLAGS_BASE) $(INCLUDES)
LDFLAGS  += $(SANITIZE) -pthread

GEN      := $(BUILD)/gen
OBJ      := $(BUILD)/obj
BLIB     := $(BUILD)/lib
LMODDIR  := $(BLIB)/lua/$(LUA_VERSION)/mindtorch
LSHARE   := $(BUILD)/share/lua/$(LUA_VERSION)

OP_DECLS := $(sort $(wildcard src/ops/*.lua))
OP_DECLS := $(filter-out src/ops/opgen.lua src/ops/schema_text.lua src/ops/gen_%.lua,$(OP_DECLS))

CORE_SRCS := $(filter-out src/luamt.c,$(wildcard src/*.c)) $(wildcard src/autograd/*.c) $(wildcard src/lua/*.c) \
             $(wildcard backends/*.c) $(wildcard backends/common/*.c) $(wildcard backends/meta/*.c) \
             $(wildcard backends/cpu/*.c)
# generated from the op declarations (src/ops/opgen.lua): schemas, element-wise descriptions, derivatives
GEN_SRCS  := mt_ops_gen.c mt_ew_gen.c mt_red_gen.c mt_derivatives_gen.c
CORE_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(CORE_SRCS)) $(patsubst %.c,$(OBJ)/gen/%.o,$(GEN_SRCS))

# The library's names, Debian's way: the real file libmindtorch.so.SOVERSION.MINOR.PATCH (from
# MT_VERSION in src/mindtorch.h), the runtime link libmindtorch.so.SOVERSION (its SONAME: what
# programs record and the loader looks for) and the development link libmindtorch.so (what
# -lmindtorch finds). SOVERSION changes when the ABI breaks.
MT_VERSION := $(shell sed -n 's/^\#define MT_VERSION "\(.*\)"/\1/p' src/mindtorch.h)
SOVERSION  := 0
SONAME     := libmindtorch.so.$(SOVERSION)
LIBMT_FILE := $(SONAME).$(word 2,$(subst ., ,$(MT_VERSION))).$(word 3,$(subst ., ,$(MT_VERSION)))
LIBMT_REAL := $(BLIB)/$(LIBMT_FILE)
LIBMT_SO   := $(BLIB)/$(SONAME)
LIBMT    := $(BLIB)/libmindtorch.so
LUAMOD   := $(LMODDIR)/core.so
LUAMT    := $(BUILD)/luamt
LUALINK  := $(LSHARE)/mindtorch
NPUMOD   := $(LMODDIR)/npu_backend.so
# torch.distributed's MPI transport: built when Open MPI's mpicc is installed (libopenmpi-dev)
MPICC    ?= $(shell command -v mpicc 2>/dev/null)
MPIMOD   := $(if $(MPICC),$(LMODDIR)/distributed_mpi.so)
# the shared accelerator layer (backends/accel) is built into each accelerator module, never the core
NPU_SRCS := $(wildcard backends/npu/*.c) $(wildcard backends/accel/*.c)
NPU_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(NPU_SRCS))
# the CUDA backend: its own shared object like the NPU's, with the shared accelerator layer; its
# kernels (backends/cuda/kernels/*.cu) are device code built by nvcc into one fat binary that the
# module embeds. Without nvcc the module is still built, with no device code (a launch says so).
CUDAMOD   := $(LMODDIR)/cuda_backend.so
NVCC      ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
CUDA_ARCH := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]
CUDA_SRCS := $(wildcard backends/cuda/*.c)
CUDA_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(CUDA_SRCS) $(wildcard backends/accel/*.c)) $(OBJ)/backends/cuda/cuda_image.o
CUDA_KERNELS := $(wildcard backends/cuda/kernels/*.cu)
# the CUDA driver stand-in (tests/cuda_standin): libcuda's calls over host memory, running the
# same kernel sources compiled for the host; cuBLAS's and cuSOLVER's calls computed on the host
CUDA_STANDIN := $(BUILD)/cuda-standin/libcuda.so.1 $(BUILD)/cuda-standin/libcublas.so \
                $(BUILD)/cuda-standin/libcusolver.so
# the ACL stand-in (tests/ascend_standin): CANN's library names and layout, host memory behind
STANDIN      := $(BUILD)/ascend-standin
STANDIN_LIBS := $(STANDIN)/lib64/libascendcl.so $(STANDIN)/lib64/libnnopbase.so $(STANDIN)/lib64/libopapi.so \
                $(STANDIN)/lua/ascend_standin.so

C_TEST_SRCS := $(wildcard tests/c/test_*.c)
C_TESTS     := $(patsubst tests/c/%.c,$(BUILD)/tests/%,$(C_TEST_SRCS))
C_PLUGINS   := $(patsubst tests/c/%.c,$(BUILD)/tests/lib%.so,$(wildcard tests/c/plugin_*.c))

CLANG_FORMAT ?= clang-format-14
.PHONY: format format-check dev
.PHONY: all standin check test asan api-fuzz api-fuzz-asan fuzz fuzz-targets fuzz-smoke bench demo tour golden lua-env install clean examples docs
all: $(LIBMT) $(LUAMOD) $(LUAMT) $(LUALINK) $(NPUMOD) $(CUDAMOD) $(MPIMOD)
# the developers' build: warnings are errors
dev:
	$(MAKE) WERROR=-Werror all

# ---- generated operator tables -------------------------------------------------------------
OPGEN := src/ops/opgen.lua src/ops/schema_text.lua src/ops/gen_elementwise.lua src/ops/gen_reductions.lua \
         src/ops/gen_derivatives.lua
$(GEN)/mt_ops_gen.h $(GEN)/mt_ops_gen.c $(GEN)/reference.md $(GEN)/mt_ew_gen.h $(GEN)/mt_ew_gen.c \
$(GEN)/mt_red_gen.h $(GEN)/mt_red_gen.c $(GEN)/mt_derivatives_gen.c &: $(OP_DECLS) $(OPGEN)
	@mkdir -p $(GEN)
	$(LUA) src/ops/opgen.lua $(GEN) $(OP_DECLS)

$(OBJ)/backends/%.o: override CFLAGS += $(BACKEND_INCLUDES)

# every object may include the generated header
$(OBJ)/%.o: %.c $(GEN)/mt_ops_gen.h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# the hot loops: fully optimised, and a second build for AVX2 + FMA chosen at run time
HOT_LOOPS := backends/cpu/cpu_ew_families.c backends/cpu/cpu_ew_families_avx2.c \
             backends/cpu/cpu_reduce_loops.c backends/cpu/cpu_reduce_loops_avx2.c \
             backends/cpu/cpu_conv.c backends/cpu/cpu_conv_direct_avx2.c \
             backends/cpu/cpu_conv_direct_avx512.c backends/cpu/cpu_gemm_nt_avx512.c \
             backends/cpu/cpu_gemm_nn_avx512.c backends/cpu/cpu_gemm_avx512.c backends/cpu/cpu_conv_cvec_avx512.c \
             backends/cpu/cpu_transpose_avx512.c backends/cpu/cpu_conv_weight_padded.c \
             backends/cpu/cpu_conv_cvec_weight_avx512.c backends/cpu/cpu_exp_avx512.c \
             backends/cpu/cpu_ew_stream_avx512.c backends/cpu/cpu_ew_tile_avx512.c \
             backends/cpu/cpu_cast_stream_avx512.c backends/cpu/cpu_softmax_avx512.c \
             backends/cpu/cpu_pool_avx512.c backends/cpu/cpu_pool.c backends/cpu/cpu_copy.c backends/cpu/cpu_batch_norm.c \
             backends/cpu/cpu_reduce_rows_avx512.c
$(patsubst %.c,$(OBJ)/%.o,$(HOT_LOOPS)): override CFLAGS += -O3 -funroll-loops -fno-math-errno
$(OBJ)/backends/cpu/cpu_ew_families_avx2.o $(OBJ)/backends/cpu/cpu_reduce_loops_avx2.o \
$(OBJ)/backends/cpu/cpu_conv_direct_avx2.o: override CFLAGS += -mavx2 -mfma
# every fused multiply-add of randn's transform is one doc/rng.md writes: none contracted
$(OBJ)/backends/cpu/cpu_random_avx2.o: override CFLAGS += -mavx2 -mfma -ffp-contract=off
$(OBJ)/backends/cpu/cpu_conv_direct_avx512.o $(OBJ)/backends/cpu/cpu_gemm_nt_avx512.o \
$(OBJ)/backends/cpu/cpu_gemm_nn_avx512.o $(OBJ)/backends/cpu/cpu_gemm_avx512.o \
$(OBJ)/backends/cpu/cpu_conv_cvec_avx512.o $(OBJ)/backends/cpu/cpu_transpose_avx512.o \
$(OBJ)/backends/cpu/cpu_conv_cvec_weight_avx512.o $(OBJ)/backends/cpu/cpu_exp_avx512.o \
$(OBJ)/backends/cpu/cpu_ew_stream_avx512.o $(OBJ)/backends/cpu/cpu_ew_tile_avx512.o \
$(OBJ)/backends/cpu/cpu_cast_stream_avx512.o $(OBJ)/backends/cpu/cpu_pool_avx512.o \
$(OBJ)/backends/cpu/cpu_softmax_avx512.o $(OBJ)/backends/cpu/cpu_reduce_rows_avx512.o: \
    override CFLAGS += -mavx512f -mavx2 -mfma

# the element-wise and reduction tables belong to the backends' shared layer (backends/common)
$(OBJ)/gen/mt_ew_gen.o $(OBJ)/gen/mt_red_gen.o: override CFLAGS += $(BACKEND_INCLUDES)
$(OBJ)/gen/%.o: $(GEN)/%.c $(GEN)/mt_ops_gen.h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(CORE_OBJS:.o=.d)

# ---- the library, the Lua module, luamt -----------------------------------------------------
# libmindtorch.so leaves Lua's symbols unresolved: they come from whichever Lua the process
# runs (the lua5.4 executable exports them; luamt and embedding hosts link liblua5.4).
$(LIBMT_REAL): $(CORE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDFLAGS) -Wl,-soname,$(SONAME) -llapacke -lopenblas -lz -lmvec -lm -lpthread
$(LIBMT_SO): $(LIBMT_REAL)
	ln -sfn $(LIBMT_FILE) $@
$(LIBMT): $(LIBMT_SO)
	ln -sfn $(SONAME) $@

$(LUAMOD): $(OBJ)/src/luamod/core.o $(LIBMT)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $< $(LDFLAGS) -L$(BLIB) -lmindtorch '-Wl,-rpath,$$ORIGIN/../../..:$$ORIGIN/..'

$(LUAMT): $(OBJ)/src/luamt.o $(LIBMT)
	$(CC) -o $@ $< $(LDFLAGS) -L$(BLIB) -lmindtorch -llua5.4 -lreadline -lm \
	    '-Wl,-rpath,$$ORIGIN/lib:$$ORIGIN/../lib:$$ORIGIN/../lib/lua/$(LUA_VERSION)' -Wl,-E

# the NPU backend: its own shared object, loaded at run time (the core never links it)
$(OBJ)/backends/npu/%.o: override CFLAGS += -Ibackends/npu -Ibackends/accel
$(NPUMOD): $(NPU_OBJS) $(LIBMT)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(NPU_OBJS) $(LDFLAGS) -L$(BLIB) -lmindtorch -ldl -lm '-Wl,-rpath,$$ORIGIN/../../..:$$ORIGIN/..'
-include $(NPU_OBJS:.o=.d)

$(OBJ)/backends/cuda/%.o: override CFLAGS += -Ibackends/cuda -Ibackends/accel -Ibackends/common
$(CUDAMOD): $(CUDA_OBJS) $(LIBMT)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(CUDA_OBJS) $(LDFLAGS) -L$(BLIB) -lmindtorch -ldl -lm '-Wl,-rpath,$$ORIGIN/../../..:$$ORIGIN/..'
-include $(patsubst %.c,$(OBJ)/%.d,$(CUDA_SRCS))
# the device code: sm_80 and sm_90 machine code and PTX that later GPUs compile at load
$(OBJ)/backends/cuda/ck_kernels.fatbin: $(CUDA_KERNELS) $(wildcard backends/cuda/kernels/*.h backends/cuda/kernels/*.cuh) src/mt_half.h
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O3 -Isrc -Ibackends/cuda/kernels -fatbin $(CUDA_ARCH) -o $@ $(CUDA_KERNELS)
# the image as read-only data of the module (cuda_launch.h), or an empty one without nvcc
$(OBJ)/backends/cuda/cuda_image.S: $(if $(NVCC),$(OBJ)/backends/cuda/ck_kernels.fatbin) Makefile
	@mkdir -p $(dir $@)
	$(if $(NVCC),,@echo "nvcc not found: the CUDA module is built without its kernels (make NVCC=/path/to/nvcc)")
	printf '\t.section .rodata\n\t.balign 64\n\t.globl cuda_image\n\t.hidden cuda_image\ncuda_image:\n' > $@
	$(if $(NVCC),printf '\t.incbin "%s"\n' $(abspath $(OBJ)/backends/cuda/ck_kernels.fatbin) >> $@)
	printf '\t.globl cuda_image_end\n\t.hidden cuda_image_end\ncuda_image_end:\n\t.byte 0\n' >> $@
	printf '\t.globl cuda_image_arch\n\t.hidden cuda_image_arch\ncuda_image_arch:\n\t.asciz "%s"\n' \
	    '$(if $(NVCC),sm_80 sm_90 compute_90)' >> $@
	printf '\t.section .note.GNU-stack,"",@progbits\n' >> $@
$(OBJ)/backends/cuda/cuda_image.o: $(OBJ)/backends/cuda/cuda_image.S
	$(CC) -c -o $@ $<

# the MPI transport: its own shared object, linked with libmpi through mpicc's flags
$(OBJ)/distributed/%.o: override CFLAGS += $(shell $(MPICC) --showme:compile 2>/dev/null)
$(LMODDIR)/distributed_mpi.so: $(OBJ)/distributed/mpi_module.o $(LIBMT)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $< $(LDFLAGS) -L$(BLIB) -lmindtorch $(shell $(MPICC) --showme:link) \
	    '-Wl,-rpath,$$ORIGIN/../../..:$$ORIGIN/..'
-include $(OBJ)/distributed/mpi_module.d

# built for the tests only (make check), never part of `make all` or an install
standin: $(STANDIN_LIBS) $(STANDIN)/opp $(CUDA_STANDIN)
STANDIN_CFLAGS = $(filter-out -Isrc%,$(CFLAGS)) -Ibackends/npu -Itests/ascend_standin
$(STANDIN)/lib64/libascendcl.so: tests/ascend_standin/standin_runtime.c tests/ascend_standin/standin.h backends/npu/acl_abi.h
	@mkdir -p $(dir $@)
	$(CC) $(STANDIN_CFLAGS) -shared -o $@ $< $(LDFLAGS) -Wl,-soname,libascendcl.so
$(STANDIN)/lib64/libnnopbase.so: tests/ascend_standin/standin_nnopbase.c tests/ascend_standin/standin_nn.h backends/npu/acl_abi.h $(STANDIN)/lib64/libascendcl.so
	$(CC) $(STANDIN_CFLAGS) -shared -o $@ $< $(LDFLAGS) -Wl,-soname,libnnopbase.so
STANDIN_OPAPI := tests/ascend_standin/standin_opapi.c tests/ascend_standin/standin_exec.c
$(STANDIN)/lib64/libopapi.so: $(STANDIN_OPAPI) tests/ascend_standin/standin_exec.h tests/ascend_standin/standin_nn.h \
                              backends/npu/acl_abi.h src/mt_half.h $(STANDIN)/lib64/libnnopbase.so
	$(CC) $(STANDIN_CFLAGS) -shared -o $@ $(STANDIN_OPAPI) $(LDFLAGS) -Wl,-soname,libopapi.so \
	    -L$(STANDIN)/lib64 -lnnopbase -lascendcl -lm '-Wl,-rpath,$$ORIGIN'
# its test controls for the NPU specs (fault injection ...): a Lua module beside it, not in npu_backend.so
$(STANDIN)/lua/ascend_standin.so: tests/ascend_standin/standin_lua.c tests/ascend_standin/standin.h $(STANDIN)/lib64/libopapi.so
	@mkdir -p $(dir $@)
	$(CC) $(STANDIN_CFLAGS) -shared -o $@ $< $(LDFLAGS) -L$(STANDIN)/lib64 -lopapi -lascendcl '-Wl,-rpath,$$ORIGIN/../lib64'
STANDIN_CUDA_CFLAGS = $(filter-out -Isrc% -std=%,$(CFLAGS)) -Isrc -Ibackends/cuda -Ibackends/cuda/kernels -Itests/cuda_standin
$(BUILD)/cuda-standin/standin_kernels.o: $(CUDA_KERNELS) tests/cuda_standin/standin_kernel.h \
                                         $(wildcard backends/cuda/kernels/*.h backends/cuda/kernels/*.cuh) src/mt_half.h
	@mkdir -p $(dir $@)
	g++ $(filter-out -Wmissing-prototypes -Wstrict-prototypes,$(STANDIN_CUDA_CFLAGS)) -fno-exceptions -fno-rtti \
	    -x c++ -include tests/cuda_standin/standin_kernel.h -c -o $@ $(CUDA_KERNELS)
CUDA_STANDIN_DRIVER := tests/cuda_standin/standin_cuda.c tests/cuda_standin/standin_queue.c
$(BUILD)/cuda-standin/libcuda.so.1: $(CUDA_STANDIN_DRIVER) tests/cuda_standin/standin_queue.h tests/cuda_standin/standin_kernel.h \
                 backends/cuda/cuda_abi.h $(BUILD)/cuda-standin/standin_kernels.o
	$(CC) $(STANDIN_CUDA_CFLAGS) -std=gnu11 -shared -o $@ $(CUDA_STANDIN_DRIVER) $(BUILD)/cuda-standin/standin_kernels.o $(LDFLAGS) \
	    -Wl,-soname,libcuda.so.1 -lm -lpthread
$(BUILD)/cuda-standin/libcublas.so: tests/cuda_standin/standin_cublas.c src/mt_half.h
	@mkdir -p $(dir $@)
	$(CC) $(STANDIN_CUDA_CFLAGS) -std=gnu11 -shared -o $@ $< $(LDFLAGS) -Wl,-soname,libcublas.so.13
$(BUILD)/cuda-standin/libcusolver.so: tests/cuda_standin/standin_cusolver.c
	@mkdir -p $(dir $@)
	$(CC) $(STANDIN_CUDA_CFLAGS) -std=gnu11 -shared -o $@ $< $(LDFLAGS) -Wl,-soname,libcusolver.so.12 -llapacke
$(STANDIN)/opp:
	@mkdir -p $@
	printf 'stand-in for tests: not Ascend CANN (tests/ascend_standin)\n' > $(STANDIN)/version.cfg

$(LUALINK):
	@mkdir -p $(LSHARE)
	ln -sfn $(abspath lua/mindtorch) $@

# Relative rpaths (core.so -> ../../.. or .., luamt -> ../lib) make the installed tree
# relocatable: it works from wherever it is moved. The first layout is make install's
# (PREFIX/lib/libmindtorch.so.0, PREFIX/lib/lua/5.4/mindtorch/core.so); the second a LuaRocks
# tree's, where C libraries all go to TREE/lib/lua/5.4.

# ---- install: the runtime (what LuaRocks installs) and the files for C hosts ------------------
PUBLIC_HEADERS := src/mindtorch.h src/mt_common.h src/mt_dtype.h
LUA_FILES := $(shell find lua/mindtorch -name '*.lua')
.PHONY: install-runtime install-devel
install: install-runtime install-devel

# The runtime has the real file and the SONAME link (relative, so the tree can move), the
# development files add the libmindtorch.so link. SOLINKS=no (the rockspec's: LuaRocks copies
# links as files, and in any order) installs the library as one file named after its SONAME.
SOLINKS ?= yes
install-runtime: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(CMODDIR)/mindtorch
	install -m 755 $(LUAMT) $(DESTDIR)$(BINDIR)/luamt
ifeq ($(SOLINKS),no)
	install -m 755 $(LIBMT_REAL) $(DESTDIR)$(LIBDIR)/$(SONAME)
else
	install -m 755 $(LIBMT_REAL) $(DESTDIR)$(LIBDIR)/$(LIBMT_FILE)
	ln -sfn $(LIBMT_FILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
endif
	install -m 755 $(LUAMOD) $(DESTDIR)$(CMODDIR)/mindtorch/core.so
	install -m 755 $(NPUMOD) $(DESTDIR)$(CMODDIR)/mindtorch/npu_backend.so
	install -m 755 $(CUDAMOD) $(DESTDIR)$(CMODDIR)/mindtorch/cuda_backend.so
	$(if $(MPIMOD),install -m 755 $(MPIMOD) $(DESTDIR)$(CMODDIR)/mindtorch/distributed_mpi.so)
	for f in $(LUA_FILES); do \
	    install -D -m 644 $$f $(DESTDIR)$(LUADIR)/$${f#lua/}; done

# the header goes to include/mindtorch/; mindtorch.pc finds its prefix from its own place
install-devel: all
	install -d $(DESTDIR)$(INCLUDEDIR)/mindtorch $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(LIBDIR)
	ln -sfn $(SONAME) $(DESTDIR)$(LIBDIR)/libmindtorch.so
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/mindtorch/
	sed -e 's|@VERSION@|$(MT_VERSION)|' mindtorch.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/mindtorch.pc

# ---- examples: C hosts that embed mindtorch ---------------------------------------------------
EXAMPLES := $(BUILD)/examples/embed_host
examples: $(EXAMPLES)

$(BUILD)/examples/%: examples/%.c $(LIBMT) src/mindtorch.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -L$(BLIB) -lmindtorch -llua5.4 -lm '-Wl,-rpath,$$ORIGIN/../lib'

# ---- tests ----------------------------------------------------------------------------------
$(BUILD)/tests/%: tests/c/%.c $(LIBMT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -L$(BLIB) -lmindtorch -llua5.4 -lcmocka -lm -ldl '-Wl,-rpath,$(abspath $(BLIB))'

# shared objects that tests load with dlopen, as a device module would be
$(BUILD)/tests/lib%.so: tests/c/%.c $(LIBMT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -o $@ $< $(LDFLAGS) -L$(BLIB) -lmindtorch '-Wl,-rpath,$(abspath $(BLIB))'

check test: all standin $(C_TESTS) $(C_PLUGINS) $(EXAMPLES)
	@BUILD=$(BUILD) sh tests/run_all.sh

# A plain lua5.4 (not instrumented) loading the instrumented module needs the runtimes first.
asan:
	MT_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	$(MAKE) BUILD=build/asan OPT=-O1 \
	    SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" check

# The Lua API fuzzer (tests/fuzz/api_fuzz.lua): calls driven by the op schemas, a few seeds
api-fuzz: all
	@BUILD=$(BUILD) sh tests/fuzz/api_fuzz.sh

api-fuzz-asan:
	$(MAKE) BUILD=build/asan OPT=-O1 \
	    SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" api-fuzz

# ---- fuzzing: clang's libFuzzer over a core of its own, coverage-instrumented and sanitized -------
# (doc/security.md). The targets link the sanitizer runtimes themselves: no preload needed.
# -Wno-unknown-attributes: clang does not know GCC's simd attribute (libmvec declarations).
FUZZ_CC       ?= clang-14
FUZZ_SANITIZE := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
                 -fno-sanitize-recover=undefined -Wno-unknown-attributes
FUZZ_BINS     := $(patsubst tests/fuzz/%.c,$(BUILD)/%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz:
	@$(MAKE) -s --no-print-directory BUILD=build/fuzz CC=$(FUZZ_CC) OPT=-O1 SANITIZE="$(FUZZ_SANITIZE)" fuzz-targets

fuzz-targets: $(LIBMT) $(LUALINK) $(FUZZ_BINS)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_lua.h $(LIBMT)
	@echo "  FUZZ    $@"
	@$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(LDFLAGS) -L$(BLIB) -lmindtorch -llua5.4 -lm \
	    '-Wl,-rpath,$(abspath $(BLIB))'

fuzz-smoke: fuzz
	@FUZZ_BUILD=build/fuzz sh tests/fuzz/smoke.sh

# ---- benchmarks, demo, goldens ---------------------------------------------------------------
bench: all
	@BUILD=$(BUILD) sh bench/run.sh | tee $(BUILD)/bench.txt
	@[ -n "$$BENCH" ] || $(LUAMT) bench/report.lua $(BUILD)/bench.txt doc/performance.md doc/performance.svg

# the demo: one epoch of an MLP on Fashion-MNIST (apt-get install dataset-fashion-mnist)
demo: all
	$(LUAMT) examples/fashion_mnist.lua --epochs 1

tour: all
	$(LUAMT) examples/tour.lua

golden:
	$(PYTHON) tests/contract/gen_goldens.py

.PHONY: parity
parity: all
	$(PYTHON) tools/parity.py --luamt $(LUAMT) --out doc/parity.md

lua-env: all
	@echo 'export LUA_PATH="$(abspath $(LSHARE))/?.lua;$(abspath $(LSHARE))/?/init.lua;;"'
	@echo 'export LUA_CPATH="$(abspath $(BLIB))/lua/$(LUA_VERSION)/?.so;;"'

docs: $(GEN)/reference.md
	cp $(GEN)/reference.md doc/reference.md

# every tracked C file as .clang-format lays it out; one file per line of the count
format-check:
	@p=0; f=0; for x in $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh'); do \
	    if $(CLANG_FORMAT) --dry-run -Werror "$$x" >/dev/null 2>&1; then p=$$((p + 1)); \
	    else echo "not formatted: $$x ($(CLANG_FORMAT) -i $$x)"; f=$$((f + 1)); fi; done; \
	echo "$$p passed, $$f failed"; [ $$f -eq 0 ]
format:
	$(CLANG_FORMAT) -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD)
