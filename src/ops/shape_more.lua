-- More of PyTorch 1.13's shape and indexing ops, written as compositions of other ops
-- (backends/common/shape_more.c): autograd, the meta device and the pipeline see the ops they
-- are made of. Split points (tensor_split's indices, hsplit's) keep PyTorch's numbers: they
-- count elements (x[:k]) as split sizes do, they do not name one.
local fm = "function, method"

for _, n in ipairs({ "1", "2", "3" }) do
  op { ("atleast_%sd(Tensor self) -> Tensor"):format(n), variants = fm,
       doc = ("self with leading/trailing size-1 dims added up to %s dims (self itself when it has them)."):format(n) }
  op { ("atleast_%sd.Sequence(Tensor[] tensors) -> Tensor[]"):format(n),
       doc = ("atleast_%sd of each tensor."):format(n) }
end
op { "block_diag(Tensor[] tensors) -> Tensor", doc = "A block-diagonal matrix of the (at most 2-D) tensors." }
op { "cartesian_prod(Tensor[] tensors) -> Tensor", doc = "The cartesian product of 1-D tensors, one row per tuple." }
op { "combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor",
     doc = "The r-length combinations of a 1-D tensor's elements, one row each." }
op { "column_stack(Tensor[] tensors) -> Tensor", doc = "hstack of the tensors, 0-d and 1-d ones made columns." }
op { "concat(Tensor[] tensors, Dim dim=1) -> Tensor", doc = "cat." }
op { "concatenate(Tensor[] tensors, Dim dim=1) -> Tensor", doc = "cat." }
op { "hstack(Tensor[] tensors) -> Tensor", doc = "cat along dim 2 (dim 1 for 1-D tensors)." }
op { "vstack(Tensor[] tensors) -> Tensor", doc = "cat along dim 1 of atleast_2d of each tensor." }
op { "row_stack(Tensor[] tensors) -> Tensor", doc = "vstack." }
op { "dstack(Tensor[] tensors) -> Tensor", doc = "cat along dim 3 of atleast_3d of each tensor." }
op { "tensor_split.sections(Tensor(a) self, SymInt sections, Dim dim=1) -> Tensor(a)[]", variants = fm,
     doc = "sections views along dim, the first ones one element longer when the size does not divide." }
op { "tensor_split.indices(Tensor(a) self, SymInt[] indices, Dim dim=1) -> Tensor(a)[]", variants = fm,
     doc = "Views along dim split before each of indices (element counts, as x[:k])." }
op { "tensor_split.tensor_indices_or_sections(Tensor(a) self, Tensor tensor_indices_or_sections, Dim dim=1) -> Tensor(a)[]",
     variants = fm, doc = "tensor_split with sections (0-d) or indices (1-D) given as an int64 tensor." }
for _, s in ipairs({ { "h", "2 (1 for 1-D)" }, { "v", "1" }, { "d", "3" } }) do
  op { ("%ssplit.int(Tensor(a) self, int sections) -> Tensor(a)[]"):format(s[1]), variants = fm,
       doc = ("tensor_split into equal sections along dim %s."):format(s[2]) }
  op { ("%ssplit.array(Tensor(a) self, int[] indices) -> Tensor(a)[]"):format(s[1]), variants = fm,
       doc = ("tensor_split at indices along dim %s."):format(s[2]) }
end
op { "split_with_sizes(Tensor(a) self, SymInt[] split_sizes, Dim dim=1) -> Tensor(a)[]", variants = fm,
     doc = "split with a list of sizes." }
op { "diag_embed(Tensor self, int offset=0, Dim dim1=-2, Dim dim2=-1) -> Tensor", variants = fm,
     doc = "Matrices (in dims dim1, dim2) whose offset diagonal is self's last dim." }
op { "diagflat(Tensor self, int offset=0) -> Tensor", variants = fm,
     doc = "The matrix whose offset diagonal is the flattened self." }
op { "fliplr(Tensor self) -> Tensor", variants = fm, doc = "flip along dim 2." }
op { "flipud(Tensor self) -> Tensor", variants = fm, doc = "flip along dim 1." }
for _, n in ipairs({ "movedim", "moveaxis" }) do
  op { n .. "(Tensor(a) self, Dim[1] source, Dim[1] destination) -> Tensor(a)", variants = fm,
       doc = "A view with the dims source (one or a list) moved to destination, the others in order." }
end
op { "swapaxes(Tensor(a) self, Dim axis0, Dim axis1) -> Tensor(a)", variants = fm, doc = "transpose." }
op { "swapdims(Tensor(a) self, Dim dim0, Dim dim1) -> Tensor(a)", variants = fm, doc = "transpose." }
op { "ravel(Tensor(a) self) -> Tensor(a)", variants = fm, doc = "contiguous() flattened to 1-D." }
op { "rot90(Tensor self, int k=1, Dim[] dims=[1,2]) -> Tensor", variants = fm,
     doc = "Rotates by 90 degrees k times in the plane of dims (from the first towards the second)." }
op { "repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> IndexTensor",
     doc = "Each position i (1-based) repeats[i] times." }
op { "repeat_interleave.self_Tensor(Tensor self, Tensor repeats, Dim? dim=None, *, SymInt? output_size=None) -> Tensor",
     variants = fm, doc = "Each slice along dim (of the flattened self without dim) repeated repeats[i] times." }
op { "repeat_interleave.self_int(Tensor self, SymInt repeats, Dim? dim=None, *, SymInt? output_size=None) -> Tensor",
     variants = fm, doc = "Each slice along dim (of the flattened self without dim) repeated repeats times." }
op { "take_along_dim(Tensor self, IndexTensor indices, Dim? dim=None) -> Tensor", variants = fm,
     doc = "gather along dim with self and indices broadcast (the flattened self without dim)." }
op { "tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool pin_memory=False) -> IndexTensor",
     doc = "The 1-based coordinates (2 x N) of a row x col matrix's lower triangle." }
op { "triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool pin_memory=False) -> IndexTensor",
     doc = "The 1-based coordinates (2 x N) of a row x col matrix's upper triangle." }
op { "meshgrid(Tensor[] tensors) -> Tensor[]", doc = "meshgrid with indexing=\"ij\"." }
op { "meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]",
     doc = "Coordinate grids of 0-D/1-D tensors (\"ij\": matrix order, \"xy\": cartesian)." }
op { "unfold(Tensor(a) self, Dim dimension, SymInt size, SymInt step) -> Tensor(a)", variants = "method",
     doc = "A view of the windows of size along dimension, step apart, as a new last dim." }
op { "sum_to_size(Tensor self, SymInt[] size) -> Tensor", variants = "method",
     doc = "self summed down to size (which must broadcast to self's shape)." }
-- In-place shape changes: self takes the geometry of the view (metadata only). Tensors that
-- require grad are refused (a leaf with PyTorch's words; the out-of-place views keep history).
op { "t_(Tensor(a!) self) -> Tensor(a!)", variants = "method", doc = "t in place." }
op { "transpose_(Tensor(a!) self, Dim dim0, Dim dim1) -> Tensor(a!)", variants = "method", doc = "transpose in place." }
op { "swapaxes_(Tensor(a!) self, Dim axis0, Dim axis1) -> Tensor(a!)", variants = "method", doc = "transpose in place." }
op { "swapdims_(Tensor(a!) self, Dim dim0, Dim dim1) -> Tensor(a!)", variants = "method", doc = "transpose in place." }
op { "squeeze_(Tensor(a!) self) -> Tensor(a!)", variants = "method", doc = "squeeze in place." }
op { "squeeze_.dim(Tensor(a!) self, Dim dim) -> Tensor(a!)", variants = "method", doc = "squeeze(dim) in place." }
op { "unsqueeze_(Tensor(a!) self, Dim dim) -> Tensor(a!)", variants = "method", doc = "unsqueeze in place." }
op { "as_strided_(Tensor(a!) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a!)",
     variants = "method", doc = "as_strided in place." }
