"""torch.nn.utils and torch.nn.utils.rnn: packed sequences, RNN/LSTM/GRU over packed input,
weight_norm, spectral_norm, parametrize and parametrizations, fusion, clipping, skip_init.
Index tensors (sorted_indices, unsorted_indices, invert_permutation) are 0-based here; the Lua
side gives them 1-based and subtracts one before comparing."""
import torch
from torch import nn
from torch.nn.utils import parametrize, parametrizations
from torch.nn.utils import rnn as R

D = torch.float64


def seq_input(T=5, B=4, I=3, batch_first=False, scale=0.37):
    n = T * B * I
    shape = (B, T, I) if batch_first else (T, B, I)
    return (torch.arange(n, dtype=D).reshape(shape) * scale).sin().requires_grad_()


def weights_like(t):
    return torch.arange(t.numel(), dtype=D).reshape(t.shape).cos()


# ---- packing -------------------------------------------------------------------------------------


def pack_sorted():
    x = seq_input(4, 3, 2)
    p = R.pack_padded_sequence(x, [4, 2, 1])
    return (p.data.detach(), p.batch_sizes)


def pack_unsorted_batch_first():
    x = seq_input(5, 4, 2, batch_first=True)
    p = R.pack_padded_sequence(x, torch.tensor([2, 5, 1, 5]), batch_first=True, enforce_sorted=False)
    return (p.data.detach(), p.batch_sizes, p.sorted_indices, p.unsorted_indices)


def pack_pad_roundtrip():
    x = seq_input(5, 4, 2)
    p = R.pack_padded_sequence(x, [3, 5, 2, 4], enforce_sorted=False)
    padded, lengths = R.pad_packed_sequence(p, padding_value=-1.5, total_length=7)
    (padded * weights_like(padded)).sum().backward()
    return (padded.detach(), lengths, x.grad)


def pad_packed_batch_first():
    x = seq_input(4, 3, 2)
    p = R.pack_padded_sequence(x, [4, 2, 1])
    padded, lengths = R.pad_packed_sequence(p, batch_first=True)
    return (padded.detach(), lengths)


def seqs():
    return [(torch.arange(6, dtype=D).reshape(3, 2) * 0.5).requires_grad_(),
            (torch.arange(10, dtype=D).reshape(5, 2) - 3).requires_grad_(),
            (torch.arange(2, dtype=D).reshape(1, 2) + 7).requires_grad_()]


def pad_sequence_case(batch_first, padding_value):
    ss = seqs()
    out = R.pad_sequence(ss, batch_first=batch_first, padding_value=padding_value)
    (out * weights_like(out)).sum().backward()
    return (out.detach(), ss[0].grad, ss[1].grad, ss[2].grad)


def pack_sequence_case():
    ss = seqs()
    p = R.pack_sequence(ss, enforce_sorted=False)
    (p.data * weights_like(p.data)).sum().backward()
    return (p.data.detach(), p.batch_sizes, p.sorted_indices, p.unsorted_indices, ss[0].grad, ss[2].grad)


def unpack_sequence_case():
    p = R.pack_sequence(seqs(), enforce_sorted=False)
    return torch.cat([t.detach() for t in R.unpack_sequence(p)])


def unpad_sequence_case(batch_first):
    padded = R.pad_sequence(seqs(), batch_first=batch_first)
    out = R.unpad_sequence(padded, torch.tensor([3, 5, 1]), batch_first=batch_first)
    return tuple(t.detach() for t in out)


def packed_repr():
    seq = torch.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
    return repr(R.pack_padded_sequence(seq, [2, 1, 3], batch_first=True, enforce_sorted=False))


# ---- RNNs over packed input ---------------------------------------------------------------------


def rnn_packed(make, seed, lengths, with_hx, lstm=False, batch_first=False, enforce_sorted=False):
    torch.manual_seed(seed)
    m = make().double()
    B = len(lengths)
    x = seq_input(max(lengths), B, 3, batch_first=batch_first)
    nd = 2 if m.bidirectional else 1
    real = m.proj_size if m.proj_size > 0 else m.hidden_size
    hx = None
    h0 = c0 = None
    if with_hx:
        h0 = (torch.arange(m.num_layers * nd * B * real, dtype=D).reshape(m.num_layers * nd, B, real) * 0.3).cos()
        h0.requires_grad_()
        hx = h0
        if lstm:
            c0 = (torch.arange(m.num_layers * nd * B * m.hidden_size, dtype=D)
                  .reshape(m.num_layers * nd, B, m.hidden_size) * 0.7).sin().requires_grad_()
            hx = (h0, c0)
    p = R.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    out, h = m(p, hx)
    if lstm:
        h_n, c_n = h
    else:
        h_n, c_n = h, None
    loss = (out.data * weights_like(out.data)).sum() + (h_n * weights_like(h_n)).sum() * 0.5
    if c_n is not None:
        loss = loss + (c_n * weights_like(c_n)).sum() * 0.25
    loss.backward()
    res = [out.data.detach(), h_n.detach()]
    if c_n is not None:
        res.append(c_n.detach())
    res.append(x.grad)
    if h0 is not None:
        res.append(h0.grad)
    if c0 is not None:
        res.append(c0.grad)
    for p_ in m.parameters():
        res.append(p_.grad)
    return tuple(res)


def rnn_packed_error_hidden():
    m = nn.RNN(2, 3).double()
    p = R.pack_padded_sequence(seq_input(4, 3, 2), [4, 2, 1])
    m(p, torch.zeros(1, 2, 3, dtype=D))


def rnn_packed_error_dims():
    m = nn.LSTM(2, 3).double()
    p = R.PackedSequence(torch.zeros(7, 2, 1, dtype=D), torch.tensor([3, 2, 1, 1]))
    m(p)


def gru_packed_dropout():
    torch.manual_seed(3)
    m = nn.GRU(3, 4, num_layers=3, dropout=0.4).double()
    x = seq_input(5, 4, 3)
    p = R.pack_padded_sequence(x, [3, 5, 2, 4], enforce_sorted=False)
    torch.manual_seed(9)
    out, h = m(p)
    ((out.data * weights_like(out.data)).sum() + h.sum()).backward()
    return (out.data.detach(), h.detach(), x.grad, m.weight_ih_l0.grad)


def rnn_packed_padded_output():
    torch.manual_seed(4)
    m = nn.GRU(3, 2, batch_first=True).double()
    x = seq_input(4, 3, 3, batch_first=True)
    p = R.pack_padded_sequence(x, [2, 4, 3], batch_first=True, enforce_sorted=False)
    out, _ = m(p)
    padded, lengths = R.pad_packed_sequence(out, batch_first=True)
    return (padded.detach(), lengths)


# ---- weight_norm, spectral_norm -----------------------------------------------------------------


def lin_input(n_in, rows=2):
    return (torch.arange(rows * n_in, dtype=D).reshape(rows, n_in) * 0.41).sin().requires_grad_()


def forward_grads(m, x):
    out = m(x)
    (out * weights_like(out)).sum().backward()
    res = [out.detach(), x.grad]
    for p in m.parameters():
        res.append(p.grad)
    return tuple(res)


def weight_norm_linear(dim):
    torch.manual_seed(2)
    m = nn.Linear(4, 3).double()
    m = nn.utils.weight_norm(m, dim=dim)
    return forward_grads(m, lin_input(4)) + (m.weight_g.detach(),)


def weight_norm_conv():
    torch.manual_seed(3)
    m = nn.utils.weight_norm(nn.Conv1d(2, 3, 2).double(), dim=1)
    x = (torch.arange(10, dtype=D).reshape(1, 2, 5) * 0.3).cos().requires_grad_()
    return forward_grads(m, x) + (m.weight_g.detach(),)


def state_keys(m):
    return list(m.state_dict().keys())


def weight_norm_keys():
    return state_keys(nn.utils.weight_norm(nn.Linear(4, 3)))


def weight_norm_removed():
    torch.manual_seed(2)
    m = nn.utils.weight_norm(nn.Linear(4, 3).double())
    with torch.no_grad():
        m.weight_g.mul_(2.0)
    nn.utils.remove_weight_norm(m)
    return (m.weight.detach(), torch.tensor([len(state_keys(m))]))


def weight_norm_removed_keys():
    m = nn.utils.remove_weight_norm(nn.utils.weight_norm(nn.Linear(4, 3)))
    return state_keys(m)


def weight_norm_twice():
    nn.utils.weight_norm(nn.utils.weight_norm(nn.Linear(4, 3)))


def weight_norm_remove_missing():
    nn.utils.remove_weight_norm(nn.Linear(4, 3))


def spectral_norm_linear(steps, eval_after):
    torch.manual_seed(5)
    m = nn.Linear(5, 3).double()
    m = nn.utils.spectral_norm(m, n_power_iterations=2)
    x = lin_input(5)
    for _ in range(steps):
        m(x)
    if eval_after:
        m.eval()
    return forward_grads(m, x) + (m.weight_u, m.weight_v, m.weight.detach())


def spectral_norm_conv_transpose():
    torch.manual_seed(6)
    m = nn.utils.spectral_norm(nn.ConvTranspose2d(2, 3, 2).double())
    x = (torch.arange(18, dtype=D).reshape(1, 2, 3, 3) * 0.3).cos().requires_grad_()
    return forward_grads(m, x) + (m.weight_u, m.weight_v)


def spectral_norm_keys():
    return state_keys(nn.utils.spectral_norm(nn.Linear(4, 3)))


def spectral_norm_removed():
    torch.manual_seed(5)
    m = nn.utils.spectral_norm(nn.Linear(5, 3).double())
    m(lin_input(5))
    nn.utils.remove_spectral_norm(m)
    return (m.weight.detach(),)


def spectral_norm_removed_keys():
    return state_keys(nn.utils.remove_spectral_norm(nn.utils.spectral_norm(nn.Linear(4, 3))))


def spectral_norm_bad_iterations():
    nn.utils.spectral_norm(nn.Linear(4, 3), n_power_iterations=0)


def spectral_norm_remove_missing():
    nn.utils.remove_spectral_norm(nn.Linear(4, 3))


# ---- parametrize --------------------------------------------------------------------------------


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT

    def right_inverse(self, A):
        return A.triu()


class Scale(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s

    def forward(self, X):
        return X * self.s


class Reshape(nn.Module):
    def forward(self, X):
        return X.reshape(-1)


def sym_linear(seed=7):
    torch.manual_seed(seed)
    m = nn.Linear(3, 3).double()
    parametrize.register_parametrization(m, "weight", Symmetric())
    return m


def parametrize_forward():
    m = sym_linear()
    res = forward_grads(m, lin_input(3))
    return res + (m.weight.detach(), m.parametrizations.weight.original.grad)


def parametrize_chain():
    m = sym_linear()
    parametrize.register_parametrization(m, "weight", Scale(2.5))
    return forward_grads(m, lin_input(3)) + (m.weight.detach(),)


def parametrize_keys():
    m = sym_linear()
    parametrize.register_parametrization(m, "bias", Scale(0.5))
    return state_keys(m)


def parametrize_repr():
    return repr(sym_linear())


def parametrize_assign():
    m = sym_linear()
    m.weight = torch.arange(9, dtype=D).reshape(3, 3)
    return (m.weight.detach(), m.parametrizations.weight.original.detach())


def parametrize_cached():
    m = sym_linear()
    with parametrize.cached():
        same = m.weight is m.weight
    return [same, m.weight is m.weight, parametrize.is_parametrized(m), parametrize.is_parametrized(m, "weight"),
            parametrize.is_parametrized(m, "bias")]


def parametrize_remove(leave):
    m = sym_linear()
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
    return [m.weight.tolist(), type(m).__name__, state_keys(m), parametrize.is_parametrized(m)]


def parametrize_missing():
    parametrize.register_parametrization(nn.Linear(3, 3), "foo", Symmetric())


def parametrize_remove_missing():
    parametrize.remove_parametrizations(nn.Linear(3, 3), "weight")


def parametrize_shape_change():
    parametrize.register_parametrization(nn.Linear(3, 3), "weight", Reshape())


# ---- parametrizations ---------------------------------------------------------------------------


def orthogonal_case(n_out, n_in, seed, orthogonal_map=None, use_trivialization=True):
    torch.manual_seed(seed)
    m = nn.Linear(n_in, n_out).double()
    parametrizations.orthogonal(m, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)
    res = forward_grads(m, lin_input(n_in))
    return res + (m.weight.detach(), m.parametrizations.weight.original.grad)


def orthogonal_keys():
    torch.manual_seed(1)
    return state_keys(parametrizations.orthogonal(nn.Linear(3, 3).double()))


def orthogonal_assign():
    torch.manual_seed(8)
    m = parametrizations.orthogonal(nn.Linear(4, 3).double(), orthogonal_map="householder")
    q = torch.linalg.qr(((torch.arange(12, dtype=D) ** 2).reshape(4, 3) * 0.31).sin())[0].mT
    m.weight = q
    return (m.weight.detach(), m.parametrizations.weight.original.detach())


def orthogonal_vector():
    parametrizations.orthogonal(nn.Linear(3, 3), "bias")


def orthogonal_bad_map():
    parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")


def new_spectral_norm(train):
    torch.manual_seed(9)
    m = nn.Linear(5, 3).double()
    parametrizations.spectral_norm(m, n_power_iterations=2)
    x = lin_input(5)
    m(x)
    if not train:
        m.eval()
    res = forward_grads(m, x)
    sn = m.parametrizations.weight[0]
    return res + (m.weight.detach(), sn._u, sn._v, m.parametrizations.weight.original.grad)


def new_spectral_norm_keys():
    return state_keys(parametrizations.spectral_norm(nn.Linear(5, 3)))


def new_spectral_norm_conv_transpose():
    torch.manual_seed(10)
    m = parametrizations.spectral_norm(nn.ConvTranspose1d(2, 3, 2).double())
    x = (torch.arange(8, dtype=D).reshape(1, 2, 4) * 0.3).cos().requires_grad_()
    return forward_grads(m, x) + (m.parametrizations.weight[0]._u,)


def new_spectral_norm_bad_dim():
    parametrizations.spectral_norm(nn.Linear(5, 3), dim=2)


# ---- fusion, clipping, skip_init ----------------------------------------------------------------


def bn_with_stats(n, cls):
    torch.manual_seed(11)
    bn = cls(n).double()
    with torch.no_grad():
        bn.running_mean.copy_(torch.arange(n, dtype=D) * 0.1 - 0.2)
        bn.running_var.copy_(torch.arange(n, dtype=D) * 0.3 + 0.5)
        bn.weight.copy_(torch.arange(n, dtype=D) * -0.4 + 1.1)
        bn.bias.copy_(torch.arange(n, dtype=D) * 0.25)
    return bn.eval()


def fuse_conv():
    torch.manual_seed(12)
    conv = nn.Conv2d(2, 3, 2).double().eval()
    bn = bn_with_stats(3, nn.BatchNorm2d)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    x = (torch.arange(32, dtype=D).reshape(1, 2, 4, 4) * 0.3).sin()
    return (fused(x).detach(), fused.weight.detach(), fused.bias.detach())


def fuse_conv_transpose_nobias():
    torch.manual_seed(13)
    conv = nn.ConvTranspose2d(2, 3, 2, bias=False).double().eval()
    bn = bn_with_stats(3, nn.BatchNorm2d)
    w, b = nn.utils.fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.eps,
                                         bn.weight, bn.bias, transpose=True)
    return (w.detach(), b.detach())


def fuse_linear():
    torch.manual_seed(14)
    lin = nn.Linear(4, 3).double().eval()
    bn = bn_with_stats(3, nn.BatchNorm1d)
    fused = nn.utils.fusion.fuse_linear_bn_eval(lin, bn)
    return (fused(lin_input(4).detach()).detach(), fused.weight.detach(), fused.bias.detach())


def fuse_training():
    nn.utils.fuse_conv_bn_eval(nn.Conv2d(2, 3, 2), nn.BatchNorm2d(3))


def clip_value():
    a = torch.tensor([[3.0, -4.0], [1.0, 2.0]], dtype=D, requires_grad=True)
    b = torch.tensor([0.5, -12.0], dtype=D, requires_grad=True)
    ((a * torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=D)).sum() + (b * b).sum()).backward()
    nn.utils.clip_grad_value_([a, b], 2.5)
    nn.utils.clip_grad_value_(a, 1)
    return (a.grad, b.grad)


def clip_norm_alias():
    a = torch.tensor([[3.0, -4.0], [1.0, 2.0]], dtype=D, requires_grad=True)
    (a * a).sum().backward()
    total = nn.utils.clip_grad_norm(a, 1.5)
    return (total, a.grad)


def skip_init_case():
    m = nn.utils.skip_init(nn.Linear, 5, 3, dtype=D)
    return [list(m.weight.shape), str(m.weight.dtype), str(m.weight.device), m.weight.requires_grad, state_keys(m)]


def functional_call_case():
    torch.manual_seed(15)
    m = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).double()
    w = (torch.arange(6, dtype=D).reshape(2, 3) * 0.2).cos().requires_grad_()
    x = lin_input(3)
    out = torch.nn.utils.stateless.functional_call(m, {"0.weight": w}, (x,))
    (out * weights_like(out)).sum().backward()
    return (out.detach(), w.grad, x.grad, m[0].bias.grad, m[0].weight.detach())


def invert_permutation():
    return R.invert_permutation(torch.tensor([2, 0, 3, 1]))


def err(fn):
    return fn


CASES = {
    "pack_sorted": pack_sorted,
    "pack_unsorted_batch_first": pack_unsorted_batch_first,
    "pack_pad_roundtrip": pack_pad_roundtrip,
    "pad_packed_batch_first": pad_packed_batch_first,
    "pad_sequence": lambda: pad_sequence_case(False, 0.0),
    "pad_sequence_batch_first": lambda: pad_sequence_case(True, -2.5),
    "pack_sequence": pack_sequence_case,
    "unpack_sequence": unpack_sequence_case,
    "unpad_sequence": lambda: unpad_sequence_case(False),
    "unpad_sequence_batch_first": lambda: unpad_sequence_case(True),
    "packed_repr": packed_repr,
    "invert_permutation": invert_permutation,
    "error_pack_lengths_count": lambda: R.pack_padded_sequence(seq_input(4, 3, 2), [4, 2]),
    "error_pack_zero_length": lambda: R.pack_padded_sequence(seq_input(4, 3, 2), [4, 2, 0]),
    "error_pack_unsorted": lambda: R.pack_padded_sequence(seq_input(4, 3, 2), [2, 4, 1]),
    "error_pack_lengths_2d": lambda: R.pack_padded_sequence(seq_input(4, 3, 2), torch.tensor([[4, 3, 1]])),
    "error_pack_empty": lambda: R.pack_padded_sequence(torch.zeros(0, 3), [0, 0, 0]),
    "error_pad_total_length": lambda: R.pad_packed_sequence(
        R.pack_padded_sequence(seq_input(4, 3, 2), [4, 2, 1]), total_length=3),
    "error_pad_sequence_empty": lambda: R.pad_sequence([]),
    "error_pad_sequence_not_list": lambda: R.pad_sequence(5),
    "error_pad_sequence_element": lambda: R.pad_sequence([1, 2]),
    "error_pack_input": lambda: R.pack_padded_sequence("x", [1]),
    "error_pad_packed_tensor": lambda: R.pad_packed_sequence(torch.ones(2)),
    "error_parametrize_not_module": lambda: parametrize.register_parametrization(nn.Linear(2, 2), "weight", 5),
    "rnn_tanh_packed": lambda: rnn_packed(lambda: nn.RNN(3, 4, num_layers=2), 1, [3, 5, 2, 4], False),
    "rnn_relu_packed_bidirectional_hx": lambda: rnn_packed(
        lambda: nn.RNN(3, 4, nonlinearity="relu", bidirectional=True), 2, [4, 1, 3], True),
    "lstm_packed": lambda: rnn_packed(lambda: nn.LSTM(3, 4), 3, [2, 5, 4, 1], True, lstm=True),
    "lstm_packed_bidirectional_layers": lambda: rnn_packed(
        lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True), 4, [3, 5, 2, 4], True, lstm=True),
    "lstm_packed_proj": lambda: rnn_packed(
        lambda: nn.LSTM(3, 4, proj_size=2, bidirectional=True), 5, [4, 2, 3], False, lstm=True),
    "gru_packed_sorted_batch_first": lambda: rnn_packed(
        lambda: nn.GRU(3, 4, num_layers=2, batch_first=True), 6, [5, 4, 4, 2], True, batch_first=True,
        enforce_sorted=True),
    "gru_packed_bidirectional": lambda: rnn_packed(lambda: nn.GRU(3, 2, bidirectional=True), 7, [1, 3, 2], True),
    "rnn_packed_padded_output": rnn_packed_padded_output,
    "gru_packed_dropout": gru_packed_dropout,
    "error_rnn_packed_hidden": rnn_packed_error_hidden,
    "error_rnn_packed_dims": rnn_packed_error_dims,
    "weight_norm_linear": lambda: weight_norm_linear(0),
    "weight_norm_linear_dim1": lambda: weight_norm_linear(1),
    "weight_norm_linear_whole": lambda: weight_norm_linear(None),
    "weight_norm_conv": weight_norm_conv,
    "weight_norm_keys": weight_norm_keys,
    "weight_norm_removed": weight_norm_removed,
    "weight_norm_removed_keys": weight_norm_removed_keys,
    "error_weight_norm_twice": weight_norm_twice,
    "error_weight_norm_remove_missing": weight_norm_remove_missing,
    "spectral_norm_train": lambda: spectral_norm_linear(2, False),
    "spectral_norm_eval": lambda: spectral_norm_linear(1, True),
    "spectral_norm_conv_transpose": spectral_norm_conv_transpose,
    "spectral_norm_keys": spectral_norm_keys,
    "spectral_norm_removed": spectral_norm_removed,
    "spectral_norm_removed_keys": spectral_norm_removed_keys,
    "error_spectral_norm_iterations": spectral_norm_bad_iterations,
    "error_spectral_norm_remove_missing": spectral_norm_remove_missing,
    "parametrize_forward": parametrize_forward,
    "parametrize_chain": parametrize_chain,
    "parametrize_keys": parametrize_keys,
    "parametrize_repr": parametrize_repr,
    "parametrize_assign": parametrize_assign,
    "parametrize_cached": parametrize_cached,
    "parametrize_remove_leave": lambda: parametrize_remove(True),
    "parametrize_remove_original": lambda: parametrize_remove(False),
    "error_parametrize_missing": parametrize_missing,
    "error_parametrize_remove_missing": parametrize_remove_missing,
    "error_parametrize_shape": parametrize_shape_change,
    "orthogonal_square": lambda: orthogonal_case(3, 3, 1),
    "orthogonal_wide_householder": lambda: orthogonal_case(3, 4, 2),
    "orthogonal_tall_cayley": lambda: orthogonal_case(4, 3, 3, orthogonal_map="cayley"),
    "orthogonal_matrix_exp_wide": lambda: orthogonal_case(3, 5, 4, orthogonal_map="matrix_exp"),
    "orthogonal_householder_no_trivialization": lambda: orthogonal_case(4, 3, 5, orthogonal_map="householder",
                                                                        use_trivialization=False),
    "orthogonal_keys": orthogonal_keys,
    "orthogonal_assign": orthogonal_assign,
    "error_orthogonal_vector": orthogonal_vector,
    "error_orthogonal_map": orthogonal_bad_map,
    "parametrizations_spectral_norm_train": lambda: new_spectral_norm(True),
    "parametrizations_spectral_norm_eval": lambda: new_spectral_norm(False),
    "parametrizations_spectral_norm_keys": new_spectral_norm_keys,
    "parametrizations_spectral_norm_conv_transpose": new_spectral_norm_conv_transpose,
    "error_parametrizations_spectral_norm_dim": new_spectral_norm_bad_dim,
    "fuse_conv_bn_eval": fuse_conv,
    "fuse_conv_bn_weights_transpose": fuse_conv_transpose_nobias,
    "fuse_linear_bn_eval": fuse_linear,
    "error_fuse_training": fuse_training,
    "clip_grad_value": clip_value,
    "clip_grad_norm_alias": clip_norm_alias,
    "skip_init": skip_init_case,
    "functional_call": functional_call_case,
}
