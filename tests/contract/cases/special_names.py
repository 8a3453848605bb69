"""torch.special's public functions in PyTorch 1.13 (tests/contract/special_spec.lua checks
that mindtorch has each)."""
import torch

CASES = {
    "names": lambda: sorted(n for n in dir(torch.special) if not n.startswith("_")
                            and n not in ("Tensor", "torch", "common_args", "multi_dim_common")),
}
