-- Products of PyTorch 1.13 written with other ops (backends/common/products.c): mm, bmm, mul,
-- sum ... carry the arithmetic and the derivatives.
local fm = "function, method"
op { "kron(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "The Kronecker product." }
op { "inner(Tensor self, Tensor other) -> Tensor", variants = fm,
     doc = "Sums of products over the last dims (a product when either is 0-d)." }
op { "ger(Tensor self, Tensor vec2) -> Tensor", variants = fm, doc = "outer." }
op { "vdot(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "dot of two 1-D tensors (real: no conjugate)." }
op { "tensordot(Tensor self, Tensor other, Dim[] dims_self, Dim[] dims_other) -> Tensor",
     doc = "Sums of products over dims_self of self and dims_other of other (torch.tensordot(a, b, dims) takes a count or two lists)." }
op { "chain_matmul(Tensor[] matrices) -> Tensor", doc = "The product of 2-D matrices, left to right (deprecated: linalg.multi_dot)." }
op { "addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", variants = fm,
     doc = "beta * self + alpha * the sum over the batch of bmm(batch1, batch2)." }
op { "addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", variants = fm,
     doc = "beta * self + alpha * outer(vec1, vec2)." }
op { "trace(Tensor self) -> Tensor", variants = fm, doc = "The sum of a matrix's diagonal." }
op { "vander(Tensor x, int? N=None, bool increasing=False) -> Tensor",
     doc = "The Vandermonde matrix: columns x^(N-1) ... x^0 (x^0 ... x^(N-1) when increasing)." }
op { "einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor",
     doc = "Einstein summation; operands contracted left to right as PyTorch does." }
op { "addbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
     variants = "method", doc = "addbmm in place." }
op { "addr_(Tensor(a!) self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
     variants = "method", doc = "addr in place." }
