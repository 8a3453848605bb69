"""Autograd: gradients of composite graphs, node names, and the errors of misuse."""
import torch

D = torch.float64


def x():
    return torch.tensor([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]], dtype=D, requires_grad=True)


def w():
    return torch.tensor([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.6]], dtype=D, requires_grad=True)


def v():
    return torch.tensor([0.2, -0.4, 1.1], dtype=D, requires_grad=True)


def grads_of(f, *inputs):
    """Run f on the inputs, backward from its result, return the inputs' .grad."""
    f(*inputs).backward()
    return tuple(i.grad for i in inputs)


def diamond(a):
    return ((a * 2) * a.exp()).sum()


def shared(a):
    return (a * a + a.sin() * a).sum()


def broadcast(a, b):
    return ((a * b + b) ** 2).sum()


def views(a):
    return (a.narrow(1, 1, 2).t() * a.select(1, 0)).sum() + a.view(3, 2)[1].sum() * 3


def inplace_nonleaf(a):
    c = a * 1
    c.mul_(2)
    c.select(0, 1).add_(a.select(0, 0))
    return (c * c).sum()


def inplace_view(a):
    c = a.clone()
    c.narrow(1, 0, 2).mul_(3)
    c.t().select(0, 2).exp_()
    return (c * a).sum()


def max_sort_index(a):
    return (a.max(1)[0].sum() + a.sort(1)[0].select(1, 0).sum() * 2 + a[torch.tensor([0, 1, 1])].sum()
            + a.min() * 5 + a.topk(2)[0].sum())


def mlp(a, w1, b):
    h = (a @ w1).relu()
    return torch.log_softmax(h + b[:2], 1).select(1, 0).sum()


def retain_twice(a):
    y = (a * a).sum()
    y.backward(retain_graph=True)
    y.backward()
    return (a.grad,)


def second_order(a):
    y = (a ** 3).sum()
    (g,) = torch.autograd.grad(y, a, create_graph=True)
    (g * g).sum().backward()
    return (a.grad,)


def hooked(a):
    a.register_hook(lambda g: g * 2)
    b = a * 3
    b.register_hook(lambda g: g + 1)
    b.sum().backward()
    return (a.grad,)


def retained(a):
    b = a.exp()
    b.retain_grad()
    (b * b).sum().backward()
    return (a.grad, b.grad)


def detached(a):
    (a * a.detach() + a.detach().exp()).sum().backward()
    return (a.grad,)


def no_grad_part(a):
    with torch.no_grad():
        c = a * 2
    (a * c).sum().backward()
    return (a.grad,)


def grad_outputs(a):
    y = a.exp()
    return torch.autograd.grad(y, a, torch.ones_like(y) * 0.5)


def grad_two_outputs(a, b):
    y1 = (a * b).sum(1)
    y2 = a.sin()
    return torch.autograd.grad([y1, y2], [a, b], [torch.tensor([1.0, 2.0], dtype=D), torch.ones(2, 3, dtype=D)])


def backward_inputs(a, b):
    (a * b).sum().backward(inputs=[b])
    return (b.grad, torch.tensor(a.grad is None))


def accumulate(a):
    (a * 2).sum().backward()
    (a * a).sum().backward()
    return (a.grad,)


def split_parts(a):
    p = a.split(2, 1)
    return ((p[0] * 2).sum() + (p[1] ** 2).sum())


def unbind_stack(a):
    r = a.unbind(0)
    return torch.stack([r[1], r[0] * r[1]], 0).pow(2).sum()


def cat_chunks(a):
    c = a.chunk(3, 1)
    return torch.cat([c[2], c[0]], 0).exp().sum()


def expand_sum(b):
    return (b.expand(4, 3) * torch.arange(12.0, dtype=D).view(4, 3)).sum()


def where_mask(a):
    return torch.where(a > 0, a * a, -a).sum() + a.masked_fill(a < 0, 0.0).sum()


def softmax_loss(a):
    p = a.softmax(1)
    return -(p.log() * torch.tensor([[1.0, 0, 0], [0, 0, 1.0]], dtype=D)).sum()


def norms(a):
    return a.norm() + a.norm(1, 1).sum() + a.std() + a.var(0).sum()


def names(f, *inputs):
    """grad_fn names along the first edges from f's result."""
    out = []
    fn = f(*inputs).grad_fn
    while fn is not None and len(out) < 6:
        out.append(fn.name())
        nf = [n for n, _ in fn.next_functions if n is not None]
        fn = nf[0] if nf else None
    return out


def backward_twice():
    a = x()
    y = a.exp().sum()
    y.backward()
    y.backward()


def saved_modified():
    a = x()
    b = a.sin()
    c = b.pow(2)
    with torch.no_grad():
        b.add_(1)
    c.sum().backward()


def leaf_inplace():
    x().add_(1)


def leaf_view_inplace():
    x()[0].mul_(2)


def split_inplace():
    a = x() * 1
    a.split(1, 0)[0].mul_(2)


def no_grad_view_inplace():
    a = x() * 1
    with torch.no_grad():
        b = a[0]
    b.mul_(2)


def unused_input():
    a, b = x(), v()
    torch.autograd.grad(a.sum(), [a, b])


def not_requiring_input():
    a = x()
    torch.autograd.grad(a.sum(), [torch.ones(2)])


def no_grad_fn():
    torch.ones(2).sum().backward()


def non_scalar():
    (x() * 2).backward()


def int_requires_grad():
    torch.ones(2, dtype=torch.long).requires_grad_()


def nonleaf_requires_grad_false():
    (x() * 2).requires_grad_(False)


def floor_divide_backward():
    torch.floor_divide(x(), 2).sum().backward()


def unique_backward():
    torch.unique(x()).sum().backward()


def resize_requires_grad():
    x().resize_(6)


def grad_shape_mismatch():
    (x() * 2).backward(torch.ones(3, dtype=D))


def set_grad_wrong_size():
    a = x()
    a.grad = torch.ones(3, dtype=D)


def set_grad_wrong_dtype():
    a = x()
    a.grad = torch.ones(2, 3)


def anomaly_nan():
    with torch.autograd.detect_anomaly():
        a = torch.tensor([0.0, 1.0], dtype=D, requires_grad=True)
        (a / a).sum().backward()


def sigmoid_saved_modified():
    a = torch.tensor([[0.5, -1.0], [2.0, 0.1]], requires_grad=True)
    y = a.sigmoid()
    y.mul_(2)
    y.sum().backward()


def inference_tensor():
    with torch.inference_mode():
        return torch.ones(2)


def inference_inplace():
    inference_tensor().add_(1)


def inference_version():
    return inference_tensor()._version


def inference_requires_grad():
    inference_tensor().requires_grad_()


def inference_saved():
    (x()[0] * inference_tensor()).sum()


def hook_counts(op, retain):
    counts = [0, 0]

    def pack(t):
        counts[0] += 1
        return t

    def unpack(t):
        counts[1] += 1
        return t

    a, b = x(), x()
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = op(a, b).sum()
    y.backward(retain_graph=retain)
    if retain:
        y.backward()
    return counts


def custom_fn_grads():
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, k):
            ctx.save_for_backward(a)
            ctx.k = k
            return a ** 3 * k

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a ** 2 * ctx.k, None

    a = x()
    y = Cube.apply(a, 2.0)
    (y * a).sum().backward()
    return (a.grad,)


def custom_fn_wrong_count():
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    Bad.apply(x()).sum().backward()


def functional_values():
    from torch.autograd import functional as F
    f = lambda a: (a.exp() * a).sum(1)
    a = torch.tensor([[0.5, -1.0], [1.5, 0.25]], dtype=D)
    j = F.jacobian(f, a)
    h = F.hessian(lambda a: (a ** 3).sum() + (a[0] * a[1]).sum(), a)
    _, vjp = F.vjp(f, a, torch.tensor([1.0, -2.0], dtype=D))
    _, jvp = F.jvp(f, a, torch.ones(2, 2, dtype=D))
    _, hvp = F.hvp(lambda a: (a ** 3).sum(), a, torch.ones(2, 2, dtype=D))
    return (j, h, vjp, jvp, hvp)


def extrema_ties_nan():
    n = float("nan")
    a = torch.tensor([1.0, n, 2.0, 3.0, n], dtype=D, requires_grad=True)
    b = torch.tensor([1.0, 0.5, n, 4.0, n], dtype=D, requires_grad=True)
    (torch.fmax(a, b) * 2 + torch.fmin(a, b) * 3 + torch.maximum(a, b) * 5).sum().backward()
    return (a.grad, b.grad)


def nansum_nan():
    n = float("nan")
    a = torch.tensor([[1.0, n, 2.0], [n, n, 3.0]], dtype=D, requires_grad=True)
    (torch.nansum(a, 1) * torch.tensor([2.0, 3.0], dtype=D)).sum().backward()
    return (a.grad,)


CASES = {
    "extrema_ties_nan": extrema_ties_nan,
    "nansum_nan": nansum_nan,
    "diamond": lambda: grads_of(diamond, x()),
    "shared_input": lambda: grads_of(shared, x()),
    "broadcasting": lambda: grads_of(broadcast, x(), v()),
    "views": lambda: grads_of(views, x()),
    "inplace_nonleaf": lambda: grads_of(inplace_nonleaf, x()),
    "inplace_view": lambda: grads_of(inplace_view, x()),
    "max_sort_index": lambda: grads_of(max_sort_index, x()),
    "mlp": lambda: grads_of(mlp, x(), w(), v()),
    "retain_graph_twice": lambda: retain_twice(x()),
    "second_order": lambda: second_order(x()),
    "hooks": lambda: hooked(x()),
    "retain_grad": lambda: retained(x()),
    "detach": lambda: detached(x()),
    "no_grad": lambda: no_grad_part(x()),
    "grad_outputs": lambda: grad_outputs(x()),
    "grad_two_outputs": lambda: grad_two_outputs(x(), x()),
    "backward_inputs": lambda: backward_inputs(x(), x()),
    "accumulate": lambda: accumulate(x()),
    "split": lambda: grads_of(split_parts, x()),
    "unbind_stack": lambda: grads_of(unbind_stack, x()),
    "cat_chunks": lambda: grads_of(cat_chunks, x()),
    "expand": lambda: grads_of(expand_sum, v()),
    "where_mask": lambda: grads_of(where_mask, x()),
    "softmax_loss": lambda: grads_of(softmax_loss, x()),
    "norms": lambda: grads_of(norms, x()),
    "names_mlp": lambda: names(mlp, x(), w(), v()),
    "names_views": lambda: names(lambda a: a.reshape(6).view(3, 2).t().contiguous().expand(2, 2, 3).sum(), x()),
    "names_ops": lambda: names(lambda a: (a.exp() * 2 + 1).sigmoid().max(), x()),
    "names_inplace": lambda: names(lambda a: (a * 1).mul_(2).add_(1).sum(), x()),
    # adaptive average pooling to 1x1 is a mean; to other sizes, the pooling's own node
    "names_adaptive_pool_one": lambda: names(
        lambda a: torch.nn.functional.adaptive_avg_pool2d(a.view(1, 2, 3), 1).sum(), x()),
    "names_adaptive_pool": lambda: names(
        lambda a: torch.nn.functional.adaptive_avg_pool2d(a.view(1, 2, 3), (2, 2)).sum(), x()),
    "error_backward_twice": backward_twice,
    "error_saved_modified": saved_modified,
    "error_leaf_inplace": leaf_inplace,
    "error_leaf_view_inplace": leaf_view_inplace,
    "error_split_inplace": split_inplace,
    "error_no_grad_view_inplace": no_grad_view_inplace,
    "error_unused_input": unused_input,
    "error_not_requiring_input": not_requiring_input,
    "error_no_grad_fn": no_grad_fn,
    "error_non_scalar": non_scalar,
    "error_int_requires_grad": int_requires_grad,
    "error_nonleaf_requires_grad_false": nonleaf_requires_grad_false,
    "error_floor_divide_backward": floor_divide_backward,
    "error_unique_backward": unique_backward,
    "error_resize": resize_requires_grad,
    "error_grad_shape": grad_shape_mismatch,
    "error_set_grad_size": set_grad_wrong_size,
    "error_set_grad_dtype": set_grad_wrong_dtype,
    "error_anomaly_nan": anomaly_nan,
    "error_sigmoid_saved_modified": sigmoid_saved_modified,
    "error_inference_inplace": inference_inplace,
    "error_inference_version": inference_version,
    "error_inference_requires_grad": inference_requires_grad,
    "error_inference_saved": inference_saved,
    "error_custom_wrong_count": custom_fn_wrong_count,
    "saved_hooks_mul": lambda: hook_counts(lambda a, b: a * b, False),
    "saved_hooks_add": lambda: hook_counts(lambda a, b: a + b, False),
    "saved_hooks_exp_retain": lambda: hook_counts(lambda a, b: a.exp() * b, True),
    "custom_function": custom_fn_grads,
    "functional": functional_values,
}
