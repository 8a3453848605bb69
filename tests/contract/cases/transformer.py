"""The decoder side of nn's transformer: TransformerDecoderLayer, TransformerDecoder and the
whole nn.Transformer. Initial weights from a seed, float64 outputs and gradients (eval and
training mode), parameter names, reprs, errors, and a toy copy task trained from the same
initial weights (the loss trajectory and the final weights)."""
import torch
from torch import nn

D = torch.float64


def wave(shape, f, off=0.0):
    """Deterministic values in [-1, 1] (the Lua side computes the same)."""
    n = 1
    for s in shape:
        n *= s
    return torch.arange(n, dtype=D).reshape(shape).mul(f).add(off).sin()


def weighted_sum(ts):
    loss = 0
    for i, t in enumerate(ts):
        loss = loss + (t * wave(t.shape, 0.29 + 0.1 * i, 0.1 * i)).sum()
    return loss


TGT_CAUSAL = torch.tensor([[False, True, True], [False, False, True], [False, False, False]])
TGT_KPM = torch.tensor([[False, False, True], [False, False, False]])
MEM_KPM = torch.tensor([[False, False, False, True], [False, True, False, False]])
MEM_MASK = wave((3, 4), 0.83) * 2


def run(kind, norm_first=False, activation="relu", batch_first=False, masks=None, unbatched=False, train=False):
    """Output and the gradients of tgt, memory (src) and every parameter after backward of a
    weighted sum; eval mode unless train (then the dropout masks come from the generator)."""
    torch.manual_seed(3)
    kw = dict(activation=activation, batch_first=batch_first, norm_first=norm_first)
    if kind == "layer":
        m = nn.TransformerDecoderLayer(8, 2, 16, **kw)
    elif kind == "decoder":
        m = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, **kw), 2, norm=nn.LayerNorm(8))
    else:
        m = nn.Transformer(8, 2, 2, 2, 16, **kw)
    m.double()
    m.train(train)
    T, S, N = 3, 4, 2
    if unbatched:
        tshape, sshape = (T, 8), (S, 8)
    elif batch_first:
        tshape, sshape = (N, T, 8), (N, S, 8)
    else:
        tshape, sshape = (T, N, 8), (S, N, 8)
    tgt = wave(tshape, 0.37).requires_grad_()
    src = wave(sshape, 0.53, 0.2).requires_grad_()
    masks = masks or {}
    if kind == "transformer":
        out = m(src, tgt, **masks)
    else:
        out = m(tgt, src, **masks)
    weighted_sum([out]).backward()
    return tuple([out.detach(), tgt.grad, src.grad] + [p.grad for p in m.parameters()])


def init_of(make, seed=5):
    torch.manual_seed(seed)
    m = make()
    return tuple(p.detach() for p in m.parameters())


def keys_of(m):
    return sorted(m.state_dict().keys())


class CopyModel(nn.Module):
    """Embeddings, nn.Transformer and a projection to the vocabulary: the toy copy task."""

    def __init__(self, vocab=8, d=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.transformer = nn.Transformer(d, 2, 2, 2, 32, dropout=0.1)
        self.out = nn.Linear(d, vocab)

    def forward(self, src, tgt, tgt_mask):
        return self.out(self.transformer(self.embed(src), self.embed(tgt), tgt_mask=tgt_mask))


def copy_task(steps=12):
    """Adam on the copy task (target = the source, shifted right behind a start token), float64,
    dropout on: the losses at each step and the final output projection."""
    torch.manual_seed(11)
    model = CopyModel().double()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    seqs = (torch.arange(30).reshape(6, 5) * 7 + torch.arange(30).reshape(6, 5) // 4) % 6 + 2  # (S, N): tokens 2..7
    src = seqs
    tgt_in = torch.cat([torch.zeros(1, 5, dtype=torch.int64), seqs[:-1]])
    mask = nn.Transformer.generate_square_subsequent_mask(6).double()
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        logits = model(src, tgt_in, mask)
        loss = nn.functional.cross_entropy(logits.reshape(-1, 8), seqs.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return (torch.tensor(losses, dtype=D), model.out.weight.detach())


CASES = {
    "layer_relu": lambda: run("layer"),
    "layer_norm_first_gelu": lambda: run("layer", norm_first=True, activation="gelu"),
    "layer_batch_first_masks": lambda: run("layer", batch_first=True, masks=dict(
        tgt_mask=TGT_CAUSAL, tgt_key_padding_mask=TGT_KPM, memory_key_padding_mask=MEM_KPM)),
    "layer_float_memory_mask": lambda: run("layer", masks=dict(memory_mask=MEM_MASK)),
    "layer_unbatched": lambda: run("layer", unbatched=True, masks=dict(tgt_mask=TGT_CAUSAL)),
    "layer_train": lambda: run("layer", train=True),
    "decoder": lambda: run("decoder"),
    "decoder_norm_first_masks": lambda: run("decoder", norm_first=True, masks=dict(
        tgt_mask=TGT_CAUSAL, memory_key_padding_mask=MEM_KPM)),
    "transformer": lambda: run("transformer"),
    "transformer_batch_first_masks": lambda: run("transformer", batch_first=True, masks=dict(
        tgt_mask=TGT_CAUSAL, src_key_padding_mask=MEM_KPM, memory_key_padding_mask=MEM_KPM,
        tgt_key_padding_mask=TGT_KPM)),
    "transformer_norm_first_gelu": lambda: run("transformer", norm_first=True, activation="gelu"),
    "transformer_train": lambda: run("transformer", train=True),
    "init_layer": lambda: init_of(lambda: nn.TransformerDecoderLayer(8, 2, 16)),
    "init_transformer": lambda: init_of(lambda: nn.Transformer(8, 2, 1, 2, 16)),
    "names_layer": lambda: [n for n, _ in nn.TransformerDecoderLayer(8, 2, 16).named_parameters()],
    "keys_transformer": lambda: keys_of(nn.Transformer(8, 2, 1, 1, 16)),
    "keys_decoder_no_norm": lambda: keys_of(nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2)),
    "repr_layer": lambda: repr(nn.TransformerDecoderLayer(8, 2, 16, layer_norm_eps=1e-6)),
    "repr_layer_gelu_module": lambda: repr(nn.TransformerDecoderLayer(8, 2, 16, activation=nn.GELU())),
    "repr_transformer": lambda: repr(nn.Transformer(8, 2, 1, 1, 16)),
    "square_mask": lambda: nn.Transformer.generate_square_subsequent_mask(4),
    "copy_task": copy_task,
    "error_batch": lambda: nn.Transformer(8, 2, 1, 1, 16)(torch.randn(4, 2, 8), torch.randn(3, 3, 8)),
    "error_d_model": lambda: nn.Transformer(8, 2, 1, 1, 16)(torch.randn(4, 2, 8), torch.randn(3, 2, 6)),
    "error_activation": lambda: nn.TransformerDecoderLayer(8, 2, activation="tanh"),
    "error_heads": lambda: nn.TransformerDecoderLayer(8, 3),
}
