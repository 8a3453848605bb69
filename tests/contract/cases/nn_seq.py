"""Sequence layers: RNN/LSTM/GRU and their cells, MultiheadAttention, TransformerEncoderLayer
and TransformerEncoder: initial weights from a seed, float64 outputs and gradients, parameter
names, reprs and the errors of bad shapes."""
import torch
from torch import nn
from torch.nn import functional as F

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


def make_rnn(kind, input_size, hidden, **kw):
    if kind == "rnn_tanh":
        return nn.RNN(input_size, hidden, nonlinearity="tanh", **kw)
    if kind == "rnn_relu":
        return nn.RNN(input_size, hidden, nonlinearity="relu", **kw)
    if kind == "lstm":
        return nn.LSTM(input_size, hidden, **kw)
    return nn.GRU(input_size, hidden, **kw)


def rnn_run(kind, batch_first=False, h0=False, unbatched=False, num_layers=2, bidirectional=True, bias=True,
            proj_size=0):
    """Output, final states, and the gradients of the input, the initial states and every
    parameter (in named_parameters order) after backward of a weighted sum."""
    torch.manual_seed(0)
    kw = dict(num_layers=num_layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional)
    if proj_size:
        kw["proj_size"] = proj_size
    m = make_rnn(kind, 3, 4, **kw).double()
    T, B, nd = 5, 2, 2 if bidirectional else 1
    lstm = kind == "lstm"
    if unbatched:
        shape = (T, 3)
    else:
        shape = (B, T, 3) if batch_first else (T, B, 3)
    x = wave(shape, 0.37).requires_grad_()
    leaves = [x]
    hx = None
    if h0:
        hsize = proj_size or 4
        hshape = (num_layers * nd, hsize) if unbatched else (num_layers * nd, B, hsize)
        cshape = (num_layers * nd, 4) if unbatched else (num_layers * nd, B, 4)
        h = wave(hshape, 0.53, 0.2).requires_grad_()
        leaves.append(h)
        hx = h
        if lstm:
            c = wave(cshape, 0.71, -0.3).requires_grad_()
            leaves.append(c)
            hx = (h, c)
    out, hid = m(x, hx)
    states = list(hid) if lstm else [hid]
    weighted_sum([out] + states).backward()
    res = [out.detach()] + [s.detach() for s in states] + [t.grad for t in leaves]
    res += [p.grad for p in m.parameters()]
    return tuple(res)


def cell_run(kind, hx=False, unbatched=False, bias=True):
    torch.manual_seed(1)
    if kind == "rnn_tanh":
        m = nn.RNNCell(3, 4, bias=bias)
    elif kind == "rnn_relu":
        m = nn.RNNCell(3, 4, bias=bias, nonlinearity="relu")
    elif kind == "lstm":
        m = nn.LSTMCell(3, 4, bias=bias)
    else:
        m = nn.GRUCell(3, 4, bias=bias)
    m.double()
    x = wave((3,) if unbatched else (2, 3), 0.61, 0.3).requires_grad_()
    leaves = [x]
    state = None
    if hx:
        hshape = (4,) if unbatched else (2, 4)
        h = wave(hshape, 0.43, -0.5).requires_grad_()
        leaves.append(h)
        state = h
        if kind == "lstm":
            c = wave(hshape, 0.83, 0.7).requires_grad_()
            leaves.append(c)
            state = (h, c)
    out = m(x, state)
    outs = list(out) if kind == "lstm" else [out]
    weighted_sum(outs).backward()
    return tuple([o.detach() for o in outs] + [t.grad for t in leaves] + [p.grad for p in m.parameters()])


KPM = torch.tensor([[False, False, False, True], [False, True, False, False]])
KPM5 = torch.tensor([[False, False, False, True, False], [False, True, False, False, True]])
CAUSAL = torch.tensor([[False, True, True, True], [False, False, True, True], [False, False, False, True],
                       [False, False, False, False]])


def mha_run(mode="self", batch_first=False, unbatched=False, kdim=None, vdim=None, bias=True, add_bias_kv=False,
            add_zero_attn=False, kpm=None, attn_mask=None, need_weights=True, average=True):
    """mode: "self" (query is key is value), "encdec" (key is value), "separate"."""
    torch.manual_seed(2)
    m = nn.MultiheadAttention(8, 2, bias=bias, add_bias_kv=add_bias_kv, add_zero_attn=add_zero_attn, kdim=kdim,
                              vdim=vdim, batch_first=batch_first).double()
    L, N = 4, 2
    S = L if mode == "self" else 5

    def shape(length, e):
        if unbatched:
            return (length, e)
        return (N, length, e) if batch_first else (length, N, e)

    q = wave(shape(L, 8), 0.37).requires_grad_()
    leaves = [q]
    if mode == "self":
        k = v = q
    elif mode == "encdec":
        k = v = wave(shape(S, kdim or 8), 0.57, 0.4).requires_grad_()
        leaves.append(k)
    else:
        k = wave(shape(S, kdim or 8), 0.57, 0.4).requires_grad_()
        v = wave(shape(S, vdim or 8), 0.23, -0.2).requires_grad_()
        leaves += [k, v]
    out, w = m(q, k, v, key_padding_mask=kpm, need_weights=need_weights, attn_mask=attn_mask,
               average_attn_weights=average)
    outs = [out] if w is None else [out, w]
    weighted_sum(outs).backward()
    return tuple([o.detach() for o in outs] + [t.grad for t in leaves] + [p.grad for p in m.parameters()])


def mha_functional():
    """F.multi_head_attention_forward called directly, with static keys and values."""
    E, H, L, S, N = 8, 2, 3, 4, 2
    q = wave((L, N, E), 0.37).requires_grad_()
    k = wave((S, N, E), 0.57, 0.4)
    v = wave((S, N, E), 0.23)
    w = (wave((3 * E, E), 0.11) * 0.5).requires_grad_()
    b = wave((3 * E,), 0.13) * 0.1
    ow = (wave((E, E), 0.19) * 0.5).requires_grad_()
    ob = wave((E,), 0.7) * 0.1
    sk = wave((N * H, S, E // H), 0.31).requires_grad_()
    sv = wave((N * H, S, E // H), 0.41).requires_grad_()
    out, wts = F.multi_head_attention_forward(q, k, v, E, H, w, b, None, None, False, 0.0, ow, ob, training=False,
                                              static_k=sk, static_v=sv, average_attn_weights=False)
    weighted_sum([out, wts]).backward()
    return (out.detach(), wts.detach(), q.grad, w.grad, ow.grad, sk.grad, sv.grad)


def tel_run(encoder=False, norm_first=False, activation="relu", batch_first=False, mask=None, kpm=None,
            unbatched=False):
    torch.manual_seed(3)
    layer = nn.TransformerEncoderLayer(8, 2, 16, activation=activation, batch_first=batch_first,
                                       norm_first=norm_first)
    m = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8)) if encoder else layer
    m.double().eval()  # eval: no dropout
    L, N = 4, 2
    if unbatched:
        shape = (L, 8)
    else:
        shape = (N, L, 8) if batch_first else (L, N, 8)
    x = wave(shape, 0.37).requires_grad_()
    out = m(x, mask, kpm)
    weighted_sum([out]).backward()
    return tuple([out.detach(), x.grad] + [p.grad for p in m.parameters()])


def train_run(make, inputs):
    """Training mode: the dropout masks come from the global generator, as PyTorch draws them."""
    torch.manual_seed(4)
    m = make().double()
    xs = [wave(shape, 0.37 + 0.1 * i).requires_grad_() for i, shape in enumerate(inputs)]
    out = m(*xs)
    outs = [out] if isinstance(out, torch.Tensor) else [o for o in out if isinstance(o, torch.Tensor)]
    if isinstance(out, tuple) and isinstance(out[1], tuple):
        outs = [out[0], out[1][0], out[1][1]]
    weighted_sum(outs).backward()
    return tuple([o.detach() for o in outs] + [x.grad for x in xs] + [p.grad for p in m.parameters()])


def init_of(make, seed=5):
    torch.manual_seed(seed)
    m = make()
    return tuple(p.detach() for p in m.parameters())


def names_of(make):
    return [n for n, _ in make().named_parameters()]


def err_rnn(call):
    torch.manual_seed(0)
    return call


FLOAT_MASK = wave((4, 4), 0.77) * 2
FLOAT_MASK_3D = wave((4, 4, 4), 0.31, 0.5) * 1.5
FLOAT_KPM = wave((2, 4), 0.9) * 3

CASES = {
    # recurrent layers: 2 layers, bidirectional, both layouts, with and without (h0[, c0])
    "rnn_tanh": lambda: rnn_run("rnn_tanh"),
    "rnn_tanh_h0": lambda: rnn_run("rnn_tanh", h0=True),
    "rnn_tanh_batch_first": lambda: rnn_run("rnn_tanh", batch_first=True),
    "rnn_tanh_batch_first_h0": lambda: rnn_run("rnn_tanh", batch_first=True, h0=True),
    "rnn_relu": lambda: rnn_run("rnn_relu"),
    "rnn_relu_h0": lambda: rnn_run("rnn_relu", h0=True),
    "rnn_relu_batch_first": lambda: rnn_run("rnn_relu", batch_first=True),
    "rnn_relu_batch_first_h0": lambda: rnn_run("rnn_relu", batch_first=True, h0=True),
    "lstm": lambda: rnn_run("lstm"),
    "lstm_h0": lambda: rnn_run("lstm", h0=True),
    "lstm_batch_first": lambda: rnn_run("lstm", batch_first=True),
    "lstm_batch_first_h0": lambda: rnn_run("lstm", batch_first=True, h0=True),
    "gru": lambda: rnn_run("gru"),
    "gru_h0": lambda: rnn_run("gru", h0=True),
    "gru_batch_first": lambda: rnn_run("gru", batch_first=True),
    "gru_batch_first_h0": lambda: rnn_run("gru", batch_first=True, h0=True),
    # other shapes of the recurrent layers
    "rnn_tanh_one_layer": lambda: rnn_run("rnn_tanh", num_layers=1, bidirectional=False, h0=True),
    "lstm_three_layers_no_bias": lambda: rnn_run("lstm", num_layers=3, bidirectional=False, bias=False, h0=True),
    "gru_no_bias_bidirectional": lambda: rnn_run("gru", bias=False, batch_first=True),
    "lstm_unbatched": lambda: rnn_run("lstm", unbatched=True),
    "lstm_unbatched_h0": lambda: rnn_run("lstm", unbatched=True, h0=True),
    "gru_unbatched_h0": lambda: rnn_run("gru", unbatched=True, h0=True, batch_first=True),
    "rnn_relu_unbatched": lambda: rnn_run("rnn_relu", unbatched=True),
    "lstm_proj": lambda: rnn_run("lstm", proj_size=2, h0=True),
    "lstm_proj_batch_first": lambda: rnn_run("lstm", proj_size=3, batch_first=True),
    # cells
    "rnn_cell_tanh": lambda: cell_run("rnn_tanh"),
    "rnn_cell_tanh_hx": lambda: cell_run("rnn_tanh", hx=True),
    "rnn_cell_relu_hx": lambda: cell_run("rnn_relu", hx=True),
    "rnn_cell_unbatched": lambda: cell_run("rnn_tanh", hx=True, unbatched=True),
    "lstm_cell": lambda: cell_run("lstm"),
    "lstm_cell_hx": lambda: cell_run("lstm", hx=True),
    "lstm_cell_unbatched": lambda: cell_run("lstm", hx=True, unbatched=True),
    "lstm_cell_no_bias": lambda: cell_run("lstm", hx=True, bias=False),
    "gru_cell": lambda: cell_run("gru"),
    "gru_cell_hx": lambda: cell_run("gru", hx=True),
    "gru_cell_unbatched": lambda: cell_run("gru", unbatched=True),
    "gru_cell_no_bias": lambda: cell_run("gru", hx=True, bias=False),
    # multi-head attention
    "mha_self": lambda: mha_run(),
    "mha_self_batch_first": lambda: mha_run(batch_first=True),
    "mha_encdec": lambda: mha_run("encdec"),
    "mha_separate": lambda: mha_run("separate"),
    "mha_kdim_vdim": lambda: mha_run("separate", kdim=6, vdim=5),
    "mha_kdim_batch_first": lambda: mha_run("encdec", kdim=6, vdim=6, batch_first=True),
    "mha_kpm": lambda: mha_run(kpm=KPM),
    "mha_kpm_float": lambda: mha_run(kpm=FLOAT_KPM),
    "mha_attn_mask_bool": lambda: mha_run(attn_mask=CAUSAL),
    "mha_attn_mask_float": lambda: mha_run(attn_mask=FLOAT_MASK),
    "mha_attn_mask_3d": lambda: mha_run(attn_mask=FLOAT_MASK_3D),
    "mha_both_masks_bool": lambda: mha_run(kpm=KPM, attn_mask=CAUSAL),
    "mha_both_masks_float": lambda: mha_run(kpm=KPM, attn_mask=FLOAT_MASK, batch_first=True),
    "mha_no_weights": lambda: mha_run(need_weights=False),
    "mha_per_head_weights": lambda: mha_run("separate", average=False, kpm=KPM5),
    "mha_no_bias": lambda: mha_run("encdec", bias=False),
    "mha_bias_kv": lambda: mha_run("separate", add_bias_kv=True, kpm=KPM5),
    "mha_zero_attn": lambda: mha_run(add_zero_attn=True, attn_mask=CAUSAL, kpm=KPM),
    "mha_unbatched": lambda: mha_run("separate", unbatched=True, kpm=KPM5[0]),
    "mha_unbatched_self": lambda: mha_run(unbatched=True, attn_mask=FLOAT_MASK),
    "mha_functional_static_kv": mha_functional,
    # transformer encoder
    "tel_relu": lambda: tel_run(),
    "tel_norm_first": lambda: tel_run(norm_first=True),
    "tel_gelu_batch_first": lambda: tel_run(activation="gelu", batch_first=True),
    "tel_masks": lambda: tel_run(mask=CAUSAL, kpm=KPM),
    "tel_norm_first_gelu_masks": lambda: tel_run(norm_first=True, activation="gelu", mask=FLOAT_MASK, kpm=KPM),
    "tel_unbatched": lambda: tel_run(unbatched=True, mask=CAUSAL),
    "encoder": lambda: tel_run(encoder=True),
    "encoder_norm_first_masks": lambda: tel_run(encoder=True, norm_first=True, mask=CAUSAL, kpm=KPM),
    "encoder_gelu_batch_first": lambda: tel_run(encoder=True, activation="gelu", batch_first=True, kpm=KPM),
    # training mode: dropout between recurrent layers, on attention weights, in the encoder
    "lstm_dropout_train": lambda: train_run(lambda: nn.LSTM(3, 4, 3, dropout=0.4, bidirectional=True), [(5, 2, 3)]),
    "gru_dropout_train": lambda: train_run(lambda: nn.GRU(3, 4, 2, dropout=0.5, batch_first=True), [(2, 5, 3)]),
    "mha_dropout_train": lambda: train_run(lambda: nn.MultiheadAttention(8, 2, dropout=0.3),
                                           [(4, 2, 8), (5, 2, 8), (5, 2, 8)]),
    "encoder_train": lambda: train_run(lambda: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2, norm_first=True), 2), [(4, 2, 8)]),
    # initial weights (float32, exact)
    "init_rnn": lambda: init_of(lambda: nn.RNN(3, 4, 2, bidirectional=True)),
    "init_lstm": lambda: init_of(lambda: nn.LSTM(3, 5, 2, bidirectional=True)),
    "init_lstm_proj": lambda: init_of(lambda: nn.LSTM(3, 5, 2, proj_size=2)),
    "init_gru_no_bias": lambda: init_of(lambda: nn.GRU(4, 3, 2, bias=False)),
    "init_cells": lambda: init_of(lambda: nn.Sequential(nn.RNNCell(3, 4), nn.LSTMCell(4, 2), nn.GRUCell(2, 3))),
    "init_mha": lambda: init_of(lambda: nn.MultiheadAttention(8, 2)),
    "init_mha_kdim": lambda: init_of(lambda: nn.MultiheadAttention(8, 4, kdim=3, vdim=5, add_bias_kv=True)),
    "init_mha_no_bias": lambda: init_of(lambda: nn.MultiheadAttention(6, 3, bias=False)),
    "init_encoder": lambda: init_of(lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2,
                                                                  norm=nn.LayerNorm(8))),
    # parameter names and order
    "names_lstm": lambda: names_of(lambda: nn.LSTM(3, 4, 2, bidirectional=True)),
    "names_lstm_proj": lambda: names_of(lambda: nn.LSTM(3, 4, 1, bidirectional=True, proj_size=2)),
    "names_gru_no_bias": lambda: names_of(lambda: nn.GRU(3, 4, 2, bias=False)),
    "names_cell_no_bias": lambda: names_of(lambda: nn.GRUCell(3, 4, bias=False)),
    "names_mha": lambda: names_of(lambda: nn.MultiheadAttention(8, 2)),
    "names_mha_kdim": lambda: names_of(lambda: nn.MultiheadAttention(8, 2, kdim=3, add_bias_kv=True)),
    "names_encoder": lambda: sorted(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2)
                                    .state_dict().keys()),
    # reprs
    "repr_rnn": lambda: repr(nn.RNN(3, 5, 2, nonlinearity="relu", batch_first=True, dropout=0.5,
                                    bidirectional=True)),
    "repr_lstm": lambda: repr(nn.LSTM(3, 4, 2, bias=False, dropout=1, proj_size=2)),
    "repr_gru": lambda: repr(nn.GRU(3, 4)),
    "repr_cells": lambda: repr(nn.Sequential(nn.RNNCell(3, 4, bias=False, nonlinearity="relu"), nn.RNNCell(3, 4),
                                             nn.LSTMCell(3, 4), nn.GRUCell(4, 2, bias=False))),
    "repr_mha": lambda: repr(nn.MultiheadAttention(8, 2, kdim=3)),
    "repr_tel_gelu_module": lambda: repr(nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU())),
    "repr_encoder": lambda: repr(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, layer_norm_eps=1e-6),
                                                       2, norm=nn.LayerNorm(8))),
    # errors
    "error_rnn_input_size": lambda: nn.RNN(3, 5, 2)(torch.randn(4, 2, 4)),
    "error_rnn_input_dims": lambda: nn.RNN(3, 5, 2)(torch.randn(4, 2, 3, 1)),
    "error_rnn_hidden_size": lambda: nn.GRU(3, 5, 2)(torch.randn(4, 2, 3), torch.randn(2, 3, 5)),
    "error_rnn_hx_dims": lambda: nn.RNN(3, 5, 2)(torch.randn(4, 2, 3), torch.randn(2, 5)),
    "error_rnn_hx_dims_unbatched": lambda: nn.RNN(3, 5, 2)(torch.randn(4, 3), torch.randn(2, 1, 5)),
    "error_lstm_cell_size": lambda: nn.LSTM(3, 5)(torch.randn(4, 2, 3), (torch.randn(1, 2, 5), torch.randn(1, 3, 5))),
    "error_lstm_hidden0_size": lambda: nn.LSTM(3, 5, proj_size=2)(torch.randn(4, 2, 3),
                                                                  (torch.randn(1, 2, 5), torch.randn(1, 2, 5))),
    "error_lstm_hx_dims": lambda: nn.LSTM(3, 5)(torch.randn(4, 2, 3), (torch.randn(1, 2, 5), torch.randn(2, 5))),
    "error_rnn_dtype": lambda: nn.RNN(3, 4, 2)(torch.randn(5, 2, 3).double()),
    "error_rnn_empty": lambda: nn.LSTM(3, 4)(torch.randn(0, 2, 3)),
    "error_rnn_nonlinearity": lambda: nn.RNN(3, 5, nonlinearity="sigmoid"),
    "error_rnn_dropout": lambda: nn.RNN(3, 5, dropout=1.5),
    "error_gru_proj": lambda: nn.GRU(3, 5, proj_size=2),
    "error_lstm_proj_size": lambda: nn.LSTM(3, 5, proj_size=5),
    "error_cell_input_size": lambda: nn.RNNCell(3, 5)(torch.randn(2, 4)),
    "error_cell_batch": lambda: nn.GRUCell(3, 5)(torch.randn(2, 3), torch.randn(3, 5)),
    "error_cell_hidden_size": lambda: nn.LSTMCell(3, 5)(torch.randn(2, 3), (torch.randn(2, 5), torch.randn(2, 4))),
    "error_cell_dims": lambda: nn.RNNCell(3, 5)(torch.randn(2, 3, 1)),
    "error_mha_embed_dim": lambda: nn.MultiheadAttention(8, 2)(torch.randn(4, 2, 6), torch.randn(4, 2, 6),
                                                               torch.randn(4, 2, 6)),
    "error_mha_kpm_shape": lambda: nn.MultiheadAttention(8, 2)(torch.randn(4, 2, 8), torch.randn(4, 2, 8),
                                                               torch.randn(4, 2, 8), key_padding_mask=KPM5),
    "error_mha_attn_mask_2d": lambda: nn.MultiheadAttention(8, 2)(torch.randn(4, 2, 8), torch.randn(5, 2, 8),
                                                                  torch.randn(5, 2, 8), attn_mask=CAUSAL),
    "error_mha_attn_mask_3d": lambda: nn.MultiheadAttention(8, 2)(torch.randn(4, 2, 8), torch.randn(4, 2, 8),
                                                                  torch.randn(4, 2, 8), attn_mask=FLOAT_MASK_3D[:3]),
    "error_mha_attn_mask_dtype": lambda: nn.MultiheadAttention(8, 2)(
        torch.randn(4, 2, 8), torch.randn(4, 2, 8), torch.randn(4, 2, 8), attn_mask=torch.zeros(4, 4, dtype=torch.int64)),
    "error_mha_kpm_dtype": lambda: nn.MultiheadAttention(8, 2)(
        torch.randn(4, 2, 8), torch.randn(4, 2, 8), torch.randn(4, 2, 8), key_padding_mask=torch.zeros(2, 4, dtype=torch.int64)),
    "error_mha_kv_shape": lambda: nn.MultiheadAttention(8, 2)(torch.randn(4, 2, 8), torch.randn(4, 2, 8),
                                                              torch.randn(5, 2, 8)),
    "error_mha_key_dims": lambda: nn.MultiheadAttention(8, 2)(torch.randn(4, 2, 8), torch.randn(4, 8),
                                                              torch.randn(4, 2, 8)),
    "error_mha_query_dims": lambda: nn.MultiheadAttention(8, 2)(torch.randn(4), torch.randn(4, 2, 8),
                                                                torch.randn(4, 2, 8)),
    "error_mha_heads": lambda: nn.MultiheadAttention(8, 3),
    "error_tel_activation": lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
}
