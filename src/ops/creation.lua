-- Creation (factory) operators. The binding applies requires_grad= and pin_memory= to the
-- result of any op that declares them, so kernels never see those two.
local fac = "*, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool pin_memory=False"
local like = "*, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, str? memory_format=None"

op { "empty(SymInt[] size, " .. fac .. ", str? memory_format=None) -> Tensor",
     doc = "An uninitialised tensor (laid out as memory_format says: contiguous_format, channels_last, channels_last_3d)." }
op { "zeros(SymInt[] size, " .. fac .. ") -> Tensor", doc = "A tensor filled with 0." }
op { "ones(SymInt[] size, " .. fac .. ") -> Tensor", doc = "A tensor filled with 1." }
op { "full(SymInt[] size, Scalar fill_value, " .. fac .. ") -> Tensor",
     doc = "A tensor filled with fill_value; its dtype follows the value when none is given." }
op { "empty_strided(SymInt[] size, SymInt[] stride, " .. fac .. ") -> Tensor",
     doc = "An uninitialised tensor with the given strides." }
op { "scalar_tensor(Scalar s, " .. fac .. ") -> Tensor", doc = "A 0-d tensor holding s." }
op { "arange(Scalar end, " .. fac .. ") -> Tensor", doc = "0, 1, ..., end-1 (values, not indices)." }
op { "arange.start(Scalar start, Scalar end, " .. fac .. ") -> Tensor",
     doc = "start, start+1, ... up to but excluding end." }
op { "arange.start_step(Scalar start, Scalar end, Scalar step=1, " .. fac .. ") -> Tensor",
     doc = "start, start+step, ... up to but excluding end." }
op { "linspace(Scalar start, Scalar end, int steps, " .. fac .. ") -> Tensor",
     doc = "steps values evenly spaced from start to end inclusive." }
op { "eye(int n, " .. fac .. ") -> Tensor", doc = "The n x n identity matrix." }
op { "eye.m(int n, int m, " .. fac .. ") -> Tensor", doc = "An n x m matrix with ones on the diagonal." }

op { "empty_like(Tensor self, " .. like .. ") -> Tensor",
     doc = "An uninitialised tensor shaped (and, when dense, strided) like self." }
op { "zeros_like(Tensor self, " .. like .. ") -> Tensor", doc = "zeros shaped like self." }
op { "ones_like(Tensor self, " .. like .. ") -> Tensor", doc = "ones shaped like self." }
op { "full_like(Tensor self, Scalar fill_value, " .. like .. ") -> Tensor",
     doc = "fill_value shaped like self." }
op { "logspace(Scalar start, Scalar end, int steps, float base=10.0, " .. fac .. ") -> Tensor",
     doc = "steps values base^x for x evenly spaced from start to end inclusive." }
op { "range.step(Scalar start, Scalar end, Scalar step=1, " .. fac .. ") -> Tensor",
     doc = "start, start+step, ... up to and including end (deprecated in PyTorch: use arange)." }
