"""Gradients of the ops issue 18 added outside torch.linalg (statistics, the gamma family, ATen's
nn functions, scatter_reduce) against PyTorch's own, on fixed float64 inputs without ties;
each case returns its inputs' .grad."""
import torch

D = torch.float64
CASES = {}


def x():
    return torch.tensor([[0.5, -1.25, 2.0, 0.3], [1.5, 0.25, -0.75, -2.2], [0.9, 1.7, -0.4, 0.6]], dtype=D,
                        requires_grad=True)


def pos():
    return torch.tensor([[0.5, 1.25, 2.0, 0.3], [1.5, 0.25, 0.75, 2.2], [0.9, 1.7, 0.4, 3.6]], dtype=D,
                        requires_grad=True)


def y():
    return torch.tensor([[0.2, -0.1, 0.7, 1.1], [-0.6, 0.8, 0.05, -0.3], [1.2, -1.4, 0.35, 0.9]], dtype=D,
                        requires_grad=True)


def grads(f, *inputs):
    f(*inputs).backward()
    return tuple(i.grad for i in inputs)


W = torch.arange(1.0, 13.0, dtype=D).view(3, 4)
CASES.update({
    "median_dim": lambda: grads(lambda a: (torch.median(a, 1).values * torch.tensor([1.0, 2.0, 3.0], dtype=D)).sum(), x()),
    "nanmedian": lambda: grads(lambda a: torch.nanmedian(a), x()),
    "mode": lambda: grads(lambda a: torch.mode(a, 1).values.sum(), x()),
    "cummax": lambda: grads(lambda a: (torch.cummax(a, 1).values * W).sum(), x()),
    "cummin": lambda: grads(lambda a: (torch.cummin(a, 0).values * W).sum(), x()),
    "logcumsumexp": lambda: grads(lambda a: (torch.logcumsumexp(a, 1) * W).sum(), x()),
    "quantile": lambda: grads(lambda a: torch.quantile(a, torch.tensor([0.3, 0.8], dtype=D), dim=1).sum(), x()),
    "nanmean": lambda: grads(lambda a: (torch.nanmean(a, 0) * torch.arange(4.0, dtype=D)).sum(), x()),
    "diff": lambda: grads(lambda a: (torch.diff(a, n=2, dim=1) ** 2).sum(), x()),
    "dist": lambda: grads(lambda a, b: torch.dist(a, b, 3), x(), y()),
    "cdist": lambda: grads(lambda a, b: torch.cdist(a, b).sum(), x(), y()),
    "pdist": lambda: grads(lambda a: torch.pdist(a).sum(), x()),
    "cov": lambda: grads(lambda a: (torch.cov(a) * torch.arange(9.0, dtype=D).view(3, 3)).sum(), x()),
    "corrcoef": lambda: grads(lambda a: (torch.corrcoef(a) * torch.arange(9.0, dtype=D).view(3, 3)).sum(), x()),
    "renorm": lambda: grads(lambda a: (torch.renorm(a, 2, 0, 1.5) * W).sum(), x()),
    "trapezoid": lambda: grads(lambda a: torch.trapezoid(a, dim=1).sum(), x()),
    "cumulative_trapezoid": lambda: grads(lambda a: (torch.cumulative_trapezoid(a) * W[:, :3]).sum(), x()),
    "digamma": lambda: grads(lambda a: torch.digamma(a).sum(), pos()),
    "lgamma": lambda: grads(lambda a: torch.lgamma(a).sum(), pos()),
    "polygamma": lambda: grads(lambda a: torch.polygamma(2, a).sum(), pos()),
    "mvlgamma": lambda: grads(lambda a: torch.mvlgamma(a + 1.0, 2).sum(), pos()),
    "i0": lambda: grads(lambda a: torch.i0(a).sum(), x()),
    "logit": lambda: grads(lambda a: torch.logit(a.sigmoid(), eps=0.1).sum(), x()),
    "igammac": lambda: grads(lambda a, b: torch.igammac(a, b).sum(), pos().detach(), torch.tensor(
        [[0.5, 1.0, 1.5, 2.0], [2.5, 0.2, 1.1, 0.8], [1.3, 2.2, 0.6, 3.0]], dtype=D, requires_grad=True))[1:],
    "hardshrink": lambda: grads(lambda a: (torch.hardshrink(a, 0.6) * W).sum(), x()),
    "prelu": lambda: grads(lambda a, w: (torch.prelu(a.view(1, 3, 4), w) * W).sum(), x(),
                           torch.tensor([0.1, 0.2, 0.3], dtype=D, requires_grad=True)),
    "frexp": lambda: grads(lambda a: torch.frexp(a)[0].sum(), x()),
    "cosine_similarity": lambda: grads(lambda a, b: torch.cosine_similarity(a, b, 1).sum(), x(), y()),
    "pairwise_distance": lambda: grads(lambda a, b: torch.pairwise_distance(a, b).sum(), x(), y()),
    "margin_ranking_loss": lambda: grads(lambda a, b: torch.margin_ranking_loss(
        a, b, torch.tensor([[1.0, -1, 1, -1]] * 3, dtype=D), 0.2, 1), x(), y()),
    "triplet_margin_loss": lambda: grads(lambda a, b: torch.triplet_margin_loss(
        a, b, a.flip(0), 1.0, 2.0, 1e-6, False, 1), x(), y()),
    "poisson_nll_loss": lambda: grads(lambda a: torch.poisson_nll_loss(
        a, torch.arange(12.0, dtype=D).view(3, 4), True, False, 1e-8, 1), x()),
    "pixel_shuffle": lambda: grads(lambda a: (torch.pixel_shuffle(a.view(1, 4, 3, 1), 2) ** 2).sum(), x()),
    "instance_norm": lambda: grads(lambda a: (torch.instance_norm(
        a.view(1, 3, 4), None, None, None, None, True, 0.1, 1e-5, False) * W).sum(), x()),
    "gru_cell": lambda: grads(lambda a, b: torch.gru_cell(a[:2], b[:2, :3] * 0, torch.ones(9, 4, dtype=D) * 0.1,
                                                          torch.ones(9, 3, dtype=D) * 0.2).sum(), x(), y()),
    "lstm_cell": lambda: grads(lambda a: torch.lstm_cell(a, [a[:, :2] * 0.5, a[:, :2]],
                                                         torch.arange(32.0, dtype=D).view(8, 4) * 0.01,
                                                         torch.ones(8, 2, dtype=D) * 0.1)[0].sum(), x()),
    "scatter_reduce_amax": lambda: grads(lambda a, b: (a.scatter_reduce(1, torch.tensor([[0, 1, 0, 2]] * 3), b, "amax")
                                                       * W).sum(), x(), y()),
    "scatter_reduce_prod": lambda: grads(lambda a, b: a.scatter_reduce(0, torch.tensor([[0, 1, 2, 0], [1, 1, 0, 2]]),
                                                                       b[:2], "prod", include_self=False).sum(), x(), y()),
    "max_pool3d": lambda: grads(lambda a: torch.max_pool3d(a.view(1, 1, 3, 2, 2), 2, 1).sum(), x()),
    "conv3d": lambda: grads(lambda a, b: torch.conv3d(a.view(1, 1, 3, 2, 2), b[:2, :2].reshape(1, 1, 2, 2, 1)).sum(),
                            x(), y()),
})
