-- Reductions and scans. `dim` may be a single Dim or a list; nil reduces over every dim.
local fm = "function, method"

op { "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", variants = fm, doc = "Sum of all elements.",
     reduce = { kind = "SUM", rule = "sum", identity = 0 },
     grad = { node = "SumBackward0", self = "sum_backward(grad, self)" } }
op { "sum.dim_IntList(Tensor self, Dim[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     variants = fm, doc = "Sum over dims (integers and bools sum to int64).",
     reduce = { kind = "SUM", rule = "sum", identity = 0 },
     grad = { node = "SumBackward1", self = "sum_backward(grad, self, dim, keepdim)" } }
op { "nansum(Tensor self, Dim[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     variants = fm, doc = "Sum over dims (all when dim is nil), NaN counted as zero.",
     reduce = { kind = "NANSUM", rule = "sum", identity = 0 },
     grad = { self = "sum_backward(grad, self, dim, keepdim) * (self == self)" } }
op { "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", variants = fm, doc = "Mean of all elements.",
     reduce = { kind = "MEAN", rule = "mean" },
     grad = { node = "MeanBackward0", fn = "mt_d_mean", uses = "self:" } }
op { "mean.dim(Tensor self, Dim[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     variants = fm, doc = "Mean over dims (floating types only).",
     reduce = { kind = "MEAN", rule = "mean" },
     grad = { node = "MeanBackward1", fn = "mt_d_mean_dim", uses = "self:" } }
op { "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", variants = fm, doc = "Product of all elements.",
     reduce = { kind = "PROD", rule = "sum", identity = 1, refuses = { "FLOAT16", "BFLOAT16" }, kname = "prod_cpu" },
     grad = { node = "ProdBackward0", fn = "mt_d_prod", uses = "self: self" } }
op { "prod.dim_int(Tensor self, Dim dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     variants = fm, doc = "Product over a dim.",
     reduce = { kind = "PROD", rule = "sum", identity = 1, refuses = { "FLOAT16", "BFLOAT16" }, kname = "prod_cpu" },
     grad = { node = "ProdBackward1", fn = "mt_d_prod_dim", uses = "self: self" } }
op { "max(Tensor self) -> Tensor", variants = fm, doc = "The largest element (NaN propagates).",
     reduce = { kind = "MAX", rule = "same" },
     grad = { node = "MaxBackward1", fn = "mt_d_extreme_all", uses = "self: self, result" } }
op { "max.dim(Tensor self, Dim dim, bool keepdim=False) -> (Tensor values, IndexTensor indices)",
     variants = fm, doc = "Largest values along dim and their (first) 1-based positions.",
     reduce = { kind = "MAX", rule = "same" },
     grad = { node = "MaxBackward0", fn = "mt_d_extreme_dim", uses = "self: result1" } }
op { "max.other(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "maximum(self, other)." }
op { "min(Tensor self) -> Tensor", variants = fm, doc = "The smallest element (NaN propagates).",
     reduce = { kind = "MIN", rule = "same" },
     grad = { node = "MinBackward1", fn = "mt_d_extreme_all", uses = "self: self, result" } }
op { "min.dim(Tensor self, Dim dim, bool keepdim=False) -> (Tensor values, IndexTensor indices)",
     variants = fm, doc = "Smallest values along dim and their (first) 1-based positions.",
     reduce = { kind = "MIN", rule = "same" },
     grad = { node = "MinBackward0", fn = "mt_d_extreme_dim", uses = "self: result1" } }
op { "min.other(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "minimum(self, other)." }
op { "amax(Tensor self, Dim[1] dim=[], bool keepdim=False) -> Tensor", variants = fm,
     doc = "Largest values over dims (all dims when dim is empty).",
     reduce = { kind = "MAX", rule = "same" },
     grad = { node = "AmaxBackward0", fn = "mt_d_amax", uses = "self: self, result" } }
op { "amin(Tensor self, Dim[1] dim=[], bool keepdim=False) -> Tensor", variants = fm,
     doc = "Smallest values over dims (all dims when dim is empty).",
     reduce = { kind = "MIN", rule = "same" },
     grad = { node = "AminBackward0", fn = "mt_d_amax", uses = "self: self, result" } }
op { "argmax(Tensor self, Dim? dim=None, bool keepdim=False) -> IndexTensor", variants = fm,
     doc = "1-based position of the largest element (of the flattened tensor without dim).",
     reduce = { kind = "ARGMAX", rule = "index", refuses = { "BOOL" }, kname = "argmax_cpu" } }
op { "argmin(Tensor self, Dim? dim=None, bool keepdim=False) -> IndexTensor", variants = fm,
     doc = "1-based position of the smallest element (of the flattened tensor without dim).",
     reduce = { kind = "ARGMIN", rule = "index", refuses = { "BOOL" }, kname = "argmin_cpu" } }
for _, f in ipairs { "var", "std" } do
  local moment = { kind = f:upper(), rule = "moment" }
  local uses = f == "var" and "self: self" or "self: self, result"
  local grad = { node = f:gsub("^%l", string.upper) .. "Backward0", fn = "mt_d_" .. f, uses = uses }
  local grad_mean = { node = (f == "var" and "VarMean" or "StdMean") .. "Backward0", fn = "mt_d_" .. f .. "_mean",
                      uses = f == "var" and "self: self" or "self: self, result0" }
  op { f .. "(Tensor self, bool unbiased=True) -> Tensor", variants = fm, doc = f .. " of all elements.", reduce = moment, grad = grad }
  op { f .. ".dim(Tensor self, Dim[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor", variants = fm,
       doc = f .. " over dims; unbiased divides by n - 1.", reduce = moment, grad = grad }
  op { f .. ".correction(Tensor self, Dim[1]? dim=None, *, int? correction=None, bool keepdim=False) -> Tensor",
       variants = fm, doc = f .. " over dims, dividing by n - correction (default 1).", reduce = moment, grad = grad }
  op { f .. "_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)", variants = "function",
       doc = f .. " and mean of all elements.", reduce = moment, grad = grad_mean }
  op { f .. "_mean.dim(Tensor self, Dim[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)",
       variants = "function", doc = f .. " and mean over dims.", reduce = moment, grad = grad_mean }
  op { f .. "_mean.correction(Tensor self, Dim[1]? dim=None, *, int? correction=None, bool keepdim=False) -> (Tensor, Tensor)",
       variants = "function", doc = f .. " and mean over dims with a correction.", reduce = moment, grad = grad_mean }
end
op { "norm.Scalar(Tensor self, Scalar p=2) -> Tensor", variants = fm, doc = "The p-norm of all elements.",
     reduce = { kind = "NORM", rule = "norm", identity = 0 },
     grad = { node = "NormBackward1", fn = "mt_d_norm", uses = "self: self, result" } }
op { "norm.ScalarOpt_dim(Tensor self, Scalar? p, Dim[1] dim, bool keepdim=False) -> Tensor", variants = fm,
     doc = "The p-norm over dims (p = inf, -inf, 0, or any number).",
     reduce = { kind = "NORM", rule = "norm", identity = 0 },
     grad = { node = "NormBackward1", fn = "mt_d_norm_dim", uses = "self: self, result" } }
op { "logsumexp(Tensor self, Dim[1] dim, bool keepdim=False) -> Tensor", variants = fm,
     doc = "log(sum(exp(self))) over dims, computed stably.",
     grad = { node = "LogsumexpBackward0", fn = "mt_d_logsumexp", uses = "self: self, result" } }
op { "all(Tensor self) -> Tensor", variants = fm, doc = "True when every element is nonzero.", nondiff = true,
     reduce = { kind = "ALL", rule = "bool", identity = 1 } }
op { "all.dim(Tensor self, Dim dim, bool keepdim=False) -> Tensor", variants = fm, doc = "all along dim.", nondiff = true,
     reduce = { kind = "ALL", rule = "bool", identity = 1 } }
op { "any(Tensor self) -> Tensor", variants = fm, doc = "True when some element is nonzero.", nondiff = true,
     reduce = { kind = "ANY", rule = "bool", identity = 0 } }
op { "any.dim(Tensor self, Dim dim, bool keepdim=False) -> Tensor", variants = fm, doc = "any along dim.", nondiff = true,
     reduce = { kind = "ANY", rule = "bool", identity = 0 } }
op { "cumsum(Tensor self, Dim dim, *, ScalarType? dtype=None) -> Tensor", variants = fm,
     doc = "Running sums along dim.",
     dimop = "CUMSUM",
     grad = { node = "CumsumBackward0", fn = "mt_d_cumsum", uses = "self:" } }
op { "cumprod(Tensor self, Dim dim, *, ScalarType? dtype=None) -> Tensor", variants = fm,
     doc = "Running products along dim.",
     dimop = "CUMPROD",
     grad = { node = "CumprodBackward0", fn = "mt_d_cumprod", uses = "self: self, result" } }
op { "softmax.int(Tensor self, Dim dim, ScalarType? dtype=None) -> Tensor", variants = fm,
     doc = "exp(self) normalised to sum to 1 along dim.",
     dimop = "SOFTMAX",
     grad = { node = "SoftmaxBackward0", fn = "mt_d_softmax", uses = "self: result" } }
op { "log_softmax.int(Tensor self, Dim dim, ScalarType? dtype=None) -> Tensor", variants = fm,
     doc = "log(softmax(self)) along dim, computed stably.",
     dimop = "LOG_SOFTMAX",
     grad = { node = "LogSoftmaxBackward0", fn = "mt_d_log_softmax", uses = "self: result" } }
op { "allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> bool",
     variants = fm, doc = "Whether isclose holds everywhere." }
op { "equal(Tensor self, Tensor other) -> bool", variants = fm,
     doc = "Whether self and other have the same size and elements." }
