"""_opcase.py: describe an op call once, so PyTorch records it and mindtorch replays it.

A case is `call(fn, *args, **opts)`: args are input specs (`T(dtype, shape, layout)`) or plain
values. The golden stores the call (function name, whether it is a method, the materialized
inputs with their layouts, keyword arguments, which arguments are dims) next to PyTorch's
result, and tests/contract/harness.lua rebuilds the same tensors in Lua (same values, same
strides) and calls the same function with dims shifted to 1-based.
"""
import zlib

import torch

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
ALL = FLOATS + INTS + ["bool"]
NUMS = FLOATS + INTS

_seed = [1000]


class T:
    """An input tensor: dtype, logical shape, layout, value domain."""

    def __init__(self, dtype, shape, layout="contig", domain=None, base_shape=None):
        self.dtype, self.shape, self.layout, self.domain = dtype, list(shape), layout, domain
        self.base_shape = base_shape
        _seed[0] += 1
        self.seed = _seed[0]

    def _values(self, shape):
        g = torch.Generator().manual_seed(self.seed)
        dt = getattr(torch, self.dtype)
        n = 1
        for s in shape:
            n *= s
        if self.dtype == "bool":
            v = torch.randint(0, 2, (n,), generator=g).bool()
        elif self.dtype == "uint8":
            v = torch.randint(0, 11, (n,), generator=g)
        elif self.dtype in INTS:
            v = torch.randint(-5, 6, (n,), generator=g)
        else:
            u = torch.rand((n,), generator=g, dtype=torch.float64)
            if self.domain == "pos":
                v = u * 3 + 0.125
            elif self.domain == "unit":
                v = u * 1.8 - 0.9
            else:
                v = u * 6 - 3
            v = (v * 64).round() / 64 if self.domain == "exact" else v
        if self.domain == "nonzero" and self.dtype != "bool":
            v = torch.where(v == 0, torch.ones_like(v), v)
        if self.domain in ("pos", "nonzero") and self.dtype in INTS:
            v = v.abs() + 1 if self.domain == "pos" else v
        return v.to(dt).reshape(shape)

    def make(self):
        """The tensor, laid out as asked."""
        shape = self.shape
        if self.layout == "contig":
            return self._values(shape)
        if self.layout == "t":  # a permuted view: strides of the reversed-dims contiguous base
            rev = list(range(len(shape)))[::-1]
            return self._values(shape[::-1]).permute(rev)
        if self.layout == "expand":
            return self._values(self.base_shape).expand(shape)
        if self.layout == "sliced":  # every other element of the last dim
            base = self._values(shape[:-1] + [2 * shape[-1]])
            return base[..., ::2]
        raise ValueError(self.layout)

    def describe(self, t):
        d = {"dtype": self.dtype, "shape": self.shape, "layout": self.layout}
        src = t if self.layout != "expand" else self._values(self.base_shape)
        if self.layout == "expand":
            d["base_shape"] = self.base_shape
        vals = src.detach()
        if vals.dtype in (torch.float16, torch.bfloat16):
            vals = vals.float()
        d["values"] = vals.reshape(-1).tolist()
        return d


class V(T):
    """An input tensor with given values (special values: NaN, inf, -0.0, ties)."""

    def __init__(self, values, dtype="float32"):
        super().__init__(dtype, list(torch.tensor(values).shape))
        self.values = values

    def _values(self, shape):
        return torch.tensor(self.values, dtype=getattr(torch, self.dtype)).reshape(shape)


class G:
    """A generator argument: torch.Generator().manual_seed(seed) on both sides."""

    def __init__(self, seed):
        self.seed = seed

    def make(self):
        return torch.Generator().manual_seed(self.seed)


def _plain(v):
    if isinstance(v, G):
        return {"generator_seed": v.seed}
    if isinstance(v, torch.dtype):
        return {"dtype_name": str(v).replace("torch.", "")}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _tensors(v):
    """A tensor argument, or a list of them."""
    return isinstance(v, T) or (isinstance(v, list) and bool(v) and all(isinstance(x, T) for x in v))


def call(fn, *args, method=False, dims=(), kw=None, tol=None, expect=None, index=(), via=None,
         index_out=(), seed=None):
    """A case: `fn` (a torch function name, or a method when method=True) applied to args.

    dims: positions (ints) or keyword names holding dims (shifted to 1-based in Lua)
    index: positions or keyword names holding index tensors (values shifted in Lua)
    index_out: result positions that are index tensors (1-based in Lua)
    via: a Python callable to use instead of getattr(torch, fn) (e.g. an operator)
    seed: torch.manual_seed(seed) just before the call (random ops)
    """
    kw = kw or {}

    def materialize(a):
        if isinstance(a, T):
            return a.make()
        if isinstance(a, list) and a and all(isinstance(x, T) for x in a):
            return [x.make() for x in a]
        if isinstance(a, G):
            return a.make()
        return a

    def describe_one(a, t):
        if isinstance(a, T):
            return {"tensor": a.describe(t)}
        if isinstance(a, list) and a and all(isinstance(x, T) for x in a):
            return {"tensors": [x.describe(y) for x, y in zip(a, t)]}
        return {"value": _plain(a)}

    def run():
        real = [materialize(a) for a in args]
        # described now: an in-place op may change them
        run.described = [describe_one(a, t) for a, t in zip(args, real)]
        real_kw = {k: materialize(v) for k, v in kw.items()}
        for k, v in kw.items():  # tensor keyword arguments (weights=...): described as the args
            if _tensors(v):
                case["call"]["kw"][k] = describe_one(v, real_kw[k])
        if seed is not None:
            torch.manual_seed(seed)
        if via is not None:
            return via(*real, **real_kw)
        if method:
            return getattr(real[0], fn)(*real[1:], **real_kw)
        return getattr(torch, fn)(*real, **real_kw)

    def describe():
        return run.described

    def reseed(name):
        """Input values drawn from the case's name: adding a case elsewhere changes no other."""
        base = zlib.crc32(name.encode()) * 16
        k = 0
        for a in list(args) + list(kw.values()):
            for t in (a if isinstance(a, list) else [a]):
                if isinstance(t, T):
                    t.seed = base + k
                    k += 1

    case = {"make": run, "call": {"fn": fn, "method": method,
                                  "kw": {k: None if _tensors(v) else _plain(v) for k, v in kw.items()},
                                  "dims": list(dims), "index": list(index), "index_out": list(index_out),
                                  "seed": seed},
            "describe_args": describe, "reseed": reseed}
    if tol is not None:  # per result dtype: {"float32": 2e-6, ...}, or one number
        case["tol"] = tol
    if expect is not None:
        case["expect"] = expect
    return case


def layouts(dtype, shape=(3, 4), domain=None):
    """The layouts every op is run on: contiguous, transposed, broadcast, 0-d, empty."""
    return {
        "contig": T(dtype, shape, domain=domain),
        "t": T(dtype, shape, "t", domain=domain),
        "sliced": T(dtype, shape, "sliced", domain=domain),
        "0d": T(dtype, [], domain=domain),
        "empty": T(dtype, [0, shape[-1]], domain=domain),
    }
