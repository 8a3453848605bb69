#!/usr/bin/python3
"""Write the contract goldens: what PyTorch (Debian's python3-torch) does for each case.

Each module in cases/ defines CASES, a dict name -> case. A case is a function (called with
no arguments) or a dict with a "make" function and options. The result is recorded as:
  - an error: {"error": message, "kind": exception type}
  - a tensor: dtype, shape, strides, storage offset, exact values (and repr when asked)
  - a Lua-representable plain value (number, bool, string, list)
The goldens are Lua files (tests/contract/goldens/<module>.lua) so the suite reads them with
`dofile` and never needs PyTorch. Run `make golden` to regenerate them.
"""
import importlib
import math
import os
import sys

# PyTorch prints some choices as Python sets (conv's "should be one of {'valid', 'same'}"),
# whose order follows string hashing: a fixed seed keeps the goldens from changing run to run
if os.environ.get("PYTHONHASHSEED") != "1":
    os.environ["PYTHONHASHSEED"] = "1"
    os.execv(sys.executable, [sys.executable] + sys.argv)

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "cases"))


def lua_str(s):
    out = ['"']
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 32 or ord(ch) > 126:
            for b in ch.encode("utf-8"):
                out.append("\\%03d" % b)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def lua_num(x):
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        if x == -(2**63):
            return "math.mininteger"
        return str(x)
    if math.isnan(x):  # the sign bit kept exactly (0/0's sign depends on the machine)
        if math.copysign(1.0, x) < 0:
            return '(string.unpack("<d", "\\0\\0\\0\\0\\0\\0\\248\\255"))'
        return '(string.unpack("<d", "\\0\\0\\0\\0\\0\\0\\248\\127"))'
    if math.isinf(x):
        return "(1/0)" if x > 0 else "(-1/0)"
    return x.hex() if x != int(x) or abs(x) >= 2**53 else repr(x)


def lua_value(v, indent=""):
    if v is None:
        return "nil"
    if isinstance(v, (bool, int, float)):
        return lua_num(v)
    if isinstance(v, str):
        return lua_str(v)
    if isinstance(v, (list, tuple)):
        return "{" + ", ".join(lua_value(x, indent) for x in v) + "}"
    if isinstance(v, dict):
        items = []
        for k in sorted(v):
            items.append("%s = %s" % (k if k.isidentifier() else "[" + lua_str(k) + "]",
                                      lua_value(v[k], indent + "  ")))
        return "{" + ", ".join(items) + "}"
    raise TypeError("cannot write %r to Lua" % (v,))


def flat_values(t):
    t = t.detach()
    if t.device.type == "meta":
        return None
    t = t.cpu()
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.float()
    return t.reshape(-1).tolist()


def describe_tensor(t, want_repr):
    d = {
        "dtype": str(t.dtype).replace("torch.", ""),
        "shape": list(t.shape),
        "strides": list(t.stride()),
        "offset": t.storage_offset(),
        "device": str(t.device),
        "requires_grad": t.requires_grad,
    }
    vals = flat_values(t)
    if vals is not None:
        d["values"] = vals
    if want_repr:
        d["repr"] = repr(t)
    return d


def record(case):
    opts = {}
    if isinstance(case, dict):
        opts = case
        fn = case["make"]
    else:
        fn = case
    try:
        result = fn()
        out = {}
        if isinstance(result, torch.Tensor):
            out["tensor"] = describe_tensor(result, opts.get("repr", False))
        elif isinstance(result, tuple) and result and all(isinstance(r, torch.Tensor) for r in result):
            out["tensors"] = [describe_tensor(r, opts.get("repr", False)) for r in result]
        elif isinstance(result, torch.dtype):
            out["value"] = str(result).replace("torch.", "")
        elif isinstance(result, torch.Size):
            out["value"] = list(result)
        else:
            out["value"] = result
    except Exception as ex:  # the golden of a misuse is PyTorch's exact message
        out = {"error": str(ex), "kind": type(ex).__name__}
    finally:
        torch.set_printoptions(profile="default")
        torch.set_printoptions(sci_mode=None)
        torch.set_default_dtype(torch.float32)
    for k in ("print", "default_dtype", "tol", "expect"):
        if opts.get(k) is not None:
            out[k] = opts[k]
    if "call" in opts:  # an op call the Lua side replays (cases/_opcase.py)
        out["call"] = dict(opts["call"], args=opts["describe_args"]())
    return out


def main():
    names = sys.argv[1:] or sorted(f[:-3] for f in os.listdir(os.path.join(HERE, "cases"))
                                   if f.endswith(".py") and not f.startswith("_"))
    for name in names:
        mod = importlib.import_module(name)
        torch.manual_seed(0)
        lines = ["-- GENERATED by tests/contract/gen_goldens.py from cases/%s.py with PyTorch %s."
                 % (name, torch.__version__), "-- Do not edit: run `make golden`.", "return {"]
        for case_name in sorted(mod.CASES):
            case = mod.CASES[case_name]
            if isinstance(case, dict) and "reseed" in case:
                case["reseed"](case_name)
            lines.append("  [%s] = %s," % (lua_str(case_name), lua_value(record(mod.CASES[case_name]))))
        lines.append("}")
        path = os.path.join(HERE, "goldens", name + ".lua")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        print("wrote %s (%d cases)" % (os.path.relpath(path), len(mod.CASES)))


if __name__ == "__main__":
    main()
