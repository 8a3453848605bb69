-- Scatters and index ops that reduce (PyTorch 1.13's scatter_reduce, index_reduce, and scatter's
-- reduce= forms). One CPU kernel computes scatter_reduce (backends/cpu/cpu_scatter_reduce.c);
-- the others are written with it (backends/common/index_ops.c). Index values are 1-based.
local fm = "function, method"
op { "scatter_reduce.two(Tensor self, Dim dim, IndexTensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor",
     variants = fm,
     doc = "A copy of self where src's values are reduced ('sum', 'prod', 'mean', 'amax', 'amin') into the positions index names along dim.",
     grad = { node = "ScatterReduceBackward0", fn = "mt_d_scatter_reduce",
              uses = "self: self, index, src, result; src: self, index, src, result" } }
op { "scatter_reduce_.two(Tensor(a!) self, Dim dim, IndexTensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor(a!)",
     variants = "method", doc = "scatter_reduce in place." }
op { "scatter.reduce(Tensor self, Dim dim, IndexTensor index, Tensor src, *, str reduce) -> Tensor", variants = fm,
     doc = "scatter that adds ('add') or multiplies ('multiply') src into self." }
op { "scatter.value_reduce(Tensor self, Dim dim, IndexTensor index, Scalar value, *, str reduce) -> Tensor", variants = fm,
     doc = "scatter that adds or multiplies value into self." }
op { "scatter_.reduce(Tensor(a!) self, Dim dim, IndexTensor index, Tensor src, *, str reduce) -> Tensor(a!)",
     variants = "method", doc = "scatter with reduce= in place." }
op { "scatter_.value_reduce(Tensor(a!) self, Dim dim, IndexTensor index, Scalar value, *, str reduce) -> Tensor(a!)",
     variants = "method", doc = "scatter with reduce= in place." }
op { "index_reduce(Tensor self, Dim dim, IndexTensor index, Tensor source, str reduce, *, bool include_self=True) -> Tensor",
     variants = fm,
     doc = "A copy of self where source's slices along dim are reduced ('prod', 'mean', 'amax', 'amin') into the slices index names." }
op { "index_reduce_(Tensor(a!) self, Dim dim, IndexTensor index, Tensor source, str reduce, *, bool include_self=True) -> Tensor(a!)",
     variants = "method", doc = "index_reduce in place." }
