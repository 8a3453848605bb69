-- Linear algebra on OpenBLAS (float32/float64; bfloat16 and integers by direct loops).
-- group = "product": served by each backend's generic product kernel and the shared meta function.
local fm = "function, method"
op { "mm(Tensor self, Tensor mat2) -> Tensor", variants = fm, doc = "Matrix product of two 2-D tensors.", group = "product" }
op { "bmm(Tensor self, Tensor mat2) -> Tensor", variants = fm, doc = "Batched matrix product of two 3-D tensors.", group = "product" }
op { "mv(Tensor self, Tensor vec) -> Tensor", variants = fm, doc = "Matrix-vector product.", group = "product" }
op { "dot(Tensor self, Tensor tensor) -> Tensor", variants = fm, doc = "Inner product of two 1-D tensors.", group = "product" }
op { "outer(Tensor self, Tensor vec2) -> Tensor", variants = fm, doc = "Outer product of two 1-D tensors." }
op { "matmul(Tensor self, Tensor other) -> Tensor", variants = fm,
     doc = "Matrix product with PyTorch's rules for 1-D, 2-D, batched and broadcast operands." }
op { "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", variants = fm,
     doc = "beta * self + alpha * (mat1 @ mat2).", group = "product" }
op { "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor", variants = fm,
     doc = "beta * self + alpha * (mat @ vec).", group = "product" }
op { "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", variants = fm,
     doc = "beta * self + alpha * bmm(batch1, batch2).", group = "product" }
