"""optim breadth: Adamax, NAdam, RAdam, ASGD, Rprop and LBFGS trajectories (float64, the
single-tensor path), their state_dict layout and reload, and the lr schedulers PyTorch 1.13
added (ConstantLR, LinearLR, MultiplicativeLR, PolynomialLR, CosineAnnealingWarmRestarts,
CyclicLR, SequentialLR, ChainedScheduler) with chaining, step(epoch) and bad arguments."""
import copy

import torch
from torch import optim
from torch.optim import lr_scheduler as S

D = torch.float64


def problem():
    torch.manual_seed(3)
    w = torch.randn(3, 2, dtype=D, requires_grad=True)
    b = torch.randn(2, dtype=D, requires_grad=True)
    x = torch.randn(6, 3, dtype=D)
    y = torch.randn(6, 2, dtype=D)
    return w, b, x, y


def trajectory(make_opt, steps=12, reload_at=None):
    """Weights after `steps` steps and the loss before each; reload_at: a fresh optimizer takes
    over from the state_dict of the first after that many steps."""
    w, b, x, y = problem()
    opt = make_opt([w, b])
    losses = []
    for i in range(steps):
        if reload_at is not None and i == reload_at:
            sd = copy.deepcopy(opt.state_dict())
            opt = make_opt([w, b])
            opt.load_state_dict(sd)
        opt.zero_grad()
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        losses.append(loss.item())
        opt.step()
    return (w.detach(), b.detach(), torch.tensor(losses, dtype=D))


def describe_value(v):
    if isinstance(v, torch.Tensor):
        return "%s%s" % (str(v.dtype).replace("torch.", ""), list(v.shape))
    if isinstance(v, tuple):
        return list(v)
    return v


def layout(make_opt, steps=2):
    """The state_dict's layout after some steps: each group's options (None ones left out, as
    Lua cannot hold them), each parameter's state (tensors as dtype and shape) and its step."""
    w, b, x, y = problem()
    opt = make_opt([w, b])
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w + b - y) ** 2).mean().backward()
        opt.step()
    sd = opt.state_dict()
    groups = [{k: describe_value(v) for k, v in g.items() if v is not None} for g in sd["param_groups"]]
    state = []
    for i in sorted(sd["state"]):
        st = {k: describe_value(v) for k, v in sd["state"][i].items()}
        step = sd["state"][i].get("step")
        st["step_value"] = step.item() if isinstance(step, torch.Tensor) else step
        state.append(st)
    return {"groups": groups, "state": state, "state_keys": sorted(sd["state"])}


def rosenbrock(line_search_fn, steps=6, **kw):
    x = torch.tensor([-1.5, 2.0], dtype=D, requires_grad=True)
    opt = optim.LBFGS([x], line_search_fn=line_search_fn, **kw)

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss
    losses = []
    for _ in range(steps):
        losses.append(opt.step(closure).item())
    st = opt.state[x]
    return (x.detach(), torch.tensor(losses, dtype=D),
            torch.tensor([st["func_evals"], st["n_iter"]], dtype=D))


def lbfgs_lsq(line_search_fn, steps=4, **kw):
    w, b, x, y = problem()
    opt = optim.LBFGS([w, b], line_search_fn=line_search_fn, **kw)

    def closure():
        opt.zero_grad()
        loss = ((x @ w + b - y) ** 2).mean() + 0.1 * (w ** 4).sum()
        loss.backward()
        return loss
    losses = [opt.step(closure).item() for _ in range(steps)]
    return (w.detach(), b.detach(), torch.tensor(losses, dtype=D))


def lbfgs_state_keys():
    x, _ = rosenbrock_state()
    return x


def rosenbrock_state():
    x = torch.tensor([-1.5, 2.0], dtype=D, requires_grad=True)
    opt = optim.LBFGS([x], max_iter=3)

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss
    opt.step(closure)
    opt.step(closure)
    sd = opt.state_dict()
    st = sd["state"][0]
    g = {k: v for k, v in sd["param_groups"][0].items() if v is not None}
    return ({"keys": sorted(st), "func_evals": st["func_evals"], "n_iter": st["n_iter"],
             "history": len(st["old_dirs"]), "group": g}, opt)


# ---- schedulers -------------------------------------------------------------------------------


def lrs(make_sched, steps=25, opt=None, groups=1, epochs=None):
    """The lr of each group (and momentum where cycled) after construction and after each step."""
    if opt is None:
        ps = [torch.zeros(1, requires_grad=True) for _ in range(groups)]
        opt = optim.SGD([{"params": [p]} for p in ps], lr=0.1, momentum=0.9)
        for i, g in enumerate(opt.param_groups):
            g["lr"] = 0.1 * (i + 1)
    s = make_sched(opt)
    out = [[g["lr"] for g in opt.param_groups]]
    for i in range(steps):
        opt.step()
        if epochs is not None:
            s.step(epochs[i])
        else:
            s.step()
        out.append([g["lr"] for g in opt.param_groups] + [g.get("momentum") for g in opt.param_groups
                                                          if "momentum" in g and isinstance(s, S.CyclicLR)])
    out.append(s.get_last_lr())
    return out


def chained(make_scheds, steps=25):
    p = torch.zeros(1, requires_grad=True)
    opt = optim.SGD([p], lr=1.0)
    scheds = make_scheds(opt)
    out = [opt.param_groups[0]["lr"]]
    for _ in range(steps):
        opt.step()
        for s in scheds:
            s.step()
        out.append(opt.param_groups[0]["lr"])
    out.append([s.get_last_lr()[0] for s in scheds])
    return out


def sgd():
    return optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)


def adam():
    return optim.Adam([torch.zeros(1, requires_grad=True)], lr=0.1)


def sched_state(make_sched, steps=4):
    o = sgd()
    s = make_sched(o)
    for _ in range(steps):
        o.step()
        s.step()
    sd = s.state_dict()
    keep = {}
    for k, v in sd.items():
        if k == "_schedulers":
            v = [{kk: vv for kk, vv in d.items() if kk in ("last_epoch", "_last_lr", "base_lrs")} for d in v]
        if isinstance(v, (int, float, str, bool, list)) and k not in ("_get_lr_called_within_step", "verbose"):
            keep[k] = v
    return keep


def sched_reload(make_sched, steps=6, at=3):
    """A fresh scheduler loads the state_dict of the first after `at` steps and goes on."""
    o = sgd()
    s = make_sched(o)
    out = []
    for i in range(steps):
        if i == at:
            sd = dict(s.state_dict())  # CyclicLR holds a WeakMethod: no deepcopy in 1.13
            s = make_sched(o)
            s.load_state_dict(sd)
        o.step()
        s.step()
        out.append(o.param_groups[0]["lr"])
    return out


def double(e):
    return 0.95


P = {"lr": 0.01}

CASES = {
    # ---- optimizers: trajectories -------------------------------------------------------------------
    "adamax": lambda: trajectory(lambda p: optim.Adamax(p, lr=0.05)),
    "adamax_wd_max": lambda: trajectory(lambda p: optim.Adamax(p, lr=0.05, betas=(0.8, 0.95), eps=1e-6,
                                                               weight_decay=0.1, maximize=True)),
    "adamax_default": lambda: trajectory(lambda p: optim.Adamax(p)),
    "nadam": lambda: trajectory(lambda p: optim.NAdam(p, lr=0.05)),
    "nadam_wd": lambda: trajectory(lambda p: optim.NAdam(p, lr=0.05, betas=(0.85, 0.99), weight_decay=0.1,
                                                         momentum_decay=0.01)),
    "nadam_default": lambda: trajectory(lambda p: optim.NAdam(p)),
    "radam": lambda: trajectory(lambda p: optim.RAdam(p, lr=0.05)),
    "radam_wd": lambda: trajectory(lambda p: optim.RAdam(p, lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, eps=1e-6)),
    "radam_default": lambda: trajectory(lambda p: optim.RAdam(p)),
    "asgd": lambda: trajectory(lambda p: optim.ASGD(p, lr=0.05, lambd=1e-3, alpha=0.6, t0=4)),
    "asgd_wd_max": lambda: trajectory(lambda p: optim.ASGD(p, lr=0.02, t0=2, weight_decay=0.1, maximize=True)),
    "asgd_default": lambda: trajectory(lambda p: optim.ASGD(p)),
    "rprop": lambda: trajectory(lambda p: optim.Rprop(p, lr=0.05)),
    "rprop_opts": lambda: trajectory(lambda p: optim.Rprop(p, lr=0.1, etas=(0.3, 1.5), step_sizes=(0.01, 0.2),
                                                           maximize=True)),
    "rprop_default": lambda: trajectory(lambda p: optim.Rprop(p)),
    # a fresh optimizer continues from the state_dict of the first (NAdam's mu_product and
    # ASGD's eta and mu come back in the parameters' dtype, as PyTorch's cast does)
    "reload_adamax": lambda: trajectory(lambda p: optim.Adamax(p, lr=0.05, weight_decay=0.1), reload_at=5),
    "reload_nadam": lambda: trajectory(lambda p: optim.NAdam(p, lr=0.05), reload_at=5),
    "reload_radam": lambda: trajectory(lambda p: optim.RAdam(p, lr=0.05), reload_at=7),
    "reload_asgd": lambda: trajectory(lambda p: optim.ASGD(p, lr=0.05, t0=3), reload_at=5),
    "reload_rprop": lambda: trajectory(lambda p: optim.Rprop(p, lr=0.05), reload_at=5),
    "lbfgs": lambda: rosenbrock(None),
    "lbfgs_wolfe": lambda: rosenbrock("strong_wolfe"),
    "lbfgs_wolfe_history": lambda: rosenbrock("strong_wolfe", steps=4, history_size=2, max_iter=7, lr=0.8),
    "lbfgs_small_lr": lambda: rosenbrock(None, steps=5, lr=0.01, max_iter=10, history_size=3),
    "lbfgs_lsq": lambda: lbfgs_lsq(None, max_iter=5),
    "lbfgs_lsq_wolfe": lambda: lbfgs_lsq("strong_wolfe", max_iter=8, tolerance_change=1e-12),
    "lbfgs_state": lambda: rosenbrock_state()[0],
    # ---- optimizers: state_dict layout and defaults -------------------------------------------------------
    "layout_adamax": lambda: layout(lambda p: optim.Adamax(p)),
    "layout_nadam": lambda: layout(lambda p: optim.NAdam(p)),
    "layout_radam": lambda: layout(lambda p: optim.RAdam(p)),
    "layout_asgd": lambda: layout(lambda p: optim.ASGD(p)),
    "layout_rprop": lambda: layout(lambda p: optim.Rprop(p), steps=3),
    "layout_lbfgs_defaults": lambda: {k: v for k, v in optim.LBFGS([torch.zeros(1, requires_grad=True)])
                                      .param_groups[0].items() if k != "params" and v is not None},
    # ---- optimizers: errors -----------------------------------------------------------------------------
    "error_adamax_lr": lambda: optim.Adamax([torch.zeros(1, requires_grad=True)], lr=-1.0),
    "error_adamax_beta": lambda: optim.Adamax([torch.zeros(1, requires_grad=True)], betas=(0.9, 1.0)),
    "error_nadam_eps": lambda: optim.NAdam([torch.zeros(1, requires_grad=True)], eps=-1e-8),
    "error_nadam_momentum_decay": lambda: optim.NAdam([torch.zeros(1, requires_grad=True)], momentum_decay=-0.5),
    "error_radam_wd": lambda: optim.RAdam([torch.zeros(1, requires_grad=True)], weight_decay=-0.1),
    "error_radam_beta0": lambda: optim.RAdam([torch.zeros(1, requires_grad=True)], betas=(-0.1, 0.9)),
    "error_asgd_lr": lambda: optim.ASGD([torch.zeros(1, requires_grad=True)], lr=-0.5),
    "error_asgd_wd": lambda: optim.ASGD([torch.zeros(1, requires_grad=True)], weight_decay=-2),
    "error_rprop_lr": lambda: optim.Rprop([torch.zeros(1, requires_grad=True)], lr=-1),
    "error_rprop_etas": lambda: optim.Rprop([torch.zeros(1, requires_grad=True)], etas=(0.5, 0.9)),
    "error_lbfgs_groups": lambda: optim.LBFGS([{"params": [torch.zeros(1, requires_grad=True)]},
                                               {"params": [torch.zeros(1, requires_grad=True)]}]),
    "error_lbfgs_line_search": lambda: rosenbrock("wolfe"),
    # ---- schedulers: lr sequences ----------------------------------------------------------------------------
    "constant_lr": lambda: lrs(lambda o: S.ConstantLR(o, factor=0.5, total_iters=4), groups=2),
    "constant_lr_default": lambda: lrs(lambda o: S.ConstantLR(o)),
    "linear_lr": lambda: lrs(lambda o: S.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=7), groups=2),
    "linear_lr_default": lambda: lrs(lambda o: S.LinearLR(o)),
    "linear_lr_decay": lambda: lrs(lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=10)),
    "multiplicative_lr": lambda: lrs(lambda o: S.MultiplicativeLR(o, lambda e: 0.9 if e % 3 else 1.05)),
    "multiplicative_lr_list": lambda: lrs(lambda o: S.MultiplicativeLR(o, [lambda e: 0.9, lambda e: 1.0 / (e + 1)]),
                                          groups=2),
    "polynomial_lr": lambda: lrs(lambda o: S.PolynomialLR(o, total_iters=8, power=2.0), groups=2),
    "polynomial_lr_default": lambda: lrs(lambda o: S.PolynomialLR(o)),
    "polynomial_lr_sqrt": lambda: lrs(lambda o: S.PolynomialLR(o, total_iters=20, power=0.5)),
    "cawr": lambda: lrs(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=5, eta_min=0.01), groups=2),
    "cawr_mult": lambda: lrs(lambda o: S.CosineAnnealingWarmRestarts(o, 3, T_mult=2, eta_min=0.001), steps=30),
    "cawr_epochs": lambda: lrs(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2), steps=12,
                               epochs=[0.5, 1.25, 2.0, 3.75, 4.0, 5.5, 9.9, 12.0, 12.5, 27.0, 30.0, 2.5]),
    "cawr_epochs_mult1": lambda: lrs(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, eta_min=0.02), steps=8,
                                     epochs=[0.5, 1.0, 3.0, 4.5, 7.25, 9, 10, 1]),
    "cyclic_triangular": lambda: lrs(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=4), groups=2),
    "cyclic_triangular2": lambda: lrs(lambda o: S.CyclicLR(o, [0.01, 0.02], [0.1, 0.3], step_size_up=3,
                                                           step_size_down=5, mode="triangular2"), groups=2),
    "cyclic_exp_range": lambda: lrs(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=5, mode="exp_range",
                                                         gamma=0.9, base_momentum=0.7, max_momentum=0.95)),
    "cyclic_scale_fn": lambda: lrs(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 1 / x)),
    "cyclic_scale_fn_iterations": lambda: lrs(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2,
                                                                   scale_fn=lambda x: 0.99 ** x,
                                                                   scale_mode="iterations",
                                                                   cycle_momentum=False)),
    "cyclic_adam_no_momentum": lambda: lrs(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3, cycle_momentum=False),
                                           opt=adam()),
    "sequential": lambda: lrs(lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.1, total_iters=2),
                                                           S.ExponentialLR(o, gamma=0.9)], milestones=[2])),
    "sequential_three": lambda: lrs(lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.2, total_iters=4),
                                                                 S.StepLR(o, 3, gamma=0.5),
                                                                 S.CosineAnnealingLR(o, T_max=6)],
                                                             milestones=[5, 12])),
    "chained": lambda: lrs(lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=2),
                                                         S.ExponentialLR(o, gamma=0.9)])),
    "chained_three": lambda: lrs(lambda o: S.ChainedScheduler([S.LinearLR(o, start_factor=0.5, total_iters=5),
                                                               S.MultiStepLR(o, [3, 8, 8], gamma=0.5),
                                                               S.PolynomialLR(o, total_iters=20, power=1.5)])),
    # two schedulers on one optimizer, each stepped: each multiplies the lr the other left
    "two_on_one_exp_step": lambda: chained(lambda o: [S.ExponentialLR(o, 0.9), S.StepLR(o, 4, gamma=0.5)]),
    "two_on_one_linear_cosine": lambda: chained(lambda o: [S.LinearLR(o, start_factor=0.1, total_iters=5),
                                                           S.CosineAnnealingLR(o, T_max=10, eta_min=0.01)]),
    "two_on_one_constant_poly": lambda: chained(lambda o: [S.ConstantLR(o, factor=0.5, total_iters=3),
                                                           S.PolynomialLR(o, total_iters=10)]),
    "two_on_one_multiplicative_multistep": lambda: chained(lambda o: [S.MultiplicativeLR(o, lambda e: 0.97),
                                                                      S.MultiStepLR(o, [4, 9], gamma=0.2)]),
    # step(epoch): the closed forms
    "closed_step": lambda: lrs(lambda o: S.StepLR(o, 3, gamma=0.5), steps=6, epochs=[2, 3, 7, 1, 9, 9]),
    "closed_multistep": lambda: lrs(lambda o: S.MultiStepLR(o, [2, 5, 5], gamma=0.5), steps=5,
                                    epochs=[1, 2, 6, 5, 3]),
    "closed_exponential": lambda: lrs(lambda o: S.ExponentialLR(o, 0.8), steps=4, epochs=[3, 1, 4, 10]),
    "closed_cosine": lambda: lrs(lambda o: S.CosineAnnealingLR(o, T_max=8, eta_min=0.01), steps=4,
                                 epochs=[3, 8, 11, 2]),
    "closed_constant": lambda: lrs(lambda o: S.ConstantLR(o, factor=0.25, total_iters=3), steps=4,
                                   epochs=[1, 3, 2, 8]),
    "closed_linear": lambda: lrs(lambda o: S.LinearLR(o, start_factor=0.2, total_iters=6), steps=4,
                                 epochs=[1, 4, 9, 2]),
    "closed_polynomial": lambda: lrs(lambda o: S.PolynomialLR(o, total_iters=6, power=2.0), steps=4,
                                     epochs=[1, 4, 9, 2]),
    "closed_lambda": lambda: lrs(lambda o: S.LambdaLR(o, lambda e: 1 / (1 + e)), steps=3, epochs=[4, 2, 7]),
    # resuming: last_epoch given, initial_lr taken from the groups
    "resume_step_lr": lambda: lrs(lambda o: (o.param_groups[0].__setitem__("initial_lr", 0.4),
                                             S.StepLR(o, 3, gamma=0.5, last_epoch=4))[1], steps=8),
    "resume_cosine": lambda: lrs(lambda o: (o.param_groups[0].__setitem__("initial_lr", 0.4),
                                            S.CosineAnnealingLR(o, T_max=10, last_epoch=3))[1], steps=8),
    # state_dict and reload
    "state_linear": lambda: sched_state(lambda o: S.LinearLR(o, start_factor=0.5, total_iters=6)),
    "state_cawr": lambda: sched_state(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2)),
    "state_cyclic": lambda: sched_state(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3)),
    "state_sequential": lambda: sched_state(lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.1, total_iters=2),
                                                                         S.ExponentialLR(o, gamma=0.9)],
                                                                     milestones=[2])),
    "reload_cawr": lambda: sched_reload(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2)),
    "reload_polynomial": lambda: sched_reload(lambda o: S.PolynomialLR(o, total_iters=8)),
    # ---- schedulers: errors --------------------------------------------------------------------------------
    "error_constant_factor": lambda: S.ConstantLR(sgd(), factor=1.5),
    "error_linear_start": lambda: S.LinearLR(sgd(), start_factor=-0.1),
    "error_linear_end": lambda: S.LinearLR(sgd(), end_factor=2.0),
    "error_cawr_t0": lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=0),
    "error_cawr_t0_float": lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=2.5),
    "error_cawr_tmult": lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=2, T_mult=0),
    "error_cawr_epoch": lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=2).step(-1),
    "error_cyclic_mode": lambda: S.CyclicLR(sgd(), 0.01, 0.1, mode="cosine"),
    "error_cyclic_momentum": lambda: S.CyclicLR(adam(), 0.01, 0.1),
    "error_cyclic_base_lr_list": lambda: S.CyclicLR(sgd(), [0.01, 0.02], 0.1),
    "error_multiplicative_list": lambda: S.MultiplicativeLR(sgd(), [lambda e: 1.0, lambda e: 1.0]),
    "error_sequential_milestones": lambda: (lambda o: S.SequentialLR(o, [S.ConstantLR(o), S.ExponentialLR(o, 0.9)],
                                                                     milestones=[2, 4]))(sgd()),
    "error_sequential_optimizer": lambda: (lambda o: S.SequentialLR(o, [S.ConstantLR(o), S.ExponentialLR(sgd(), 0.9)],
                                                                    milestones=[2]))(sgd()),
    "error_chained_optimizer": lambda: (lambda o: S.ChainedScheduler([S.ConstantLR(o), S.ExponentialLR(sgd(), 0.9)]))(
        sgd()),
    "error_resume_initial_lr": lambda: S.StepLR(sgd(), 3, last_epoch=2),
}

CASES.update({
    # OneCycleLR: per-group momenta, resuming, and stepping past the end
    "one_cycle_groups": lambda: lrs(lambda o: S.OneCycleLR(o, max_lr=[0.5, 1.0], total_steps=12,
                                                           max_momentum=[0.95, 0.9], base_momentum=[0.8, 0.85]),
                                    steps=11, groups=2),
    "one_cycle_resume": lambda: lrs(lambda o: (S.OneCycleLR(o, max_lr=0.5, total_steps=20),
                                               S.OneCycleLR(o, max_lr=0.5, total_steps=20, last_epoch=6))[1],
                                    steps=8),
    "error_one_cycle_past_end": lambda: lrs(lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=5), steps=6),
    "error_one_cycle_momentum": lambda: S.OneCycleLR(optim.Adagrad([torch.zeros(1, requires_grad=True)]),
                                                     max_lr=0.5, total_steps=5),
})
