-- Reductions and statistics of PyTorch 1.13 written with other ops (backends/common/statistics.c):
-- sort, gather, cumsum, where ... carry the arithmetic, the meta device and the pipeline. An op
-- whose PyTorch derivative differs from its pieces' (median picks, aminmax has none) declares it.
-- The scans cummax, cummin and logcumsumexp are kernels of their own (backends/cpu/cpu_stats.c).
-- Positions (median's, mode's, cummax's indices) are 1-based at the Lua boundary.
local fm = "function, method"

-- a derivative that PyTorch does not implement: the node exists, its backward raises
local function not_implemented(uses)
  return { node = "torch::autograd::NotImplemented", fn = "mt_bw_zero_grads", uses = uses, flags = "MT_D_NOT_IMPLEMENTED" }
end
-- values picked at positions along dim: the gradient scattered back (dim 2nd, keepdim 3rd)
local function picked(node) return { node = node, fn = "mt_d_extreme_dim", uses = "self: result1" } end
-- one value of the whole tensor: the gradient shared by the elements equal to it
local function evenly(node) return { node = node, fn = "mt_d_extreme_all", uses = "self: self, result" } end

op { "aminmax(Tensor self, *, Dim? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)", variants = fm,
     doc = "amin and amax together (over everything, or along dim).", grad = not_implemented("self:") }
op { "nanmean(Tensor self, Dim[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     variants = fm, doc = "Mean over dims of the values that are not NaN." }
op { "count_nonzero.dim_IntList(Tensor self, Dim[] dim) -> Tensor", variants = fm,
     doc = "The number of nonzero elements over dims." }
op { "count_nonzero(Tensor self, Dim? dim=None) -> Tensor", variants = fm,
     doc = "The number of nonzero elements (along dim when given)." }
op { "median(Tensor self) -> Tensor", variants = fm,
     doc = "The lower median of all elements (NaN when there is one).", grad = evenly("MedianBackward0") }
op { "median.dim(Tensor self, Dim dim, bool keepdim=False) -> (Tensor values, IndexTensor indices)", variants = fm,
     doc = "Lower medians along dim and their 1-based positions (a NaN and its first position when a row has one).",
     grad = picked("MedianBackward1") }
op { "nanmedian(Tensor self) -> Tensor", variants = fm,
     doc = "The lower median of the elements that are not NaN.", grad = evenly("NanmedianBackward0") }
op { "nanmedian.dim(Tensor self, Dim dim, bool keepdim=False) -> (Tensor values, IndexTensor indices)",
     variants = fm, doc = "Lower medians along dim ignoring NaN, and their 1-based positions.",
     grad = picked("NanmedianBackward1") }
op { "mode(Tensor self, Dim dim=-1, bool keepdim=False) -> (Tensor values, IndexTensor indices)", variants = fm,
     doc = "The most frequent value along dim (the smallest of equally frequent ones) and its last 1-based position.",
     grad = picked("ModeBackward0") }
for _, m in ipairs { "cummax", "cummin" } do
  op { m .. "(Tensor self, Dim dim) -> (Tensor values, IndexTensor indices)", variants = fm,
       doc = "Running " .. (m == "cummax" and "maxima" or "minima") .. " along dim and their (last) 1-based positions; NaN propagates.",
       grad = { node = m == "cummax" and "CummaxBackward0" or "CumminBackward0", fn = "mt_d_cummaxmin", uses = "self: self, result1" } }
end
op { "logcumsumexp(Tensor self, Dim dim) -> Tensor", variants = fm,
     doc = "log(cumsum(exp(self))) along dim, computed stably.",
     grad = { node = "LogcumsumexpBackward0", fn = "mt_d_logcumsumexp", uses = "self: self, result" } }
for _, m in ipairs { "quantile", "nanquantile" } do
  local what = m == "quantile" and "The q-th quantiles" or "The q-th quantiles of the values that are not NaN"
  op { m .. "(Tensor self, Tensor q, Dim? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor",
       variants = fm, doc = what .. " (of everything, or along dim); q's values lead the result's dims." }
  op { m .. ".scalar(Tensor self, float q, Dim? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor",
       variants = fm, doc = what .. " for one q." }
end

-- differences, distances, integrals
op { "diff(Tensor self, int n=1, Dim dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor", variants = fm,
     doc = "The n-th forward difference along dim (logical xor for bool), after prepend and append are joined on." }
op { "dist(Tensor self, Tensor other, Scalar p=2) -> Tensor", variants = fm, doc = "The p-norm of self - other." }
op { "renorm(Tensor self, Scalar p, Dim dim, Scalar maxnorm) -> Tensor", variants = fm,
     doc = "Each slice along dim whose p-norm exceeds maxnorm scaled down to maxnorm." }
op { "renorm_(Tensor(a!) self, Scalar p, Dim dim, Scalar maxnorm) -> Tensor(a!)", variants = "method",
     doc = "renorm in place." }
op { "cdist(Tensor x1, Tensor x2, float p=2., str compute_mode='use_mm_for_euclid_dist_if_necessary') -> Tensor",
     doc = "The p-norm distances between the rows of x1 and x2 (batched); p = 2 by matrix products for more than 25 rows, or as compute_mode says." }
op { "pdist(Tensor self, float p=2.) -> Tensor",
     doc = "The p-norm distances between the rows of a matrix, each pair i < j once, in row order." }
op { "cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor", variants = fm,
     doc = "The covariance matrix of the variables in the rows, observations in the columns (frequency and observation weights)." }
op { "corrcoef(Tensor self) -> Tensor", variants = fm,
     doc = "Pearson's correlation coefficients of the variables in the rows, clipped to [-1, 1]." }
for _, m in ipairs { "trapezoid", "trapz" } do
  op { m .. ".x(Tensor y, Tensor x, *, Dim dim=-1) -> Tensor",
       doc = "The trapezoidal rule along dim with sample points x." }
  op { m .. ".dx(Tensor y, *, " .. (m == "trapz" and "float dx=1." or "Scalar dx=1") .. ", Dim dim=-1) -> Tensor",
       doc = "The trapezoidal rule along dim with samples dx apart." }
end
op { "cumulative_trapezoid.x(Tensor y, Tensor x, *, Dim dim=-1) -> Tensor",
     doc = "The running trapezoidal rule along dim with sample points x." }
op { "cumulative_trapezoid.dx(Tensor y, *, Scalar dx=1, Dim dim=-1) -> Tensor",
     doc = "The running trapezoidal rule along dim with samples dx apart." }

-- counting
op { "histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor", variants = fm,
     doc = "Counts in bins equal-width bins over [min, max] (the data's range when both are 0); values outside are left out." }
op { "bincount(Tensor self, Tensor? weights=None, int minlength=0) -> Tensor", variants = fm,
     doc = "The number of times (or the weights' sum) each value 0, 1, ... of a 1-D non-negative integer tensor occurs.",
     grad = not_implemented("weights:") }
op { "histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor bin_edges)",
     variants = fm, doc = "Counts (or weights, or a density) between the edges in bins, the last bin closed.",
     grad = not_implemented("self:; bins:; weight:") }
op { "histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor bin_edges)",
     variants = fm, doc = "histogram with bins equal-width bins over range (the data's range by default).",
     grad = not_implemented("self:; weight:") }

-- torch.gradient: one tensor per dim (a sequence), spacing a number, numbers or coordinates
local grad_doc = "Derivatives estimated by central differences in the interior and one-sided ones (edge_order 1 or 2) at the ends, one per dim"
local function gradient(overload, spacing, dim, doc)
  op { ("gradient.%s(Tensor self, *, %s%sint edge_order=1) -> Tensor[]"):format(overload, spacing, dim), doc = doc }
end
gradient("scalarint", "Scalar? spacing=None, ", "Dim? dim=None, ", grad_doc .. " (all dims, or dim), samples spacing (default 1) apart.")
gradient("scalararray", "Scalar spacing, ", "Dim[] dim, ", "gradient along the dims in dim, samples spacing apart.")
gradient("array", "", "Dim[] dim, ", "gradient along the dims in dim, samples 1 apart.")
gradient("scalarrayint", "float[] spacing, ", "Dim? dim=None, ", "gradient with each dim's own sample spacing.")
gradient("scalarrayarray", "float[] spacing, ", "Dim[] dim, ", "gradient along dims with each one's sample spacing.")
gradient("tensorarrayint", "Tensor[] spacing, ", "Dim? dim=None, ", "gradient with each dim's 1-D sample coordinates.")
gradient("tensorarray", "Tensor[] spacing, ", "Dim[] dim, ", "gradient along dims with each one's 1-D sample coordinates.")
op { "histogramdd(Tensor self, int[] bins, *, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor[] bin_edges)",
     doc = "The histogram of the points in the rows of self (its last dim's size is the number of dims), bins per dim; range lo, hi per dim.",
     grad = not_implemented("self:; weight:") }
op { "histogramdd.int_bins(Tensor self, int bins, *, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor[] bin_edges)",
     doc = "histogramdd with the same number of bins in every dim.", grad = not_implemented("self:; weight:") }
op { "histogramdd.TensorList_bins(Tensor self, Tensor[] bins, *, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor[] bin_edges)",
     doc = "histogramdd with each dim's bin edges given.", grad = not_implemented("self:; bins:; weight:") }
