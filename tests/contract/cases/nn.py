"""nn, optim and data: initial weights from a seed, layer and loss values and gradients,
module reprs and state_dict errors, optimizer and scheduler trajectories, DataLoader order."""
import math

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

D = torch.float64


def logits():
    return torch.tensor([[0.5, -1.25, 2.0, 0.1], [1.5, 0.25, -0.75, 0.3], [-0.2, 0.4, 0.9, -1.1]], dtype=D,
                        requires_grad=True)


TARGET = torch.tensor([2, 0, 3])  # Lua: {3, 1, 4}


def loss_and_grad(fn):
    x = logits()
    loss = fn(x)
    loss.sum().backward()
    return (loss.detach(), x.grad)


def probs():
    return torch.tensor([[0.2, 0.7, 0.9, 0.5], [0.1, 0.4, 0.6, 0.99], [0.3, 0.5, 0.05, 0.8]], dtype=D,
                        requires_grad=True)


def bce_grad(fn):
    p = probs()
    loss = fn(p)
    loss.sum().backward()
    return (loss.detach(), p.grad)


Y = torch.tensor([[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [0.5, 0.0, 0.0, 1.0]], dtype=D)
W = torch.tensor([1.0, 2.0, 0.5, 1.5], dtype=D)


def linear_init():
    torch.manual_seed(0)
    m = nn.Linear(5, 3)
    return (m.weight.detach(), m.bias.detach())


def init_draws():
    """Each nn.init function on fresh tensors after one seed: the same stream, the same weights."""
    torch.manual_seed(11)
    I = nn.init
    out = [I.xavier_uniform_(torch.empty(4, 5)), I.xavier_normal_(torch.empty(4, 5), gain=2.0),
           I.kaiming_uniform_(torch.empty(6, 3, 2)),
           I.kaiming_normal_(torch.empty(5, 4), mode="fan_out", nonlinearity="relu"),
           I.trunc_normal_(torch.empty(200)), I.trunc_normal_(torch.empty(50), mean=1.0, std=0.5, a=0.5, b=1.2),
           I.trunc_normal_(torch.empty(30, dtype=torch.float64), std=0.02),
           I.orthogonal_(torch.empty(4, 6)), I.orthogonal_(torch.empty(6, 4), gain=0.5),
           I.orthogonal_(torch.empty(3, 2, 2)), I.orthogonal_(torch.empty(5, 5, dtype=torch.float64))]
    return tuple(out)


def mlp_forward_backward():
    torch.manual_seed(1)
    net = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3))
    x = torch.randn(5, 4)
    out = net(x)
    F.cross_entropy(out, torch.tensor([0, 2, 1, 1, 0])).backward()
    return (out.detach(), net[0].weight.grad, net[2].bias.grad)


def mlp_repr():
    net = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Dropout(0.25), nn.LeakyReLU(0.2),
                        nn.Sequential(nn.Linear(6, 2, bias=False), nn.GELU(), nn.Softplus()), nn.Hardtanh(),
                        nn.ELU(alpha=0.5), nn.Identity(), nn.SiLU(), nn.Mish(), nn.Sigmoid())
    return repr(net)


def state_dict_keys():
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1)))
    return sorted(net.state_dict().keys())


def load_missing():
    net = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    sd = net.state_dict()
    del sd["1.bias"]
    sd["extra.weight"] = torch.zeros(1)
    net.load_state_dict(sd)


def load_size_mismatch():
    net = nn.Sequential(nn.Linear(2, 3))
    net.load_state_dict({"0.weight": torch.zeros(2, 2), "0.bias": torch.zeros(3)})


def trajectory(make_opt, steps=20, sched=None):
    torch.manual_seed(3)
    w = torch.randn(3, 2, dtype=D, requires_grad=True)
    b = torch.randn(2, dtype=D, requires_grad=True)
    x = torch.randn(6, 3, dtype=D)
    y = torch.randn(6, 2, dtype=D)
    opt = make_opt([w, b])
    s = sched(opt) if sched else None
    lrs = []
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w + b - y) ** 2).mean().backward()
        opt.step()
        if s:
            if isinstance(s, torch.optim.lr_scheduler.ReduceLROnPlateau):
                s.step(1.0 if _ % 7 else 0.5)  # a metric that stalls, then improves
            else:
                s.step()
            lrs.append(opt.param_groups[0]["lr"])
    if s:
        return (w.detach(), b.detach(), torch.tensor(lrs, dtype=D))
    return (w.detach(), b.detach())


def loader_order(shuffle, gen_seed, drop_last):
    torch.manual_seed(7)
    gen = torch.Generator().manual_seed(gen_seed) if gen_seed is not None else None
    ds = TensorDataset(torch.arange(23), torch.arange(23) * 10)
    out = []
    for xb, yb in DataLoader(ds, batch_size=5, shuffle=shuffle, generator=gen, drop_last=drop_last):
        out.append(xb)
    return torch.cat(out)


def norm_input():
    return (torch.arange(24, dtype=D).reshape(2, 3, 2, 2).sin() * 3).requires_grad_()


def norm_grads(make):
    x = norm_input()
    m = make()
    m.double()
    out = m(x)
    (out * torch.arange(out.numel(), dtype=D).reshape(out.shape).cos()).sum().backward()
    grads = [out.detach(), x.grad]
    for p in m.parameters():
        grads.append(p.grad)
    for name, b in m.named_buffers():
        if b.dtype == D:
            grads.append(b)
    return tuple(grads)


def bn_eval():
    m = nn.BatchNorm2d(3).double()
    m(norm_input())
    m.eval()
    return (m(norm_input() + 1).detach(), m.running_mean, m.running_var, m.num_batches_tracked)


def embedding_grads():
    torch.manual_seed(4)
    e = nn.Embedding(6, 3, padding_idx=2)
    idx = torch.tensor([[0, 2, 5], [2, 1, 0]])
    out = e(idx)
    (out * torch.arange(18.0).reshape(2, 3, 3)).sum().backward()
    return (out.detach(), e.weight.grad)


def clip(kind):
    a = torch.tensor([[3.0, -4.0], [1.0, 2.0]], dtype=D, requires_grad=True)
    b = torch.tensor([0.5, -12.0], dtype=D, requires_grad=True)
    ((a * torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=D)).sum() + (b * b).sum()).backward()
    if kind == "norm":
        total = nn.utils.clip_grad_norm_([a, b], 5.0)
    elif kind == "inf":
        total = nn.utils.clip_grad_norm_([a, b], 2.0, norm_type=float("inf"))
    else:
        nn.utils.clip_grad_value_([a, b], 2.5)
        total = torch.tensor(0.0, dtype=D)
    return (total, a.grad, b.grad, nn.utils.parameters_to_vector([a, b]).detach())


def layer_grads(make, shape, seed=5, two=False):
    """A layer built after manual_seed(seed), in float64: output, input gradient(s), parameter gradients."""
    torch.manual_seed(seed)
    m = make().double()
    n = 1
    for d in shape:
        n *= d
    x = (torch.arange(n, dtype=D).reshape(shape) * 0.37).sin().requires_grad_()
    xs = [x, (torch.arange(n, dtype=D).reshape(shape) * 0.23).cos().requires_grad_()] if two else [x]
    out = m(*xs)
    (out * torch.arange(out.numel(), dtype=D).reshape(out.shape).cos()).sum().backward()
    return tuple([out.detach()] + [t.grad for t in xs] + [p.grad for p in m.parameters()])


def lenet():
    return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84),
                         nn.ReLU(), nn.Linear(84, 10))


def lenet_step():
    torch.manual_seed(7)
    net = lenet()
    x = torch.randn(4, 1, 28, 28)
    out = net(x)
    F.cross_entropy(out, torch.tensor([3, 1, 0, 9])).backward()
    return (out.detach(), net[0].weight.grad, net[3].bias.grad, net[7].weight.grad.sum(0))


def conv_t_output_size():
    torch.manual_seed(2)
    m = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    x = torch.arange(2 * 2 * 4 * 4, dtype=D).reshape(2, 2, 4, 4).sin()
    return m(x, output_size=[8, 8]).detach()


def pad_modes():
    x = torch.arange(24, dtype=D).reshape(2, 3, 4).requires_grad_()
    outs = [F.pad(x, (1, 2)), F.pad(x, (-1, 2, 1, 0), value=1.5), F.pad(x, (2, 3), mode="reflect"),
            F.pad(x, (1, 2, 2, 1), mode="reflect"), F.pad(x, (3, 1), mode="replicate"),
            F.pad(x, (2, 4), mode="circular")]
    total = sum((o * torch.arange(o.numel(), dtype=D).reshape(o.shape).cos()).sum() for o in outs)
    total.backward()
    return tuple([o.detach() for o in outs] + [x.grad])


def max_pool_indices():
    x = (torch.arange(2 * 3 * 6 * 5, dtype=D).reshape(2, 3, 6, 5) * 0.37).sin()
    v, i = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    v1, i1 = F.max_pool1d(x[0], 2, return_indices=True)
    return (v, i, v1, i1)


CASES = {
    "conv2d_layer": lambda: layer_grads(lambda: nn.Conv2d(3, 4, 3, stride=2, padding=1), [2, 3, 7, 6]),
    "conv2d_groups_dilation": lambda: layer_grads(
        lambda: nn.Conv2d(4, 6, (3, 2), padding=(2, 1), dilation=(2, 1), groups=2), [2, 4, 6, 5]),
    "conv2d_same_even": lambda: layer_grads(lambda: nn.Conv2d(2, 3, 4, padding="same", bias=False), [2, 2, 5, 6]),
    "conv2d_reflect": lambda: layer_grads(lambda: nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), [2, 2, 5, 6]),
    "conv2d_circular": lambda: layer_grads(lambda: nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="circular"),
                                           [1, 2, 5, 6]),
    "conv2d_replicate": lambda: layer_grads(lambda: nn.Conv2d(2, 3, 3, padding=2, padding_mode="replicate"),
                                            [1, 2, 4, 4]),
    "conv1d_layer": lambda: layer_grads(lambda: nn.Conv1d(3, 4, 3, stride=2, padding=1, dilation=2), [2, 3, 9]),
    "conv_transpose2d_layer": lambda: layer_grads(
        lambda: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2), [2, 4, 3, 4]),
    "conv_transpose1d_layer": lambda: layer_grads(lambda: nn.ConvTranspose1d(3, 2, 4, stride=3), [2, 3, 5]),
    "conv_transpose_output_size": conv_t_output_size,
    "max_pool2d_layer": lambda: layer_grads(lambda: nn.MaxPool2d(3, 2, 1), [2, 3, 7, 6]),
    "max_pool2d_ceil_layer": lambda: layer_grads(lambda: nn.MaxPool2d(2, ceil_mode=True), [2, 3, 7, 5]),
    "max_pool1d_layer": lambda: layer_grads(lambda: nn.MaxPool1d(3, 2, 1, 2), [2, 3, 11]),
    "max_pool_indices": max_pool_indices,
    "avg_pool2d_layer": lambda: layer_grads(lambda: nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False),
                                            [2, 3, 7, 6]),
    "avg_pool2d_divisor_layer": lambda: layer_grads(lambda: nn.AvgPool2d(2, divisor_override=3), [2, 3, 4, 6]),
    "avg_pool1d_layer": lambda: layer_grads(lambda: nn.AvgPool1d(3, 2, 1), [2, 3, 9]),
    "adaptive_avg_pool2d_layer": lambda: layer_grads(lambda: nn.AdaptiveAvgPool2d((4, 3)), [2, 3, 7, 5]),
    "adaptive_avg_pool1d_layer": lambda: layer_grads(lambda: nn.AdaptiveAvgPool1d(4), [2, 3, 9]),
    "bilinear_layer": lambda: layer_grads(lambda: nn.Bilinear(4, 4, 3), [5, 4], two=True),
    "pad_modes": pad_modes,
    "lenet_step": lenet_step,
    "lenet_repr": lambda: repr(nn.Sequential(lenet(), nn.Conv2d(3, 6, (3, 2), stride=2, dilation=2, groups=3,
                                                            bias=False),
                                             nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1),
                                             nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, ceil_mode=True),
                                             nn.AvgPool2d(3, 2, 1), nn.AvgPool1d(2), nn.AdaptiveAvgPool2d(1),
                                             nn.Conv1d(3, 4, 3, padding="same", padding_mode="circular"),
                                             nn.Bilinear(3, 4, 5))),
    "error_conv_groups": lambda: nn.Conv2d(3, 4, 3, groups=2),
    "error_conv_padding_string": lambda: nn.Conv2d(3, 4, 3, padding="full"),
    "error_conv_same_strided": lambda: nn.Conv2d(3, 4, 3, padding="same", stride=2),
    "error_f_conv_padding_string": lambda: F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2), padding="foo"),
    "error_pad_odd": lambda: F.pad(torch.ones(2, 3), (1,)),
    "error_pad_long": lambda: F.pad(torch.ones(2, 3), (1, 1, 1, 1, 1, 1)),
    "error_pad_reflect": lambda: F.pad(torch.ones(1, 2, 3), (3, 1), mode="reflect"),
    "error_pad_circular": lambda: F.pad(torch.ones(1, 2, 3), (4, 1), mode="circular"),
    "clip_grad_norm": lambda: clip("norm"),
    "clip_grad_norm_inf": lambda: clip("inf"),
    "clip_grad_value": lambda: clip("value"),
    "layer_norm": lambda: norm_grads(lambda: nn.LayerNorm([2, 2])),
    "group_norm": lambda: norm_grads(lambda: nn.GroupNorm(3, 3)),
    "batch_norm_2d": lambda: norm_grads(lambda: nn.BatchNorm2d(3)),
    "batch_norm_1d": lambda: norm_grads(lambda: nn.Sequential(nn.Flatten(2), nn.BatchNorm1d(3))),
    "batch_norm_eval": bn_eval,
    "embedding": embedding_grads,
    "linear_init": linear_init,
    "init_draws": init_draws,
    "error_orthogonal_1d": lambda: nn.init.orthogonal_(torch.empty(3)),
    "mlp_forward_backward": mlp_forward_backward,
    "mlp_repr": mlp_repr,
    "state_dict_keys": state_dict_keys,
    "error_load_missing": load_missing,
    "error_load_size_mismatch": load_size_mismatch,
    "cross_entropy": lambda: loss_and_grad(lambda x: F.cross_entropy(x, TARGET)),
    "cross_entropy_weight": lambda: loss_and_grad(lambda x: F.cross_entropy(x, TARGET, weight=W)),
    "cross_entropy_ignore": lambda: loss_and_grad(lambda x: F.cross_entropy(x, torch.tensor([2, -100, 3]))),
    "cross_entropy_smoothing": lambda: loss_and_grad(lambda x: F.cross_entropy(x, TARGET, label_smoothing=0.2)),
    "cross_entropy_smoothing_weight": lambda: loss_and_grad(
        lambda x: F.cross_entropy(x, TARGET, weight=W, label_smoothing=0.1)),
    "cross_entropy_probs": lambda: loss_and_grad(lambda x: F.cross_entropy(x, Y.softmax(1))),
    "cross_entropy_sum": lambda: loss_and_grad(lambda x: F.cross_entropy(x, TARGET, reduction="sum")),
    "cross_entropy_none": lambda: loss_and_grad(lambda x: F.cross_entropy(x, TARGET, reduction="none")),
    "nll_loss": lambda: loss_and_grad(lambda x: F.nll_loss(x.log_softmax(1), TARGET, weight=W)),
    "mse_loss": lambda: loss_and_grad(lambda x: F.mse_loss(x, Y)),
    "l1_loss": lambda: loss_and_grad(lambda x: F.l1_loss(x, Y, reduction="sum")),
    "smooth_l1_loss": lambda: loss_and_grad(lambda x: F.smooth_l1_loss(x, Y, beta=0.5)),
    "huber_loss": lambda: loss_and_grad(lambda x: F.huber_loss(x, Y, delta=0.7)),
    "bce": lambda: bce_grad(lambda p: F.binary_cross_entropy(p, Y)),
    "bce_weight": lambda: bce_grad(lambda p: F.binary_cross_entropy(p, Y, weight=W, reduction="sum")),
    "bce_logits": lambda: loss_and_grad(lambda x: F.binary_cross_entropy_with_logits(x, Y)),
    "bce_logits_pos_weight": lambda: loss_and_grad(lambda x: F.binary_cross_entropy_with_logits(x, Y, pos_weight=W)),
    "kl_div": lambda: loss_and_grad(lambda x: F.kl_div(x.log_softmax(1), Y.softmax(1), reduction="batchmean")),
    "error_cross_entropy_target": lambda: F.cross_entropy(logits(), torch.tensor([2, 4, 0])),
    "error_bce_size": lambda: F.binary_cross_entropy(probs(), Y[0]),
    "sgd": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.1)),
    "sgd_momentum": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, dampening=0.1,
                                                                  weight_decay=0.01)),
    "sgd_nesterov": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True,
                                                                  maximize=True)),
    "adam": lambda: trajectory(lambda p: torch.optim.Adam(p, lr=0.05)),
    "adam_amsgrad": lambda: trajectory(lambda p: torch.optim.Adam(p, lr=0.05, betas=(0.8, 0.99), amsgrad=True,
                                                                   weight_decay=0.1)),
    "adamw": lambda: trajectory(lambda p: torch.optim.AdamW(p, lr=0.05, weight_decay=0.1)),
    "step_lr": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.1),
                                  sched=lambda o: torch.optim.lr_scheduler.StepLR(o, 3, gamma=0.5)),
    "multistep_lr": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.1), sched=lambda o:
                                       torch.optim.lr_scheduler.MultiStepLR(o, [2, 5, 5, 9], gamma=0.3)),
    "exponential_lr": lambda: trajectory(lambda p: torch.optim.Adam(p, lr=0.1),
                                         sched=lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.9)),
    "cosine_lr": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.5), sched=lambda o:
                                    torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=7, eta_min=0.01)),
    "lambda_lr": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.1),
                                    sched=lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (1 + e))),
    "multiplicative_lr": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.1), sched=lambda o:
                                            torch.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9 + 0.01 * e)),
    "constant_lr": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.1), sched=lambda o:
                                      torch.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=6)),
    "linear_lr": lambda: trajectory(lambda p: torch.optim.Adam(p, lr=0.1), sched=lambda o:
                                    torch.optim.lr_scheduler.LinearLR(o, start_factor=0.2, end_factor=0.9,
                                                                      total_iters=8)),
    "polynomial_lr": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.1), sched=lambda o:
                                        torch.optim.lr_scheduler.PolynomialLR(o, total_iters=12, power=2.0)),
    "error_constant_lr_factor": lambda: torch.optim.lr_scheduler.ConstantLR(
        torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), factor=1.5),
    "rmsprop": lambda: trajectory(lambda p: torch.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True,
                                                                 weight_decay=0.1)),
    "rmsprop_plain": lambda: trajectory(lambda p: torch.optim.RMSprop(p, lr=0.01)),
    "adagrad": lambda: trajectory(lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01,
                                                                 initial_accumulator_value=0.1)),
    "adamax": lambda: trajectory(lambda p: torch.optim.Adamax(p, lr=0.05)),
    "adamax_wd_max": lambda: trajectory(lambda p: torch.optim.Adamax(p, lr=0.05, betas=(0.8, 0.9), weight_decay=0.1,
                                                                        maximize=True)),
    "nadam": lambda: trajectory(lambda p: torch.optim.NAdam(p, lr=0.05)),
    "nadam_wd": lambda: trajectory(lambda p: torch.optim.NAdam(p, lr=0.05, weight_decay=0.1, momentum_decay=0.01)),
    "radam": lambda: trajectory(lambda p: torch.optim.RAdam(p, lr=0.05)),
    "radam_wd": lambda: trajectory(lambda p: torch.optim.RAdam(p, lr=0.05, betas=(0.5, 0.7), weight_decay=0.1)),
    "rprop": lambda: trajectory(lambda p: torch.optim.Rprop(p, lr=0.05)),
    "rprop_max": lambda: trajectory(lambda p: torch.optim.Rprop(p, lr=0.02, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1),
                                                                    maximize=True)),
    "asgd": lambda: trajectory(lambda p: torch.optim.ASGD(p, lr=0.05, t0=5)),
    "asgd_wd": lambda: trajectory(lambda p: torch.optim.ASGD(p, lr=0.05, lambd=0.01, alpha=0.5, weight_decay=0.1)),
    "error_rprop_etas": lambda: torch.optim.Rprop([torch.zeros(1, requires_grad=True)], etas=(1.5, 1.2)),
    "error_nadam_lr": lambda: torch.optim.NAdam([torch.zeros(1, requires_grad=True)], lr=-1.0),
    "adadelta": lambda: trajectory(lambda p: torch.optim.Adadelta(p, lr=0.5, rho=0.8, weight_decay=0.01)),
    "one_cycle_sgd": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), sched=lambda o:
                                        torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.2, total_steps=25)),
    "one_cycle_adam_linear": lambda: trajectory(lambda p: torch.optim.Adam(p, lr=0.1), sched=lambda o:
                                                torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.05, total_steps=21,
                                                                                    anneal_strategy="linear",
                                                                                    three_phase=True)),
    "plateau": lambda: trajectory(lambda p: torch.optim.SGD(p, lr=0.1), sched=lambda o:
                                  torch.optim.lr_scheduler.ReduceLROnPlateau(o, factor=0.5, patience=2, cooldown=1)),
    "loader_sequential": lambda: loader_order(False, None, False),
    "loader_shuffle_global": lambda: loader_order(True, None, False),
    "loader_shuffle_generator": lambda: loader_order(True, 11, True),
}
