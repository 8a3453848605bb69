-- More of PyTorch 1.13's indexing ops, written as compositions (backends/common/index_more.c):
-- the scatters into views (a copy of self, a view of it, copy_), index_fill, put, searchsorted
-- and bucketize (counts of comparisons), unique_consecutive, msort, the new_* factories.
-- Positions are 1-based (select_scatter's index, index tensors, searchsorted's results);
-- slice_scatter's start/end are Python slice bounds, as tensor_split's split points.
local fm = "function, method"
local fac = "*, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool pin_memory=False"

op { "slice_scatter(Tensor self, Tensor src, Dim dim=1, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor",
     variants = fm, doc = "A copy of self with src written into self[start:end:step] along dim." }
op { "select_scatter(Tensor self, Tensor src, Dim dim, Index index) -> Tensor", variants = fm,
     doc = "A copy of self with src written into select(dim, index)." }
op { "diagonal_scatter(Tensor self, Tensor src, int offset=0, Dim dim1=1, Dim dim2=2) -> Tensor", variants = fm,
     doc = "A copy of self with src written into diagonal(offset, dim1, dim2)." }
op { "as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor",
     variants = fm, doc = "A copy of self with src written into as_strided(size, stride, storage_offset)." }
op { "index_fill_.int_Scalar(Tensor(a!) self, Dim dim, IndexTensor index, Scalar value) -> Tensor(a!)",
     variants = "method", doc = "Fills the slices at index along dim with value." }
op { "index_fill_.int_Tensor(Tensor(a!) self, Dim dim, IndexTensor index, Tensor value) -> Tensor(a!)",
     variants = "method", doc = "Fills the slices at index along dim with a 0-d value." }
op { "index_fill.int_Scalar(Tensor self, Dim dim, IndexTensor index, Scalar value) -> Tensor", variants = fm,
     doc = "index_fill_ on a copy of self." }
op { "index_fill.int_Tensor(Tensor self, Dim dim, IndexTensor index, Tensor value) -> Tensor", variants = fm,
     doc = "index_fill_ on a copy of self." }
op { "put_(Tensor(a!) self, IndexTensor index, Tensor source, bool accumulate=False) -> Tensor(a!)", variants = "method",
     doc = "Writes (or adds) source at the 1-based positions index of the flattened self." }
op { "put(Tensor self, IndexTensor index, Tensor source, bool accumulate=False) -> Tensor", variants = fm,
     doc = "put_ on a copy of self." }
op { "searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, str? side=None, IndexTensor? sorter=None) -> IndexTensor",
     doc = "The 1-based positions where self's values would be inserted in the sorted last dim of sorted_sequence." }
op { "searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, bool right=False, str? side=None, IndexTensor? sorter=None) -> IndexTensor",
     doc = "searchsorted of one value." }
op { "bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> IndexTensor",
     variants = "function", doc = "The 1-based bucket of each value among the sorted 1-D boundaries." }
op { "bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> IndexTensor",
     doc = "bucketize of one value." }
op { "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, Dim? dim=None) -> (Tensor, IndexTensor, Tensor)",
     variants = fm, doc = "The values (or slices along dim) with consecutive repeats removed; 1-based inverse positions and counts when asked." }
op { "msort(Tensor self) -> Tensor", variants = fm, doc = "The values sorted along dim 1." }
op { "fill_diagonal_(Tensor(a!) self, Scalar fill_value, bool wrap=False) -> Tensor(a!)", variants = "method",
     doc = "Fills the main diagonal (all dims equal; wrap: every ncols+1 rows again for tall matrices)." }
op { "resize_as_(Tensor(a!) self, Tensor the_template, *, str? memory_format=None) -> Tensor(a!)", variants = fm,
     doc = "resize_ to the template's size." }
op { "type_as(Tensor self, Tensor other) -> Tensor", variants = "method", doc = "self converted to other's dtype." }
op { "new_empty(Tensor self, SymInt[] size, " .. fac .. ") -> Tensor", variants = "method",
     doc = "empty with self's dtype and device unless given." }
op { "new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, " .. fac .. ") -> Tensor", variants = "method",
     doc = "empty_strided with self's dtype and device unless given." }
op { "new_zeros(Tensor self, SymInt[] size, " .. fac .. ") -> Tensor", variants = "method",
     doc = "zeros with self's dtype and device unless given." }
op { "new_ones(Tensor self, SymInt[] size, " .. fac .. ") -> Tensor", variants = "method",
     doc = "ones with self's dtype and device unless given." }
op { "new_full(Tensor self, SymInt[] size, Scalar fill_value, " .. fac .. ") -> Tensor", variants = "method",
     doc = "full with self's dtype and device unless given." }
