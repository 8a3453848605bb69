"""Activations, dropout variants and losses (issue 19): float64 forward values and the
gradients of inputs and parameters, every reduction, seeded random masks, reprs, state_dict
keys and PyTorch's errors. Class indices are 0-based here and 1-based on the Lua side."""
import torch
from torch import nn
from torch.nn import functional as F

D = torch.float64


def wave(shape, f, off=0.0, scale=1.0):
    """Deterministic values in [-scale, scale] (the Lua side computes the same)."""
    n = 1
    for s in shape:
        n *= s
    return torch.arange(n, dtype=D).reshape(shape).mul(f).add(off).sin().mul(scale)


def weighted(t, k=0):
    return (t * wave(t.shape, 0.29 + 0.1 * k, 0.1 * k)).sum()


def run(fn, leaves, params=()):
    """fn() -> a tensor (or tuple); the outputs, then the gradients of leaves and params."""
    out = fn()
    outs = list(out) if isinstance(out, tuple) else [out]
    loss = 0
    for k, o in enumerate(outs):
        if o.requires_grad:
            loss = loss + weighted(o, k)
    if torch.is_tensor(loss):
        loss.backward()
    res = [o.detach() for o in outs] + [t.grad for t in leaves] + [p.grad for p in params]
    return tuple(res)


def act(make, shape=(3, 4), scale=3.0, f=0.37, off=0.2):
    m = make()
    x = wave(shape, f, off, scale).requires_grad_()
    params = list(m.parameters()) if isinstance(m, nn.Module) else []
    return run(lambda: m(x), [x], params)


def act_inplace(fn, shape=(3, 4), scale=3.0):
    """An in-place form applied to a non-leaf (x * 1): the result and x's gradient."""
    x = wave(shape, 0.37, 0.2, scale).requires_grad_()
    return run(lambda: fn(x * 1), [x])


def prelu_run(n, shape):
    m = nn.PReLU(n, 0.1).double()
    with torch.no_grad():
        m.weight.copy_(wave((n,), 0.7, 0.3) * 0.5)
    return act(lambda: m, shape)


def seeded(seed, fn):
    torch.manual_seed(seed)
    return fn()


def train_mod(make, shape, seed=7):
    def go():
        torch.manual_seed(seed)
        m = make()
        m.train()
        x = wave(shape, 0.37, 0.2, 2.0).requires_grad_()
        return run(lambda: m(x), [x])
    return go


def err(fn):
    return fn


# ---- losses ---------------------------------------------------------------------------------------
def two(make, shape=(3, 4), target=None):
    x = wave(shape, 0.37, 0.2, 2.0).requires_grad_()
    t = target if target is not None else wave(shape, 0.53, 0.4)
    m = make()
    params = list(m.parameters()) if isinstance(m, nn.Module) else []
    return run(lambda: m(x, t), [x], params)


SIGNS = torch.tensor([1.0, -1.0, -1.0, 1.0, 1.0, -1.0], dtype=D)


def three(make, shape=(6,), target=SIGNS):
    x1 = wave(shape, 0.37, 0.2, 2.0).requires_grad_()
    x2 = wave(shape, 0.53, 0.4, 2.0).requires_grad_()
    return run(lambda: make()(x1, x2, target), [x1, x2])


def triplet(make, shape=(4, 5)):
    a = wave(shape, 0.37, 0.2, 2.0).requires_grad_()
    p = wave(shape, 0.53, 0.4, 2.0).requires_grad_()
    n = wave(shape, 0.71, -0.3, 2.0).requires_grad_()
    return run(lambda: make()(a, p, n), [a, p, n])


def gaussian(make, var_shape=(3, 4)):
    x = wave((3, 4), 0.37, 0.2, 2.0).requires_grad_()
    t = wave((3, 4), 0.53, 0.4)
    v = (wave(var_shape, 0.71, -0.3).abs() + 0.1).requires_grad_()
    return run(lambda: make()(x, t, v), [x, v])


def poisson(make, log_input=True):
    x = wave((3, 4), 0.37, 0.2, 2.0)
    if not log_input:
        x = x.abs() + 0.1
    x.requires_grad_()
    t = wave((3, 4), 0.53, 0.4).abs() * 3
    return run(lambda: make()(x, t), [x])


MC_TARGET = torch.tensor([2, 0, 3])  # Lua {3, 1, 4}
ML_TARGET = torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [-1, 1, 2, 3]])  # Lua: + 1
ML_SOFT = torch.tensor([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]], dtype=D)
W4 = torch.tensor([1.0, 2.0, 0.5, 1.5], dtype=D)


def ctc_case(reduction="mean", zero_infinity=False, concat=False, via_log_softmax=False, blank=0, lengths=None,
             targets=None, unbatched=False):
    T, N, C = 6, 3, 5
    raw = wave((T, N, C), 0.37, 0.2, 2.0).requires_grad_()
    lp_src = raw.log_softmax(2) if via_log_softmax else raw
    tg = targets if targets is not None else torch.tensor([[1, 2, 2], [3, 1, 0], [4, 4, 2]])
    il = torch.tensor([6, 5, 4])
    tl = lengths if lengths is not None else torch.tensor([3, 2, 3])
    if blank != 0:
        tg = torch.where(tg == blank, torch.zeros_like(tg), tg)
    if concat:
        tg = torch.cat([tg[i, :tl[i]] for i in range(N)])
    if unbatched:
        return run(lambda: F.ctc_loss(lp_src[:, 0], tg[0, :tl[0]], il[:1].squeeze(0), tl[:1].squeeze(0),
                                      reduction=reduction), [raw])
    return run(lambda: F.ctc_loss(lp_src, tg, il, tl, blank=blank, reduction=reduction,
                                  zero_infinity=zero_infinity), [raw])


def asm_run(head_bias=False, unbatched=False):
    torch.manual_seed(2)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=head_bias).double()
    x = wave((5, 8), 0.37, 0.2).requires_grad_()
    t = torch.tensor([0, 4, 9, 2, 7])  # Lua + 1
    if unbatched:
        x0 = x[1]
        out, loss = m(x0, t[1])
    else:
        out, loss = m(x, t)
    (weighted(out) + loss).backward()
    return (out.detach(), loss.detach(), x.grad) + tuple(p.grad if p.grad is not None else torch.zeros_like(p)
                                                         for p in m.parameters())


def asm_log_prob():
    torch.manual_seed(2)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0).double()
    x = wave((5, 8), 0.37, 0.2)
    return (m.log_prob(x), m.predict(x) + 1)


def init_of(make, seed=5):
    torch.manual_seed(seed)
    return tuple(p.detach() for p in make().parameters())


ACTS = {
    "celu": lambda: nn.CELU(),
    "celu_alpha": lambda: nn.CELU(0.7),
    "selu": lambda: nn.SELU(),
    "glu": lambda: nn.GLU(),
    "glu_dim1": lambda: nn.GLU(1),
    "hardshrink": lambda: nn.Hardshrink(),
    "hardshrink_lambd": lambda: nn.Hardshrink(1.2),
    "hardsigmoid": lambda: nn.Hardsigmoid(),
    "hardswish": lambda: nn.Hardswish(),
    "logsigmoid": lambda: nn.LogSigmoid(),
    "rrelu_eval": lambda: nn.RReLU().eval(),
    "relu6": lambda: nn.ReLU6(),
    "softmin": lambda: nn.Softmin(1),
    "softmin_dim0": lambda: nn.Softmin(0),
    "softshrink": lambda: nn.Softshrink(),
    "softshrink_lambd": lambda: nn.Softshrink(1.1),
    "softsign": lambda: nn.Softsign(),
    "tanhshrink": lambda: nn.Tanhshrink(),
    "rrelu_eval_bounds": lambda: nn.RReLU(0.2, 0.4).eval(),
    "threshold": lambda: nn.Threshold(0.4, -2.0),
    "dropout1d_eval": lambda: nn.Dropout1d().eval(),
    "alpha_dropout_eval": lambda: nn.AlphaDropout(0.3).eval(),
}

CASES = {}
for _n, _mk in ACTS.items():
    CASES["act_" + _n] = (lambda mk: lambda: act(mk))(_mk)

CASES.update({
    "act_softmax2d": lambda: act(lambda: nn.Softmax2d(), (2, 3, 2, 2)),
    "act_softmax2d_3d": lambda: act(lambda: nn.Softmax2d(), (3, 2, 2)),
    "act_relu6_big": lambda: act(lambda: nn.ReLU6(), scale=8.0),
    "act_hardswish_big": lambda: act(lambda: nn.Hardswish(), scale=5.0),
    "act_logsigmoid_big": lambda: act(lambda: nn.LogSigmoid(), scale=50.0),
    "softmax_implicit_dim_2d": lambda: act(lambda: nn.Softmax()),
    "log_softmax_implicit_dim_3d": lambda: act(lambda: nn.LogSoftmax(), (2, 3, 2)),
    "softmin_implicit_dim_1d": lambda: act(lambda: nn.Softmin(), (5,)),
    "softmin_implicit_dim_4d": lambda: act(lambda: nn.Softmin(), (2, 3, 2, 2)),
    "prelu_one": lambda: prelu_run(1, (3, 4)),
    "prelu_channels": lambda: prelu_run(4, (2, 4, 3)),
    "prelu_channels_2d": lambda: prelu_run(4, (3, 4)),
    "prelu_1d_input": lambda: prelu_run(1, (5,)),
    "prelu_init": lambda: (nn.PReLU().weight.detach(), nn.PReLU(3, 0.1).weight.detach()),
    "prelu_state_dict": lambda: sorted(nn.PReLU(3).state_dict().keys()),
    # functional forms
    "f_celu_": lambda: act_inplace(lambda x: F.celu_(x, 0.5)),
    "f_celu_inplace": lambda: act_inplace(lambda x: F.celu(x, 2.0, True)),
    "f_selu_": lambda: act_inplace(F.selu_),
    "f_elu_": lambda: act_inplace(lambda x: F.elu_(x, 0.3)),
    "f_relu_": lambda: act_inplace(F.relu_),
    "f_leaky_relu_": lambda: act_inplace(lambda x: F.leaky_relu_(x, 0.2)),
    "f_hardtanh_": lambda: act_inplace(lambda x: F.hardtanh_(x, -0.5, 2.0)),
    "f_threshold_": lambda: act_inplace(lambda x: F.threshold_(x, 0.5, 7.0)),
    "f_threshold_inplace": lambda: act_inplace(lambda x: F.threshold(x, 0.5, 7.0, True)),
    "f_rrelu_eval": lambda: act_inplace(lambda x: F.rrelu(x, 0.1, 0.3)),
    "f_rrelu__eval": lambda: act_inplace(lambda x: F.rrelu_(x)),
    "f_relu6_inplace": lambda: act_inplace(lambda x: F.relu6(x, True), scale=8.0),
    "f_hardsigmoid_inplace": lambda: act_inplace(lambda x: F.hardsigmoid(x, True), scale=4.0),
    "f_hardswish_inplace": lambda: act_inplace(lambda x: F.hardswish(x, True), scale=4.0),
    "f_softmin_dtype": lambda: F.softmin(wave((3, 4), 0.37).float(), dim=1, dtype=D),
    "f_softmax_dtype": lambda: F.softmax(wave((3, 4), 0.37).float(), -1, dtype=D),
    "f_log_softmax_options": lambda: act_inplace(lambda x: F.log_softmax(x, dim=-1)),
    "f_softmax_options": lambda: act_inplace(lambda x: F.softmax(x, dim=0)),
    "f_glu_dim": lambda: act_inplace(lambda x: F.glu(x, 0), shape=(4, 3)),
    "f_normalize": lambda: act_inplace(lambda x: F.normalize(x)),
    "f_normalize_p1_dim0": lambda: act_inplace(lambda x: F.normalize(x, p=1.0, dim=0)),
    "f_normalize_eps": lambda: act_inplace(lambda x: F.normalize(x * 1e-3, eps=0.01)),
    "f_prelu": lambda: act_inplace(lambda x: F.prelu(x, torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=D)), shape=(2, 4, 2)),
    # random streams: PyTorch's generator draws, mindtorch must draw the same
    "rrelu_train": train_mod(lambda: nn.RReLU(), (3, 5)),
    "rrelu_train_bounds": train_mod(lambda: nn.RReLU(0.2, 0.6), (4, 4)),
    "f_rrelu_train": lambda: seeded(3, lambda: act_inplace(lambda x: F.rrelu(x, training=True))),
    "dropout1d_train": train_mod(lambda: nn.Dropout1d(0.4), (3, 4, 5)),
    "dropout1d_unbatched": train_mod(lambda: nn.Dropout1d(0.5), (6, 3)),
    "dropout2d_train": train_mod(lambda: nn.Dropout2d(0.3), (2, 5, 2, 2)),
    "dropout2d_3d_input": train_mod(lambda: nn.Dropout2d(0.5), (4, 5, 3)),
    "dropout3d_train": train_mod(lambda: nn.Dropout3d(0.5), (2, 4, 2, 1, 2)),
    "dropout3d_unbatched": train_mod(lambda: nn.Dropout3d(0.5), (6, 2, 1, 2)),
    "alpha_dropout_train": train_mod(lambda: nn.AlphaDropout(0.2), (4, 6)),
    "feature_alpha_dropout_train": train_mod(lambda: nn.FeatureAlphaDropout(0.4), (3, 4, 2)),
    "f_dropout2d_inplace": lambda: seeded(9, lambda: act_inplace(lambda x: F.dropout2d(x, 0.5, True, True),
                                                                  shape=(2, 4, 3))),
    "f_alpha_dropout_default_eval": lambda: act_inplace(lambda x: F.alpha_dropout(x, 0.5)),
    "f_feature_alpha_dropout_train": lambda: seeded(4, lambda: act_inplace(
        lambda x: F.feature_alpha_dropout(x, 0.5, True), shape=(3, 4, 2))),
    "gumbel_softmax": lambda: seeded(5, lambda: act_inplace(lambda x: F.gumbel_softmax(x))),
    "gumbel_softmax_tau_dim": lambda: seeded(6, lambda: act_inplace(lambda x: F.gumbel_softmax(x, tau=0.5, dim=0))),
    "gumbel_softmax_hard": lambda: seeded(8, lambda: act_inplace(lambda x: F.gumbel_softmax(x, hard=True))),
    # reprs
    "repr_activations": lambda: repr(nn.Sequential(
        nn.CELU(), nn.CELU(0.5, True), nn.SELU(), nn.SELU(True), nn.GLU(), nn.Hardshrink(), nn.Hardshrink(0.3),
        nn.Hardsigmoid(), nn.Hardswish(True), nn.LogSigmoid(), nn.PReLU(), nn.PReLU(3, 0.1), nn.RReLU(),
        nn.RReLU(0.1, 0.3, True), nn.ReLU6(), nn.ReLU6(True), nn.Softmin(), nn.Softmin(-1), nn.Softmax2d(),
        nn.Softshrink(), nn.Softshrink(1.5), nn.Softsign(), nn.Tanhshrink(), nn.Threshold(0.1, 20),
        nn.Threshold(0.5, 2.5, True))),
    "repr_dropouts": lambda: repr(nn.Sequential(nn.Dropout1d(), nn.Dropout2d(0.2, True), nn.Dropout3d(p=0.1),
                                                nn.AlphaDropout(), nn.FeatureAlphaDropout(0.3))),
    "repr_losses": lambda: repr(nn.Sequential(
        nn.CTCLoss(), nn.CosineEmbeddingLoss(), nn.GaussianNLLLoss(), nn.HingeEmbeddingLoss(),
        nn.MarginRankingLoss(), nn.MultiLabelMarginLoss(), nn.MultiLabelSoftMarginLoss(), nn.MultiMarginLoss(),
        nn.PoissonNLLLoss(), nn.SoftMarginLoss(), nn.TripletMarginLoss(), nn.TripletMarginWithDistanceLoss(),
        nn.CosineSimilarity(), nn.PairwiseDistance())),
    "repr_asm": lambda: repr(nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8])),
    "repr_asm_bias": lambda: repr(nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 15], div_value=2.0, head_bias=True)),
    "defaults_losses": lambda: [nn.CTCLoss().zero_infinity, nn.MarginRankingLoss().margin,
                                nn.HingeEmbeddingLoss().margin, nn.MultiMarginLoss().p, nn.MultiMarginLoss().margin,
                                nn.PoissonNLLLoss().log_input, nn.PoissonNLLLoss().eps, nn.GaussianNLLLoss().eps,
                                nn.TripletMarginLoss().margin, nn.TripletMarginLoss().p, nn.CosineSimilarity().eps,
                                nn.PairwiseDistance().eps, nn.RReLU().lower, nn.RReLU().upper,
                                nn.MultiMarginLoss(reduce=False).reduction,
                                nn.SoftMarginLoss(size_average=False).reduction],
    "state_dict_weighted_loss": lambda: sorted(nn.MultiMarginLoss(weight=W4).state_dict().keys()),
    "state_dict_asm": lambda: sorted(nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8], head_bias=True).state_dict().keys()),
    "init_asm": lambda: init_of(lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)),
    "init_prelu": lambda: init_of(lambda: nn.PReLU(2, 0.3)),
    # errors
    "error_glu_odd": lambda: F.glu(torch.randn(2, 3)),
    "error_glu_scalar": lambda: F.glu(torch.tensor(1.0)),
    "error_prelu_mismatch": lambda: F.prelu(torch.randn(2, 4), torch.ones(3)),
    "error_prelu_weight_dims": lambda: F.prelu(torch.randn(2, 4), torch.ones(1, 1)),
    "error_softmax2d": lambda: nn.Softmax2d()(torch.randn(2)),
    "error_rrelu_bounds": lambda: F.rrelu(torch.randn(3), 0.5, 0.2, True),
    "error_softshrink_lambd": lambda: F.softshrink(torch.randn(3), -1.0),
    "error_celu_alpha": lambda: F.celu(torch.randn(3), 0.0),
    "error_threshold_missing": lambda: nn.Threshold(0.1),
    "error_dropout1d_rank": lambda: F.dropout1d(torch.randn(4)),
    "error_dropout2d_p": lambda: F.dropout2d(torch.randn(2, 3, 4), 1.5),
    "error_dropout_module_p": lambda: nn.AlphaDropout(-0.5),
    "error_margin_ranking_dims": lambda: F.margin_ranking_loss(torch.randn(3), torch.randn(3), torch.randn(3, 1)),
    "error_multi_margin_p": lambda: F.multi_margin_loss(torch.randn(3, 4), MC_TARGET, p=3),
    "cross_entropy_byte_target_smoothing": lambda: F.cross_entropy(torch.randn(3, 4, dtype=D), MC_TARGET.byte(),
                                                                    label_smoothing=0.1),
    "error_cross_entropy_byte_target_smoothing_weight": lambda: F.cross_entropy(
        torch.randn(3, 4), MC_TARGET.byte(), weight=torch.ones(4), label_smoothing=0.1),
    "error_multi_margin_int_target": lambda: F.multi_margin_loss(torch.randn(3, 4), MC_TARGET.int()),
    "error_multi_margin_byte_target": lambda: F.multi_margin_loss(torch.randn(3, 4), MC_TARGET.byte()),
    "error_multi_margin_size_before_dtype": lambda: F.multi_margin_loss(torch.randn(3, 4), MC_TARGET[:2].int()),
    "error_multi_margin_3d": lambda: F.multi_margin_loss(torch.randn(2, 3, 4), MC_TARGET[:2]),
    "error_multi_margin_empty": lambda: F.multi_margin_loss(torch.randn(3, 0), MC_TARGET),
    "error_multi_margin_target_2d": lambda: F.multi_margin_loss(torch.randn(4), MC_TARGET[:1].view(1, 1)),
    "error_multilabel_margin_byte_target": lambda: F.multilabel_margin_loss(torch.randn(3, 4), ML_TARGET.clamp(0).byte()),
    "error_gaussian_var_size": lambda: F.gaussian_nll_loss(torch.randn(3, 4), torch.randn(3, 4), torch.ones(2, 4)),
    "error_gaussian_var_negative": lambda: F.gaussian_nll_loss(torch.randn(3, 4), torch.randn(3, 4), -torch.ones(3, 4)),
    "error_reduction": lambda: F.soft_margin_loss(torch.randn(3), torch.randn(3), reduction="max"),
    "error_triplet_dims": lambda: F.triplet_margin_loss(torch.randn(3, 4), torch.randn(3, 4), torch.randn(4)),
    "error_soft_margin_size": lambda: F.soft_margin_loss(torch.randn(3), torch.randn(4)),
    "error_asm_cutoffs": lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 4]),
    "error_asm_cutoffs_range": lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 10]),
    "error_asm_batch": lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(torch.randn(3, 8), torch.tensor([1, 2])),
    "error_asm_target_range": lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(torch.randn(2, 8),
                                                                               torch.tensor([1, 10])),
    "error_ctc_blank": lambda: F.ctc_loss(torch.randn(6, 3, 5).log_softmax(2), torch.ones(3, 2, dtype=torch.long),
                                          torch.tensor([6, 6, 6]), torch.tensor([2, 2, 2]), blank=5),
    "error_ctc_input_lengths": lambda: F.ctc_loss(torch.randn(6, 3, 5).log_softmax(2),
                                                  torch.ones(3, 2, dtype=torch.long),
                                                  torch.tensor([6, 6]), torch.tensor([2, 2, 2])),
    "error_ctc_target_lengths": lambda: F.ctc_loss(torch.randn(6, 3, 5).log_softmax(2),
                                                   torch.ones(3, 2, dtype=torch.long), torch.tensor([6, 6, 6]),
                                                   torch.tensor([2, 2])),
    "error_ctc_input_too_long": lambda: F.ctc_loss(torch.randn(6, 3, 5).log_softmax(2),
                                                   torch.ones(3, 2, dtype=torch.long), torch.tensor([7, 6, 6]),
                                                   torch.tensor([2, 2, 2])),
    "error_ctc_targets_short": lambda: F.ctc_loss(torch.randn(6, 3, 5).log_softmax(2),
                                                  torch.ones(3, 2, dtype=torch.long), torch.tensor([6, 6, 6]),
                                                  torch.tensor([3, 2, 2])),
    "error_ctc_concat_size": lambda: F.ctc_loss(torch.randn(6, 3, 5).log_softmax(2), torch.ones(5, dtype=torch.long),
                                                torch.tensor([6, 6, 6]), torch.tensor([3, 2, 2])),
    "error_ctc_reduction": lambda: F.ctc_loss(torch.randn(6, 3, 5).log_softmax(2), torch.ones(3, 2, dtype=torch.long),
                                              torch.tensor([6, 6, 6]), torch.tensor([2, 2, 2]), reduction="foo"),
    "error_cosine_embedding_target": lambda: F.cosine_embedding_loss(torch.randn(3, 2), torch.randn(3, 2),
                                                                     torch.ones(3, 1)),
    "error_threshold_args": lambda: F.threshold(torch.randn(3)),
})

# losses: every reduction
for _r in ("mean", "sum", "none"):
    CASES.update({
        "loss_margin_ranking_" + _r: (lambda r: lambda: three(lambda: nn.MarginRankingLoss(0.3, reduction=r)))(_r),
        "loss_cosine_embedding_" + _r: (lambda r: lambda: three(lambda: nn.CosineEmbeddingLoss(0.2, reduction=r),
                                                                (6, 3), SIGNS))(_r),
        "loss_hinge_embedding_" + _r: (lambda r: lambda: two(lambda: nn.HingeEmbeddingLoss(0.8, reduction=r),
                                                             target=torch.sign(wave((3, 4), 0.53, 0.4))))(_r),
        "loss_soft_margin_" + _r: (lambda r: lambda: two(lambda: nn.SoftMarginLoss(reduction=r),
                                                         target=torch.sign(wave((3, 4), 0.53, 0.4))))(_r),
        "loss_multilabel_margin_" + _r: (lambda r: lambda: two(lambda: nn.MultiLabelMarginLoss(reduction=r),
                                                               target=ML_TARGET))(_r),
        "loss_multilabel_soft_margin_" + _r: (lambda r: lambda: two(
            lambda: nn.MultiLabelSoftMarginLoss(weight=W4, reduction=r), target=ML_SOFT))(_r),
        "loss_multi_margin_" + _r: (lambda r: lambda: two(lambda: nn.MultiMarginLoss(reduction=r),
                                                          target=MC_TARGET))(_r),
        "loss_multi_margin_p2_weight_" + _r: (lambda r: lambda: two(
            lambda: nn.MultiMarginLoss(p=2, margin=0.7, weight=W4, reduction=r), target=MC_TARGET))(_r),
        "loss_poisson_" + _r: (lambda r: lambda: poisson(lambda: nn.PoissonNLLLoss(reduction=r)))(_r),
        "loss_poisson_full_" + _r: (lambda r: lambda: poisson(
            lambda: nn.PoissonNLLLoss(log_input=False, full=True, reduction=r), log_input=False))(_r),
        "loss_gaussian_" + _r: (lambda r: lambda: gaussian(lambda: nn.GaussianNLLLoss(reduction=r)))(_r),
        "loss_gaussian_full_homo_" + _r: (lambda r: lambda: gaussian(
            lambda: nn.GaussianNLLLoss(full=True, eps=0.2, reduction=r), (3,)))(_r),
        "loss_triplet_" + _r: (lambda r: lambda: triplet(lambda: nn.TripletMarginLoss(reduction=r)))(_r),
        "loss_triplet_swap_p1_" + _r: (lambda r: lambda: triplet(
            lambda: nn.TripletMarginLoss(margin=2.0, p=1.0, swap=True, reduction=r)))(_r),
        "loss_triplet_distance_" + _r: (lambda r: lambda: triplet(
            lambda: nn.TripletMarginWithDistanceLoss(reduction=r)))(_r),
        "loss_triplet_distance_cos_swap_" + _r: (lambda r: lambda: triplet(lambda: nn.TripletMarginWithDistanceLoss(
            distance_function=lambda a, b: 1.0 - F.cosine_similarity(a, b), margin=0.5, swap=True, reduction=r)))(_r),
        "loss_nll2d_" + _r: (lambda r: lambda: two(lambda: nn.NLLLoss2d(weight=W4[:3], reduction=r), (2, 3, 2, 2),
                                                   torch.tensor([[[0, 2], [1, 1]], [[2, 0], [0, 1]]])))(_r),
        "loss_ctc_" + _r: (lambda r: lambda: ctc_case(r))(_r),
        "loss_ctc_concat_" + _r: (lambda r: lambda: ctc_case(r, concat=True, via_log_softmax=True))(_r),
    })

CASES.update({
    "loss_legacy_size_average": lambda: two(lambda: nn.SoftMarginLoss(size_average=False),
                                            target=torch.sign(wave((3, 4), 0.53, 0.4))),
    "loss_legacy_reduce": lambda: three(lambda: nn.MarginRankingLoss(reduce=False)),
    "f_legacy_reduce": lambda: two(lambda: lambda x, t: F.hinge_embedding_loss(x, t, 1.0, True, False),
                                   target=torch.sign(wave((3, 4), 0.53, 0.4))),
    "loss_multi_margin_1d": lambda: two(lambda: nn.MultiMarginLoss(), (4,), torch.tensor(2)),
    "loss_multilabel_margin_1d": lambda: two(lambda: nn.MultiLabelMarginLoss(), (4,), torch.tensor([2, 0, -1, 3])),
    "loss_ctc_log_softmax": lambda: ctc_case(via_log_softmax=True),
    "loss_ctc_blank": lambda: ctc_case(blank=4, via_log_softmax=True),
    "loss_ctc_zero_length": lambda: ctc_case("sum", lengths=torch.tensor([3, 0, 1])),
    "loss_ctc_zero_infinity": lambda: ctc_case("mean", zero_infinity=True,
                                               targets=torch.tensor([[1, 1, 1], [3, 1, 0], [4, 4, 2]]),
                                               lengths=torch.tensor([3, 2, 3])),
    "loss_ctc_infinite": lambda: ctc_case("none", targets=torch.tensor([[1, 1, 1], [3, 1, 0], [4, 4, 4]]))[0],
    "loss_ctc_unbatched": lambda: ctc_case("none", unbatched=True),
    "torch_ctc_loss": lambda: torch.ctc_loss(wave((4, 2, 3), 0.37).log_softmax(2), torch.tensor([[1, 2], [2, 2]]),
                                             [4, 4], [2, 2]),
    "f_cosine_similarity": lambda: three(lambda: lambda a, b, _: F.cosine_similarity(a, b), (3, 4), None),
    "f_cosine_similarity_dim0": lambda: three(lambda: lambda a, b, _: F.cosine_similarity(a, b, 0, 1e-3), (3, 4),
                                              None),
    "f_pairwise_distance": lambda: three(lambda: lambda a, b, _: F.pairwise_distance(a, b, 3.0, 1e-4, True),
                                         (3, 4), None),
    "f_pdist": lambda: act_inplace(lambda x: F.pdist(x), shape=(4, 3)),
    "f_pdist_p1": lambda: act_inplace(lambda x: F.pdist(x, 1.0), shape=(4, 3)),
    "mod_cosine_similarity": lambda: three(lambda: (lambda m: lambda a, b, _: m(a, b))(nn.CosineSimilarity(0)),
                                           (3, 4), None),
    "mod_pairwise_distance": lambda: three(lambda: (lambda m: lambda a, b, _: m(a, b))(
        nn.PairwiseDistance(1.0, keepdim=True)), (3, 4), None),
    "asm_forward": lambda: asm_run(),
    "asm_head_bias": lambda: asm_run(head_bias=True),
    "asm_unbatched": lambda: asm_run(unbatched=True),
    "asm_log_prob_predict": asm_log_prob,
})
