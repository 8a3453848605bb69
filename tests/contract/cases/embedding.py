"""nn.Embedding and F.embedding: the padding row as stored (no gradient), max_norm's in-place
renormalisation, scale_grad_by_freq, from_pretrained, reprs and errors. Indices in Lua are these
plus one."""
import torch
from torch import nn
from torch.nn import functional as F

D = torch.float64
IDX = torch.tensor([[0, 2, 2, 3], [3, 1, 2, 0]])


def weight():
    return (torch.arange(15, dtype=D).reshape(5, 3) * 0.37).sin().mul(2).requires_grad_()


def run(**kw):
    w = weight()
    out = F.embedding(IDX, w, **kw)
    (out * (torch.arange(out.numel(), dtype=D).reshape(out.shape) * 0.29).cos()).sum().backward()
    return (out.detach(), w.grad, w.detach())


CASES = {
    "plain": lambda: run(),
    "padding": lambda: run(padding_idx=2),
    "padding_negative": lambda: run(padding_idx=-2),
    "max_norm": lambda: run(max_norm=1.5),
    "max_norm_p1": lambda: run(max_norm=2.0, norm_type=1.0),
    "scale_grad_by_freq": lambda: run(scale_grad_by_freq=True),
    "scale_padding": lambda: run(scale_grad_by_freq=True, padding_idx=3),
    "from_pretrained": lambda: nn.Embedding.from_pretrained(weight().detach(), padding_idx=1)(IDX),
    "from_pretrained_frozen": lambda: nn.Embedding.from_pretrained(weight().detach()).weight.requires_grad,
    "from_pretrained_trainable": lambda: nn.Embedding.from_pretrained(weight().detach(), freeze=False)
    .weight.requires_grad,
    "repr_all": lambda: repr(nn.Embedding(5, 3, max_norm=1.0, norm_type=3.0, scale_grad_by_freq=True, sparse=True)),
    "int32_indices": lambda: F.embedding(IDX.int(), weight().detach()),
    "error_indices_byte": lambda: F.embedding(IDX.byte(), weight()),
    "error_indices_float": lambda: F.embedding(IDX.double(), weight()),
    "error_module_indices_short": lambda: nn.Embedding(5, 3)(IDX.short()),
    "error_padding": lambda: F.embedding(IDX, weight(), padding_idx=5),
    "error_weight_shape": lambda: nn.Embedding(5, 3, _weight=torch.zeros(4, 3)),
    "error_pretrained_dims": lambda: nn.Embedding.from_pretrained(torch.zeros(3)),
}
