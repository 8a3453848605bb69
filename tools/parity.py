#!/usr/bin/python3
"""make parity: how much of PyTorch 1.13's public surface mindtorch has, per namespace.

PyTorch (python3-torch) lists its public names; the names left out of the count are data below,
each with its reason. tools/parity_have.lua asks mindtorch (through luamt) which of the others
exist. Prints a table per namespace and writes doc/parity.md: the table, the missing names and
the left-out ones with their reasons.

    /usr/bin/python3 tools/parity.py --luamt build/luamt --out doc/parity.md
"""
import argparse
import inspect
import os
import re
import subprocess
import sys
import tempfile

import torch
import torch.nn
import torch.nn.functional
import torch.optim
import torch.optim.lr_scheduler
import torch.utils.data

# (pattern, reason): a name matching the pattern (a regular expression on the whole name) is
# left out of every namespace's count, for this reason. Honest reasons only: what a later issue
# builds or what has no meaning outside Python/CUDA, never "hard".
EXCLUDED = [
    (r".*sparse.*|.*_coo.*|.*csr.*|.*csc.*|.*bsr.*|.*bsc.*|smm|hsmm|dsmm|hspmm|spmm|saddmm|sspaddmm|"
     r"to_dense|coalesce|is_coalesced|indices|values|dense_dim|sparse_dim|indices_copy|values_copy|"
     r"row_indices.*|col_indices.*|crow_indices.*|ccol_indices.*|to_mkldnn|segment_reduce|SparseAdam",
     "sparse tensors (not planned yet)"),
    (r"quantize_.*|dequantize|q_.*|qscheme|int_repr|is_quantized|fake_quantize.*|quantized_.*|"
     r"choose_qparams.*|fbgemm_.*|fused_moving_avg_obs_fake_quant|empty_quantized", "quantization"),
    (r"jit|script|trace|compile|fork|wait|import_ir_module.*|parse_ir|parse_schema|parse_type_comment|"
     r"merge_type_from_type_comment|unify_type_list|candidate|.*vital.*|obj|classproperty",
     "TorchScript / JIT internals"),
    (r"cudnn_.*|miopen_.*|mkldnn_.*|is_vulkan_available",
     "a specific accelerator library's kernels (cuDNN, MIOpen, oneDNN, Vulkan)"),
    (r"complex|polar|view_as_complex.*|view_as_real.*|angle|cdouble|cfloat|chalf|is_complex_dtype|"
     r"stft|istft|eig|eigvals|.*fft.*|sgn_", "complex numbers (the complex-number issue)"),
    (r"numpy|from_numpy|from_dlpack|to_dlpack|as_subclass|prepare_multiprocessing_environment|"
     r"__array.*|storage_offset_|has_names|names|name|refine_names|rename|rename_|align_to|"
     r"align_as|align_tensors|_nnz", "Python-only (NumPy, DLPack, named tensors)"),
    (r"autocast.*|.*_autocast_.*|clear_autocast_cache", "automatic mixed precision (with the CUDA issue)"),
    (r"native_.*|batch_norm_backward.*|batch_norm_elemt|batch_norm_gather_stats.*|batch_norm_stats|"
     r"batch_norm_update_stats|.*_backward", "ATen internals behind other ops (SyncBatchNorm, autograd)"),
    (r"is_distributed|reinforce|volatile|set_flush_denormal|init_num_threads|compiled_with_cxx11_abi|"
     r"set_vital|is_warn_always_enabled_internal", "legacy or build-specific"),
    (r"assert_int_or_pair|boolean_dispatch|handle_torch_function|has_torch_function.*|bind|namedtuple|Tensor|"
     r"PackedSequence_", "Python plumbing imported into the namespace (torch-function overrides, namedtuple "
     "bases, typing helpers)"),
    (r"DFIterDataPipe|IterDataPipe|MapDataPipe|DataChunk|DataLoader2|functional_datapipe|"
     r"guaranteed_datapipes_determinism|non_deterministic|runtime_validation|runtime_validation_disabled|"
     r"argument_validation", "DataPipes and DataLoader2 (1.13's beta/prototype API, since moved out to TorchData)"),
    (r"DataParallel", "one process driving several GPUs (with the CUDA issue; DistributedDataParallel is the "
     "distributed issue's)"),
]


def excluded_reason(name):
    for pat, reason in EXCLUDED:
        if re.fullmatch(pat, name):
            return reason
    return None


def routines(mod):
    return sorted(n for n in dir(mod) if not n.startswith("_") and inspect.isroutine(getattr(mod, n)))


def classes(mod, base=None):
    out = []
    for n in dir(mod):
        if n.startswith("_"):
            continue
        v = getattr(mod, n)
        if inspect.isclass(v) and (base is None or issubclass(v, base)):
            out.append(n)
    return sorted(out)


def namespaces():
    tensor_names = sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    return [
        ("torch", "torch", routines(torch)),
        ("Tensor", "Tensor", tensor_names),
        ("torch.linalg", "linalg", routines(torch.linalg)),
        ("torch.special", "special", routines(torch.special)),
        ("torch.nn (modules)", "nn", classes(torch.nn, torch.nn.Module)),
        ("torch.nn.functional", "functional", routines(torch.nn.functional)),
        ("torch.nn.utils", "nn_utils", routines(torch.nn.utils)),
        ("torch.nn.utils.rnn", "nn_utils_rnn", routines(torch.nn.utils.rnn) + classes(torch.nn.utils.rnn)),
        ("torch.optim", "optim", classes(torch.optim, torch.optim.Optimizer)),
        ("torch.optim.lr_scheduler", "lr_scheduler", [n for n in classes(torch.optim.lr_scheduler)
                                                       if n not in ("Optimizer", "Counter")]),
        ("torch.utils.data", "data", sorted(n for n in dir(torch.utils.data) if not n.startswith("_")
                                            and not inspect.ismodule(getattr(torch.utils.data, n))
                                            and n not in ("T", "T_co"))),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--luamt", default="build/luamt")
    ap.add_argument("--out", default="doc/parity.md")
    a = ap.parse_args()
    spaces = namespaces()
    rows, missing, left_out = [], {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        query = os.path.join(tmp, "names.txt")
        with open(query, "w") as f:
            for title, key, names in spaces:
                for n in names:
                    if not excluded_reason(n):
                        f.write("%s %s\n" % (key, n))
        here = os.path.dirname(os.path.abspath(__file__))
        out = subprocess.run([a.luamt, os.path.join(here, "parity_have.lua"), query],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("parity_have.lua failed:\n" + out.stderr)
        have = set(tuple(line.split()) for line in out.stdout.splitlines() if line.strip())
    for title, key, names in spaces:
        counted = [n for n in names if not excluded_reason(n)]
        got = [n for n in counted if (key, n) in have]
        missing[title] = [n for n in counted if (key, n) not in have]
        left_out[title] = [(n, excluded_reason(n)) for n in names if excluded_reason(n)]
        pct = 100.0 * len(got) / len(counted) if counted else 100.0
        rows.append((title, len(got), len(counted), pct, len(left_out[title])))
    total_have = sum(r[1] for r in rows[:4])
    total = sum(r[2] for r in rows[:4])
    lines = ["| namespace | mindtorch has | of | % | left out |", "|---|---|---|---|---|"]
    for t, g, c, p, x in rows:
        lines.append("| %s | %d | %d | %.1f | %d |" % (t, g, c, p, x))
    lines.append("| torch + Tensor + linalg + special | %d | %d | %.1f | |" % (total_have, total, 100.0 * total_have / total))
    table = "\n".join(lines)
    print(table)
    doc = ["# Parity with PyTorch 1.13's public names", "",
           "Written by `make parity` (tools/parity.py, PyTorch %s): the public names of each namespace, "
           "less those left out for the reasons listed below, and how many mindtorch has. Do not edit." %
           torch.__version__, "", table, "", "## Missing", ""]
    for title, _, _ in spaces:
        doc.append("- **%s** (%d): %s" % (title, len(missing[title]), ", ".join("`%s`" % n for n in missing[title]) or "none"))
    doc += ["", "## Left out of the count, with the reason", ""]
    for title, _, _ in spaces:
        by_reason = {}
        for n, r in left_out[title]:
            by_reason.setdefault(r, []).append(n)
        for r, ns in sorted(by_reason.items()):
            doc.append("- **%s**, %s: %s" % (title, r, ", ".join("`%s`" % n for n in ns)))
    with open(a.out, "w") as f:
        f.write("\n".join(doc) + "\n")


if __name__ == "__main__":
    main()
