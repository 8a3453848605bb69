-- Joining, splitting, reordering and indexing. Index values (gather's index, nonzero's result,
-- sort's indices ...) are 1-based at the Lua boundary, as every index in mindtorch.
local fm = "function, method"

op { "cat(Tensor[] tensors, Dim dim=1) -> Tensor", doc = "Concatenates tensors along an existing dim." }
op { "stack(Tensor[] tensors, Dim dim=1) -> Tensor", doc = "Stacks equal-sized tensors along a new dim." }
op { "split.Tensor(Tensor(a) self, SymInt split_size, Dim dim=1) -> Tensor(a)[]", variants = fm,
     doc = "Views of split_size along dim (the last one may be smaller)." }
op { "split.sizes(Tensor(a) self, SymInt[] split_size, Dim dim=1) -> Tensor(a)[]", variants = fm,
     doc = "Views with the given sizes along dim." }
op { "chunk(Tensor(a) self, int chunks, Dim dim=1) -> Tensor(a)[]", variants = fm,
     doc = "At most chunks views of equal size along dim." }
op { "unbind.int(Tensor(a) self, Dim dim=1) -> Tensor(a)[]", variants = fm, doc = "The slices along dim." }
op { "flip(Tensor self, Dim[] dims) -> Tensor", variants = fm, doc = "Reverses the order along dims." }
op { "roll(Tensor self, SymInt[1] shifts, Dim[1] dims=[]) -> Tensor", variants = fm,
     doc = "Rotates along dims (the flattened tensor without dims)." }
op { "repeat(Tensor self, SymInt[] repeats) -> Tensor", variants = "method", doc = "Tiles self repeats times along each dim." }
op { "tile(Tensor self, SymInt[] dims) -> Tensor", variants = fm, doc = "repeat, padding dims with leading 1s." }
op { "broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)", variants = fm, doc = "expand to size." }
op { "broadcast_tensors(Tensor[] tensors) -> Tensor[]",
     doc = "Views of the tensors expanded to their common broadcast shape (a sequence)." }
op { "gather(Tensor self, Dim dim, IndexTensor index, *, bool sparse_grad=False) -> Tensor", variants = fm,
     doc = "out[i][j] = self[i][index[i][j]] (for dim 2), 1-based index values." }
op { "scatter.src(Tensor self, Dim dim, IndexTensor index, Tensor src) -> Tensor", variants = fm,
     doc = "A copy of self with src written at index along dim." }
op { "scatter.value(Tensor self, Dim dim, IndexTensor index, Scalar value) -> Tensor", variants = fm,
     doc = "A copy of self with value written at index along dim." }
op { "scatter_.src(Tensor(a!) self, Dim dim, IndexTensor index, Tensor src) -> Tensor(a!)", variants = "method",
     doc = "scatter in place." }
op { "scatter_.value(Tensor(a!) self, Dim dim, IndexTensor index, Scalar value) -> Tensor(a!)", variants = "method",
     doc = "scatter in place." }
op { "scatter_add(Tensor self, Dim dim, IndexTensor index, Tensor src) -> Tensor", variants = fm,
     doc = "A copy of self with src added at index along dim." }
op { "scatter_add_(Tensor(a!) self, Dim dim, IndexTensor index, Tensor src) -> Tensor(a!)", variants = "method",
     doc = "scatter_add in place." }
op { "_index(Tensor self, IndexTensor?[] indices) -> Tensor", mixed_device = true,
     doc = "Advanced indexing (x[{...}] with tensors): the index tensors (1-based) or bool masks of the leading dims, broadcast together, pick elements." }
op { "index_put_(Tensor(a!) self, IndexTensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
     variants = "method", mixed_device = true, doc = "Writes (or adds, with accumulate) values at the positions _index picks." }
op { "index_put(Tensor self, IndexTensor?[] indices, Tensor values, bool accumulate=False) -> Tensor", variants = fm,
     mixed_device = true,
     doc = "index_put_ on a copy of self." }
op { "_index_int(Tensor self, Tensor?[] indices) -> Tensor", hidden = true,
     doc = "_index with int64 index tensors only, 0-based." }
op { "_index_put_int_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate) -> Tensor(a!)", hidden = true,
     doc = "index_put_ with int64 index tensors only, 0-based." }
op { "index_select(Tensor self, Dim dim, IndexTensor index) -> Tensor", variants = fm,
     doc = "The slices of self at 1-based positions index along dim." }
op { "index_add(Tensor self, Dim dim, IndexTensor index, Tensor source, *, Scalar alpha=1) -> Tensor", variants = fm,
     doc = "A copy of self with alpha * source added to the slices at index." }
op { "index_add_(Tensor(a!) self, Dim dim, IndexTensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)",
     variants = "method", doc = "index_add in place." }
op { "index_copy(Tensor self, Dim dim, IndexTensor index, Tensor source) -> Tensor", variants = fm,
     doc = "A copy of self with source copied into the slices at index." }
op { "index_copy_(Tensor(a!) self, Dim dim, IndexTensor index, Tensor source) -> Tensor(a!)", variants = "method",
     doc = "index_copy in place." }
op { "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor", variants = fm,
     doc = "A copy of self with value where mask is true." }
op { "masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor", variants = fm,
     doc = "A copy of self with a 0-d value where mask is true." }
op { "masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)", variants = "method",
     doc = "masked_fill in place." }
op { "masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)", variants = "method",
     doc = "masked_fill in place." }
op { "masked_select(Tensor self, Tensor mask) -> Tensor", variants = fm,
     doc = "The elements where mask is true, as a 1-D tensor." }
op { "masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor", variants = fm,
     doc = "A copy of self with source's elements, in order, where mask is true." }
op { "masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)", variants = "method",
     doc = "masked_scatter in place." }
op { "nonzero(Tensor self) -> IndexTensor", variants = fm, doc = "The 1-based coordinates of nonzero elements, one row each." }
op { "argwhere(Tensor self) -> IndexTensor", variants = fm, doc = "nonzero." }
op { "take(Tensor self, IndexTensor index) -> Tensor", variants = fm,
     doc = "Elements of the flattened self at 1-based positions index." }
op { "sort(Tensor self, Dim dim=-1, bool descending=False) -> (Tensor values, IndexTensor indices)", variants = fm,
     doc = "Sorted values along dim and their 1-based positions (NaN sorts last)." }
op { "sort.stable(Tensor self, *, bool? stable, Dim dim=-1, bool descending=False) -> (Tensor values, IndexTensor indices)",
     variants = fm, doc = "sort; equal values keep their order (mindtorch's sort always does)." }
op { "argsort(Tensor self, Dim dim=-1, bool descending=False) -> IndexTensor", variants = fm,
     doc = "The 1-based positions that sort self along dim." }
op { "topk(Tensor self, SymInt k, Dim dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, IndexTensor indices)",
     variants = fm, doc = "The k largest (or smallest) values along dim and their positions." }
op { "kthvalue(Tensor self, int k, Dim dim=-1, bool keepdim=False) -> (Tensor values, IndexTensor indices)",
     variants = fm, doc = "The k-th smallest value along dim (k counts from 1) and its position.",
     grad = { node = "KthvalueBackward0", fn = "mt_d_kthvalue", uses = "self: result1" } }
op { "unique(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False, Dim? dim=None) -> (Tensor, IndexTensor, Tensor)",
     variants = fm, doc = "Sorted distinct values (or slices along dim); inverse positions and counts when asked." }
op { "tril(Tensor self, int diagonal=0) -> Tensor", variants = fm, doc = "The lower triangle of the last two dims." }
op { "triu(Tensor self, int diagonal=0) -> Tensor", variants = fm, doc = "The upper triangle of the last two dims." }
op { "tril_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)", variants = "method", doc = "tril in place." }
op { "triu_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)", variants = "method", doc = "triu in place." }
op { "diag(Tensor self, int diagonal=0) -> Tensor", variants = fm,
     doc = "A vector's diagonal matrix, or a matrix's diagonal as a vector." }
op { "diagonal(Tensor(a) self, int offset=0, Dim dim1=1, Dim dim2=2) -> Tensor(a)", variants = fm,
     doc = "A view of the diagonal of dims dim1 and dim2 (as a last dim)." }
