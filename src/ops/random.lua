-- Random sampling. The CPU generator reproduces PyTorch's streams (doc/rng.md); every op takes
-- an optional generator (the device's default generator otherwise).
local fac = "*, Generator? generator=None, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool pin_memory=False"
local like = "*, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, str? memory_format=None"
local gen = "*, Generator? generator=None"

-- in place (random_.to comes before random_.from: x:random_(n) is [0, n), as in PyTorch)
op { "uniform_(Tensor(a!) self, float from=0, float to=1, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with numbers drawn uniformly from [from, to)." }
op { "normal_(Tensor(a!) self, float mean=0, float std=1, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with numbers drawn from the normal distribution N(mean, std^2)." }
op { "random_.to(Tensor(a!) self, int to, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with integers drawn uniformly from [0, to)." }
op { "random_.from(Tensor(a!) self, int from, int? to, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with integers drawn uniformly from [from, to) (up to the dtype's limit with {from = n})." }
op { "random_(Tensor(a!) self, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with integers drawn uniformly over the dtype's range (its exact integers for floats)." }
op { "exponential_(Tensor(a!) self, float lambd=1, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with numbers drawn from the exponential distribution of rate lambd." }
op { "bernoulli_.Tensor(Tensor(a!) self, Tensor p, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with 1 with probability p (broadcast to self), else 0." }
op { "bernoulli_.float(Tensor(a!) self, float p=0.5, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with 1 with probability p, else 0." }

-- factories
op { "rand(SymInt[] size, " .. fac .. ") -> Tensor", doc = "Numbers drawn uniformly from [0, 1)." }
op { "randn(SymInt[] size, " .. fac .. ") -> Tensor", doc = "Numbers drawn from the standard normal distribution." }
op { "randint(int high, SymInt[] size, " .. fac .. ") -> Tensor",
     doc = "Integers drawn uniformly from [0, high) (int64 unless dtype says otherwise)." }
op { "randint.low(int low, int high, SymInt[] size, " .. fac .. ") -> Tensor",
     doc = "Integers drawn uniformly from [low, high)." }
op { "randperm(int n, " .. fac .. ") -> IndexTensor",
     doc = "A random permutation of the positions 1..n (int64 unless dtype says otherwise)." }
op { "normal.float_float(float mean, float std, SymInt[] size, " .. fac .. ") -> Tensor",
     doc = "Numbers drawn from N(mean, std^2), of the given size." }
op { "rand_like(Tensor self, " .. like .. ") -> Tensor", doc = "rand shaped like self." }
op { "randn_like(Tensor self, " .. like .. ") -> Tensor", doc = "randn shaped like self." }
op { "randint_like(Tensor self, int high, " .. like .. ") -> Tensor", doc = "randint shaped like self." }
op { "randint_like.low_dtype(Tensor self, int low, int high, " .. like .. ") -> Tensor",
     doc = "randint from [low, high) shaped like self." }

-- functions of tensors
op { "normal.Tensor_float(Tensor mean, float std=1, " .. gen .. ") -> Tensor",
     doc = "Numbers drawn from N(mean, std^2), one per element of mean." }
op { "normal.float_Tensor(float mean, Tensor std, " .. gen .. ") -> Tensor",
     doc = "Numbers drawn from N(mean, std^2), one per element of std." }
op { "normal.Tensor_Tensor(Tensor mean, Tensor std, " .. gen .. ") -> Tensor",
     doc = "Numbers drawn from N(mean, std^2), mean and std broadcast together." }
op { "bernoulli(Tensor self, " .. gen .. ") -> Tensor", variants = "function, method",
     doc = "1 with probability self (element-wise), else 0." }
op { "bernoulli.p(Tensor self, float p, " .. gen .. ") -> Tensor", variants = "function, method",
     doc = "1 with probability p, else 0, shaped like self." }
op { "multinomial(Tensor self, int num_samples, bool replacement=False, " .. gen .. ") -> IndexTensor",
     variants = "function, method",
     doc = "num_samples positions (1-based) drawn from the categories weighted by each row of self." }
op { "dropout(Tensor input, float p, bool train) -> Tensor",
     doc = "Zeroes elements with probability p and scales the rest by 1/(1-p) (train); input itself otherwise." }
op { "dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)", doc = "dropout in place." }

-- more distributions (doc/rng.md, sections 11-14): each draws per element in memory order
local zero_grad = { fn = "mt_bw_zero_grads", uses = "self:" }
op { "cauchy_(Tensor(a!) self, float median=0, float sigma=1, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with numbers drawn from the Cauchy distribution of the given median and scale.",
     grad = zero_grad }
op { "log_normal_(Tensor(a!) self, float mean=1, float std=2, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with exp of numbers drawn from N(mean, std^2).", grad = zero_grad }
op { "geometric_(Tensor(a!) self, float p, " .. gen .. ") -> Tensor(a!)", variants = "method",
     doc = "Fills self with the number of Bernoulli(p) trials up to the first success (1, 2, ...).",
     grad = zero_grad }
op { "poisson(Tensor self, Generator? generator=None) -> Tensor",
     doc = "A number drawn from the Poisson distribution of rate self, per element.", grad = zero_grad }
op { "binomial(Tensor count, Tensor prob, Generator? generator=None) -> Tensor",
     doc = "The number of successes of count Bernoulli(prob) trials, per element.",
     grad = { node = "torch::autograd::NotImplemented", fn = "mt_bw_zero_grads", uses = "count:; prob:",
              flags = "MT_D_NOT_IMPLEMENTED" } }
