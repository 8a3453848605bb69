-- Reductions and scans. `dim` may be a single Dim or a list; nil reduces over every dim.
local fm = "function, method"

op { "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", variants = fm, doc = "Sum of all elements.",
     reduce = { kind = "SUM", rule = "sum" } }
op { "sum.dim_IntList(Tensor self, Dim[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     variants = fm, doc = "Sum over dims (integers and bools sum to int64).",
     reduce = { kind = "SUM", rule = "sum" } }
op { "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", variants = fm, doc = "Mean of all elements.",
     reduce = { kind = "MEAN", rule = "mean" } }
op { "mean.dim(Tensor self, Dim[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     variants = fm, doc = "Mean over dims (floating types only).",
     reduce = { kind = "MEAN", rule = "mean" } }
op { "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", variants = fm, doc = "Product of all elements.",
     reduce = { kind = "PROD", rule = "sum", refuses = { "FLOAT16", "BFLOAT16" }, kname = "prod_cpu" } }
op { "prod.dim_int(Tensor self, Dim dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     variants = fm, doc = "Product over a dim.",
     reduce = { kind = "PROD", rule = "sum", refuses = { "FLOAT16", "BFLOAT16" }, kname = "prod_cpu" } }
op { "max(Tensor self) -> Tensor", variants = fm, doc = "The largest element (NaN propagates).",
     reduce = { kind = "MAX", rule = "same" } }
op { "max.dim(Tensor self, Dim dim, bool keepdim=False) -> (Tensor values, IndexTensor indices)",
     variants = fm, doc = "Largest values along dim and their (first) 1-based positions.",
     reduce = { kind = "MAX", rule = "same" } }
op { "max.other(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "maximum(self, other)." }
op { "min(Tensor self) -> Tensor", variants = fm, doc = "The smallest element (NaN propagates).",
     reduce = { kind = "MIN", rule = "same" } }
op { "min.dim(Tensor self, Dim dim, bool keepdim=False) -> (Tensor values, IndexTensor indices)",
     variants = fm, doc = "Smallest values along dim and their (first) 1-based positions.",
     reduce = { kind = "MIN", rule = "same" } }
op { "min.other(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "minimum(self, other)." }
op { "amax(Tensor self, Dim[1] dim=[], bool keepdim=False) -> Tensor", variants = fm,
     doc = "Largest values over dims (all dims when dim is empty).",
     reduce = { kind = "MAX", rule = "same" } }
op { "amin(Tensor self, Dim[1] dim=[], bool keepdim=False) -> Tensor", variants = fm,
     doc = "Smallest values over dims (all dims when dim is empty).",
     reduce = { kind = "MIN", rule = "same" } }
op { "argmax(Tensor self, Dim? dim=None, bool keepdim=False) -> IndexTensor", variants = fm,
     doc = "1-based position of the largest element (of the flattened tensor without dim).",
     reduce = { kind = "ARGMAX", rule = "index", refuses = { "BOOL" }, kname = "argmax_cpu" } }
op { "argmin(Tensor self, Dim? dim=None, bool keepdim=False) -> IndexTensor", variants = fm,
     doc = "1-based position of the smallest element (of the flattened tensor without dim).",
     reduce = { kind = "ARGMIN", rule = "index", refuses = { "BOOL" }, kname = "argmin_cpu" } }
for _, f in ipairs { "var", "std" } do
  local moment = { kind = f:upper(), rule = "moment" }
  op { f .. "(Tensor self, bool unbiased=True) -> Tensor", variants = fm, doc = f .. " of all elements.", reduce = moment }
  op { f .. ".dim(Tensor self, Dim[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor", variants = fm,
       doc = f .. " over dims; unbiased divides by n - 1.", reduce = moment }
  op { f .. ".correction(Tensor self, Dim[1]? dim=None, *, int? correction=None, bool keepdim=False) -> Tensor",
       variants = fm, doc = f .. " over dims, dividing by n - correction (default 1).", reduce = moment }
  op { f .. "_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)", variants = "function",
       doc = f .. " and mean of all elements.", reduce = moment }
  op { f .. "_mean.dim(Tensor self, Dim[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)",
       variants = "function", doc = f .. " and mean over dims.", reduce = moment }
  op { f .. "_mean.correction(Tensor self, Dim[1]? dim=None, *, int? correction=None, bool keepdim=False) -> (Tensor, Tensor)",
       variants = "function", doc = f .. " and mean over dims with a correction.", reduce = moment }
end
op { "norm.Scalar(Tensor self, Scalar p=2) -> Tensor", variants = fm, doc = "The p-norm of all elements.",
     reduce = { kind = "NORM", rule = "norm" } }
op { "norm.ScalarOpt_dim(Tensor self, Scalar? p, Dim[1] dim, bool keepdim=False) -> Tensor", variants = fm,
     doc = "The p-norm over dims (p = inf, -inf, 0, or any number).",
     reduce = { kind = "NORM", rule = "norm" } }
op { "logsumexp(Tensor self, Dim[1] dim, bool keepdim=False) -> Tensor", variants = fm,
     doc = "log(sum(exp(self))) over dims, computed stably." }
op { "all(Tensor self) -> Tensor", variants = fm, doc = "True when every element is nonzero.", nondiff = true,
     reduce = { kind = "ALL", rule = "bool" } }
op { "all.dim(Tensor self, Dim dim, bool keepdim=False) -> Tensor", variants = fm, doc = "all along dim.", nondiff = true,
     reduce = { kind = "ALL", rule = "bool" } }
op { "any(Tensor self) -> Tensor", variants = fm, doc = "True when some element is nonzero.", nondiff = true,
     reduce = { kind = "ANY", rule = "bool" } }
op { "any.dim(Tensor self, Dim dim, bool keepdim=False) -> Tensor", variants = fm, doc = "any along dim.", nondiff = true,
     reduce = { kind = "ANY", rule = "bool" } }
op { "cumsum(Tensor self, Dim dim, *, ScalarType? dtype=None) -> Tensor", variants = fm,
     doc = "Running sums along dim.",
     dimop = "CUMSUM" }
op { "cumprod(Tensor self, Dim dim, *, ScalarType? dtype=None) -> Tensor", variants = fm,
     doc = "Running products along dim.",
     dimop = "CUMPROD" }
op { "softmax.int(Tensor self, Dim dim, ScalarType? dtype=None) -> Tensor", variants = fm,
     doc = "exp(self) normalised to sum to 1 along dim.",
     dimop = "SOFTMAX" }
op { "log_softmax.int(Tensor self, Dim dim, ScalarType? dtype=None) -> Tensor", variants = fm,
     doc = "log(softmax(self)) along dim, computed stably.",
     dimop = "LOG_SOFTMAX" }
op { "allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> bool",
     variants = fm, doc = "Whether isclose holds everywhere." }
op { "equal(Tensor self, Tensor other) -> bool", variants = fm,
     doc = "Whether self and other have the same size and elements." }
