"""nn.Module's own surface: full backward hooks (what they see, replacing grad_input, inputs
that need no gradient), get_parameter/get_buffer, extra state in state_dict, load_state_dict
post hooks and its error header, type()/bfloat16()/to_empty()."""
import torch
from torch import nn

D = torch.float64


def wave(shape, f, off=0.0):
    n = 1
    for s in shape:
        n *= s
    return torch.arange(n, dtype=D).reshape(shape).mul(f).add(off).sin()


def bilinear():
    torch.manual_seed(0)
    return nn.Bilinear(3, 2, 4).double()


def full_hook(replace=False, second_needs_grad=True):
    m = bilinear()
    seen = []

    def hook(mod, gi, go):
        seen.extend([g for g in gi if g is not None] + list(go))
        if replace:
            return tuple(None if g is None else g * 3 for g in gi)

    m.register_full_backward_hook(hook)
    x1 = wave((5, 3), 0.3).requires_grad_()
    x2 = wave((5, 2), 0.7).requires_grad_(second_needs_grad)
    (m(x1, x2) * wave((5, 4), 0.11)).sum().backward()
    out = seen + [x1.grad, m.weight.grad]
    if second_needs_grad:
        out.append(x2.grad)
    return tuple(out)


def hook_inputs_frozen():
    """No input needs a gradient: the hook still runs, grad_input all None."""
    m = bilinear()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go[0].clone())))
    (m(wave((5, 3), 0.3), wave((5, 2), 0.7)) * wave((5, 4), 0.11)).sum().backward()
    gi, go = seen[0]
    return [len(seen), len(gi), gi[0] is None and gi[1] is None, go.shape[0]]


class WithExtra(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.count = 0

    def get_extra_state(self):
        return {"count": self.count}

    def set_extra_state(self, state):
        self.count = state["count"] + 1


def extra_state():
    m = WithExtra()
    m.count = 4
    sd = m.state_dict()
    m2 = WithExtra()
    m2.load_state_dict(sd)
    return [sorted(sd.keys()), sd["_extra_state"]["count"], m2.count]


def post_hook():
    m = nn.Sequential(nn.Linear(2, 2))
    calls = []

    def hook(mod, keys):
        calls.append((list(keys.missing_keys), list(keys.unexpected_keys)))
        keys.unexpected_keys.clear()  # forgiven: strict loading then passes

    m.register_load_state_dict_post_hook(hook)
    sd = m.state_dict()
    sd["extra"] = torch.zeros(1)
    m.load_state_dict(sd)
    return [len(calls), calls[0][0], calls[0][1]]


def sequential():
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    return m


CASES = {
    "full_hook": lambda: full_hook(),
    "full_hook_replace": lambda: full_hook(replace=True),
    "full_hook_one_input": lambda: full_hook(second_needs_grad=False),
    "hook_inputs_frozen": hook_inputs_frozen,
    "get_parameter": lambda: sequential().get_parameter("0.weight").shape,
    "get_buffer": lambda: sequential().get_buffer("1.running_var"),
    "error_get_parameter_missing": lambda: sequential().get_parameter("0.foo"),
    "error_get_parameter_module": lambda: sequential().get_parameter("0"),
    "error_get_parameter_path": lambda: sequential().get_parameter("2.weight"),
    "error_get_buffer_param": lambda: sequential().get_buffer("1.weight"),
    "extra_state": extra_state,
    "error_extra_state": lambda: nn.Linear(2, 2).get_extra_state(),
    "post_hook": post_hook,
    "error_load_header": lambda: nn.Linear(2, 2).load_state_dict({"weight": torch.zeros(2, 2)}),
    "type_int": lambda: [str(t.dtype)[6:] for _, t in sorted(sequential().type(torch.float64).state_dict().items())],
    "bfloat16": lambda: [str(t.dtype)[6:] for _, t in sorted(sequential().bfloat16().state_dict().items())],
    "to_empty": lambda: [list(t.shape) for _, t in sorted(sequential().to_empty(device="cpu").state_dict().items())],
}
