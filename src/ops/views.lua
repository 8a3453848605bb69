-- View operators: results share their input's storage (and version counter).
op { "view(Tensor(a) self, SymInt[] size) -> Tensor(a)", variants = "method",
     doc = "The same data seen with another shape; -1 infers one size. Never copies." }
op { "view_as(Tensor(a) self, Tensor other) -> Tensor(a)", variants = "method",
     doc = "view(other:size())." }
op { "reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", variants = "function, method",
     doc = "A view when the strides allow it, else a contiguous copy." }
op { "reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)", variants = "method",
     doc = "reshape(other:size())." }
op { "transpose.int(Tensor(a) self, Dim dim0, Dim dim1) -> Tensor(a)", variants = "function, method",
     doc = "Swaps two dimensions." }
op { "t(Tensor(a) self) -> Tensor(a)", variants = "function, method",
     doc = "Transpose of a tensor of at most 2 dimensions." }
op { "permute(Tensor(a) self, Dim[] dims) -> Tensor(a)", variants = "function, method",
     doc = "Reorders the dimensions." }
op { "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", variants = "method",
     doc = "Repeats size-1 dimensions without copying (stride 0); -1 keeps a size." }
op { "expand_as(Tensor(a) self, Tensor other) -> Tensor(a)", variants = "method",
     doc = "expand(other:size())." }
op { "narrow(Tensor(a) self, Dim dim, Index start, SymInt length) -> Tensor(a)",
     variants = "function, method", doc = "length elements of dim from start." }
op { "select.int(Tensor(a) self, Dim dim, Index index) -> Tensor(a)", variants = "function, method",
     doc = "The slice at index along dim, removing dim." }
op { "squeeze(Tensor(a) self) -> Tensor(a)", variants = "function, method",
     doc = "Removes every dimension of size 1." }
op { "squeeze.dim(Tensor(a) self, Dim dim) -> Tensor(a)", variants = "function, method",
     doc = "Removes dim if its size is 1." }
op { "unsqueeze(Tensor(a) self, Dim dim) -> Tensor(a)", variants = "function, method",
     doc = "Inserts a dimension of size 1 at dim." }
op { "flatten.using_ints(Tensor(a) self, Dim start_dim=1, Dim end_dim=-1) -> Tensor(a)",
     variants = "function, method", doc = "Merges dims start_dim..end_dim into one (reshape)." }
op { "unflatten.int(Tensor(a) self, Dim dim, SymInt[] sizes) -> Tensor(a)",
     variants = "function, method", doc = "Splits dim into sizes." }
op { "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
     variants = "function, method", doc = "A view with explicit sizes, strides and offset." }
op { "contiguous(Tensor(a) self, *, str? memory_format=None) -> Tensor(a)", variants = "method",
     doc = "self when laid out as memory_format says (contiguous_format, channels_last, channels_last_3d), else such a copy." }
op { "detach(Tensor(a) self) -> Tensor(a)", variants = "function, method",
     doc = "The same data, cut from the autograd graph (not a view: writes to it stay out of the graph).",
     nondiff = true }
op { "alias(Tensor(a) self) -> Tensor(a)", hidden = true, doc = "A plain view of self." }
