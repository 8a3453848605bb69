"""nn.EmbeddingBag, F.embedding_bag and torch.embedding_bag (every mode, offsets and 2-D input,
include_last_offset, padding_idx, per_sample_weights, max_norm, scale_grad_by_freq: outputs and
gradients); nn.LocalResponseNorm, F.local_response_norm and nn.CrossMapLRN2d (PyTorch's own
backward); torch.ctc_loss. Indices, offsets, padding_idx, offset2bag, max-mode max_indices, CTC
labels and blank are these plus one in Lua."""
import torch
from torch import nn
from torch.nn import functional as F

D = torch.float64
IDX = torch.tensor([0, 2, 2, 4, 3, 1, 2, 0])  # Lua: + 1
OFFS = torch.tensor([0, 3, 3, 5])  # bags [0 2 2] [] [4 3] [1 2 0]
OFFS_LAST = torch.tensor([0, 3, 3, 5, 8])
IDX2 = torch.tensor([[0, 2, 2, 3], [3, 1, 2, 0], [4, 4, 1, 2]])


def weight():
    return (torch.arange(15, dtype=D).reshape(5, 3) * 0.37).sin().mul(2).requires_grad_()


def psw(n=8):
    return (torch.arange(n, dtype=D) * 0.61 + 0.3).cos().requires_grad_()


def cosw(out):
    return (torch.arange(out.numel(), dtype=D).reshape(out.shape) * 0.29).cos()


def run(inp=IDX, offsets=OFFS, with_psw=False, **kw):
    w = weight()
    p = psw(inp.numel()).reshape(inp.shape).detach().requires_grad_() if with_psw else None
    out = F.embedding_bag(inp, w, offsets, per_sample_weights=p, **kw)
    (out * cosw(out)).sum().backward()
    res = (out.detach(), w.grad, w.detach())
    return res + (p.grad,) if with_psw else res


def aten(mode, offsets=OFFS, include_last_offset=False, padding_idx=None):
    w = weight().detach()
    out, o2b, size, mx = torch.embedding_bag(w, IDX, offsets, False, mode, False, None, include_last_offset, padding_idx)
    o2b = o2b + 1  # empty in sum mode on float32 weights without padding_idx
    if mode == 2:
        mx = mx + 1
    return (out, o2b, size, mx)


def x_lrn(*shape):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=D).reshape(shape) * 0.53).sin().mul(1.7).requires_grad_()


def lrn(shape, size, **kw):
    x = x_lrn(*shape)
    out = F.local_response_norm(x, size, **kw)
    (out * cosw(out)).sum().backward()
    return (out.detach(), x.grad)


def cross(shape, size, *a):
    x = x_lrn(*shape)
    out = nn.CrossMapLRN2d(size, *a)(x)
    (out * cosw(out)).sum().backward()
    return (out.detach(), x.grad)


def log_probs():
    return (torch.arange(5 * 2 * 4, dtype=D).reshape(5, 2, 4) * 0.71).sin().log_softmax(2).detach().requires_grad_()


CTC_T = torch.tensor([[1, 2], [2, 1]])  # Lua: + 1


def ctc(*a, **kw):
    lp = log_probs()
    out = torch.ctc_loss(lp, CTC_T, [5, 4], [2, 2], *a, **kw)
    out.sum().backward()
    return (out.detach(), lp.grad)


def module_run():
    torch.manual_seed(3)
    m = nn.EmbeddingBag(5, 3, mode="sum", padding_idx=1)
    out = m(IDX, OFFS, per_sample_weights=psw().detach().float())
    out.sum().backward()
    return (m.weight.detach(), out.detach(), m.weight.grad)


CASES = {
    # F.embedding_bag with offsets
    "sum": lambda: run(mode="sum"),
    "mean": lambda: run(),
    "max": lambda: run(mode="max"),
    "sum_2d": lambda: run(IDX2, None, mode="sum"),
    "mean_2d": lambda: run(IDX2, None),
    "max_2d": lambda: run(IDX2, None, mode="max"),
    "sum_last": lambda: run(offsets=OFFS_LAST, include_last_offset=True, mode="sum"),
    "mean_last": lambda: run(offsets=OFFS_LAST, include_last_offset=True),
    "max_last": lambda: run(offsets=OFFS_LAST, include_last_offset=True, mode="max"),
    "sum_padding": lambda: run(mode="sum", padding_idx=2),
    "mean_padding": lambda: run(padding_idx=2),
    "max_padding": lambda: run(mode="max", padding_idx=2),
    "mean_padding_negative": lambda: run(padding_idx=-3),
    "mean_padding_2d": lambda: run(IDX2, None, padding_idx=4),
    "psw": lambda: run(mode="sum", with_psw=True),
    "psw_padding": lambda: run(mode="sum", with_psw=True, padding_idx=0),
    "psw_2d": lambda: run(IDX2, None, mode="sum", with_psw=True),
    "psw_last": lambda: run(offsets=OFFS_LAST, include_last_offset=True, mode="sum", with_psw=True),
    "max_norm_sum": lambda: run(mode="sum", max_norm=1.2),
    "max_norm_max": lambda: run(mode="max", max_norm=1.5, norm_type=1.0),
    "scale_sum": lambda: run(mode="sum", scale_grad_by_freq=True),
    "scale_mean_padding": lambda: run(scale_grad_by_freq=True, padding_idx=2),
    "empty_input": lambda: run(torch.tensor([], dtype=torch.long), torch.tensor([0, 0, 0]), mode="max"),
    "empty_input_mean": lambda: run(torch.tensor([], dtype=torch.long), torch.tensor([0, 0])),
    "trailing_empty": lambda: run(offsets=torch.tensor([0, 3, 8])),
    "int32": lambda: F.embedding_bag(IDX.int(), weight().detach(), OFFS.int(), mode="sum"),
    # torch.embedding_bag: ATen's four results
    "aten_sum": lambda: aten(0),
    "aten_mean": lambda: aten(1),
    "aten_max": lambda: aten(2),
    "aten_sum_padding": lambda: aten(0, padding_idx=2),
    "aten_mean_padding": lambda: aten(1, padding_idx=2),
    "aten_max_padding": lambda: aten(2, padding_idx=2),
    "aten_sum_last": lambda: aten(0, OFFS_LAST, True),
    "aten_max_last": lambda: aten(2, OFFS_LAST, True),
    "aten_sum_float32": lambda: torch.embedding_bag(weight().detach().float(), IDX, OFFS, mode=0),
    # nn.EmbeddingBag
    "module_default_init": lambda: (torch.manual_seed(0), nn.EmbeddingBag(5, 3).weight.detach())[1],
    "module_run": module_run,
    "module_2d": lambda: nn.EmbeddingBag(5, 3, mode="max", _weight=weight().detach())(IDX2),
    "module_last": lambda: nn.EmbeddingBag(5, 3, _weight=weight().detach(), include_last_offset=True)(IDX, OFFS_LAST),
    "module_state_dict": lambda: list(nn.EmbeddingBag(5, 3).state_dict().keys()),
    "module_mode": lambda: nn.EmbeddingBag(5, 3).mode,
    "module_padding_negative": lambda: nn.EmbeddingBag(5, 3, padding_idx=-2).padding_idx + 1,
    "repr_default": lambda: repr(nn.EmbeddingBag(5, 3)),
    "repr_all": lambda: repr(nn.EmbeddingBag(5, 3, max_norm=1.0, norm_type=3.0, scale_grad_by_freq=True, mode="sum",
                                             padding_idx=1)).replace("padding_idx=1", "padding_idx=2"),  # Lua: 1-based
    "from_pretrained": lambda: nn.EmbeddingBag.from_pretrained(weight().detach(), mode="max")(IDX, OFFS),
    "from_pretrained_frozen": lambda: nn.EmbeddingBag.from_pretrained(weight().detach()).weight.requires_grad,
    "from_pretrained_trainable": lambda: nn.EmbeddingBag.from_pretrained(weight().detach(), freeze=False)
    .weight.requires_grad,
    # errors
    "error_offsets_first": lambda: F.embedding_bag(IDX, weight(), torch.tensor([1, 3])),
    "error_offsets_last": lambda: F.embedding_bag(IDX, weight(), torch.tensor([0, 10])),
    "error_psw_mode": lambda: F.embedding_bag(IDX, weight(), OFFS, per_sample_weights=psw(), mode="max"),
    "error_psw_shape": lambda: F.embedding_bag(IDX, weight(), OFFS, per_sample_weights=psw(7), mode="sum"),
    "error_psw_dtype": lambda: F.embedding_bag(IDX, weight(), OFFS, per_sample_weights=psw().float(), mode="sum"),
    "error_aten_psw_mode": lambda: torch.embedding_bag(weight(), IDX, OFFS, False, 1, False, psw()),
    "error_2d_offsets": lambda: F.embedding_bag(IDX2, weight(), OFFS),
    "error_1d_no_offsets": lambda: F.embedding_bag(IDX, weight()),
    "error_offsets_2d": lambda: F.embedding_bag(IDX, weight(), OFFS.view(2, 2)),
    "error_3d": lambda: F.embedding_bag(IDX.view(2, 2, 2), weight()),
    "error_mode": lambda: F.embedding_bag(IDX, weight(), OFFS, mode="min"),
    "error_max_scale": lambda: F.embedding_bag(IDX, weight(), OFFS, mode="max", scale_grad_by_freq=True),
    "error_max_sparse": lambda: F.embedding_bag(IDX, weight(), OFFS, mode="max", sparse=True),
    "error_padding": lambda: F.embedding_bag(IDX, weight(), OFFS, padding_idx=5),
    "error_padding_negative": lambda: F.embedding_bag(IDX, weight(), OFFS, padding_idx=-6),
    "error_float_indices": lambda: F.embedding_bag(IDX.double(), weight(), OFFS),
    "error_module_padding": lambda: nn.EmbeddingBag(5, 3, padding_idx=5),
    "error_weight_shape": lambda: nn.EmbeddingBag(5, 3, _weight=torch.zeros(4, 3)),
    "error_pretrained_dims": lambda: nn.EmbeddingBag.from_pretrained(torch.zeros(3)),
    # local response norm
    "lrn_3d": lambda: lrn((2, 5, 3), 3),
    "lrn_4d": lambda: lrn((2, 4, 3, 2), 2, alpha=0.5, beta=0.6, k=1.5),
    "lrn_5d": lambda: lrn((1, 6, 2, 2, 3), 5, alpha=0.3),
    "lrn_size_past_channels": lambda: lrn((2, 3, 4), 8, alpha=0.9, beta=1.1, k=2.0),
    "lrn_module": lambda: nn.LocalResponseNorm(4, 0.2, 0.5, 2.0)(x_lrn(2, 5, 2, 2)).detach(),
    "lrn_repr": lambda: repr(nn.LocalResponseNorm(3)),
    "lrn_repr_all": lambda: repr(nn.LocalResponseNorm(2, alpha=0.5, beta=1.0, k=2)),
    "lrn_state_dict": lambda: list(nn.LocalResponseNorm(3).state_dict().keys()),
    "error_lrn_dims": lambda: F.local_response_norm(torch.ones(2, 3), 2),
    "cross_3": lambda: cross((2, 5, 2, 3), 3, 0.5, 0.75, 1.0),
    "cross_4": lambda: cross((2, 6, 2, 2), 4, 0.7, 0.6, 2.0),
    "cross_5": lambda: cross((1, 7, 3, 2), 5, 0.4, 1.2, 1.5),
    "cross_2": lambda: cross((2, 5, 2, 2), 2, 0.8),
    "cross_few_channels": lambda: cross((2, 2, 2, 2), 5, 0.9, 0.5),
    "cross_defaults": lambda: cross((2, 4, 2, 2), 3),
    "cross_repr": lambda: repr(nn.CrossMapLRN2d(3)),
    "cross_repr_all": lambda: repr(nn.CrossMapLRN2d(5, 0.5, 1.0, 2.0)),
    # torch.ctc_loss: ATen's form, reduction as an int (default 0, none, in 1.13's binding)
    "ctc_default": lambda: ctc(),
    "ctc_mean": lambda: ctc(0, 1),
    "ctc_sum_blank": lambda: ctc(blank=3, reduction=2),
    "ctc_zero_infinity": lambda: (lambda lp: torch.ctc_loss(lp, torch.tensor([[1, 1, 1, 1]]), [3], [4], 0, 0, True))(
        log_probs()[:, :1]),
}
