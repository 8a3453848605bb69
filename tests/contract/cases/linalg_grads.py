"""Gradients of torch.linalg against PyTorch's own (src/autograd/deriv_lapack.c and the
compositions), on fixed well-conditioned float64 inputs; each case returns its inputs' .grad."""
import torch

D = torch.float64
CASES = {}


def a3():
    return torch.tensor([[4.0, 1.0, -0.5], [0.5, 3.0, 1.0], [-1.0, 0.25, 5.0]], dtype=D, requires_grad=True)


def b32():
    return torch.tensor([[1.0, -2.0], [0.5, 1.5], [-1.0, 0.75]], dtype=D, requires_grad=True)


def tall():
    return torch.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0], [1.0, -1.0, 0.5]], dtype=D,
                        requires_grad=True)


def grads(f, *inputs):
    f(*inputs).backward()
    return tuple(i.grad for i in inputs)


def sym(a):
    return a + a.mT


L = torch.linalg
CASES.update({
    "det": lambda: grads(lambda a: L.det(a), a3()),
    "slogdet": lambda: grads(lambda a: L.slogdet(a)[1], a3()),
    "logdet": lambda: grads(lambda a: torch.logdet(a @ a.mT), a3()),
    "inv": lambda: grads(lambda a: (L.inv(a) * torch.arange(9.0, dtype=D).view(3, 3)).sum(), a3()),
    "solve": lambda: grads(lambda a, b: (L.solve(a, b) ** 2).sum(), a3(), b32()),
    "solve_left_false": lambda: grads(lambda a, b: (L.solve(a, b.mT, left=False) ** 2).sum(), a3(), b32()),
    "cholesky": lambda: grads(lambda a: (L.cholesky(a @ a.mT) * torch.arange(9.0, dtype=D).view(3, 3)).sum(),
                              a3()),
    "solve_triangular": lambda: grads(lambda a, b: L.solve_triangular(a.triu(), b, upper=True).sum(), a3(), b32()),
    "lu_factor": lambda: grads(lambda a: (L.lu_factor(a)[0] ** 2).sum(), a3()),
    "lu_solve": lambda: grads(lambda a, b: L.lu_solve(*L.lu_factor(a), b).sum(), a3(), b32()),
    "qr": lambda: grads(lambda a: (lambda q, r: (q.sum(0) * 2).sum() + r.sum())(*L.qr(a)), tall()),
    "eigh": lambda: grads(lambda a: (lambda e, v: (e * torch.tensor([1.0, 2.0, 3.0], dtype=D)).sum()
                                     + (v ** 2 * e).sum())(*L.eigh(sym(a))), a3()),
    "svd": lambda: grads(lambda a: (lambda u, s, vh: s.sum() + (u @ torch.diag(s) @ vh).sum())(
        *L.svd(a, full_matrices=False)), tall()),
    "svdvals": lambda: grads(lambda a: (L.svdvals(a) ** 2).sum(), tall()),
    "pinv": lambda: grads(lambda a: L.pinv(a).sum(), tall()),
    "lstsq": lambda: grads(lambda a, b: L.lstsq(a, b).solution.sum(), tall(), torch.tensor(
        [[1.0], [2.0], [0.5], [-1.0]], dtype=D, requires_grad=True)),
    "matrix_exp": lambda: grads(lambda a: L.matrix_exp(a * 0.3).sum(), a3()),
    "matrix_norm_nuc": lambda: grads(lambda a: L.matrix_norm(a, "nuc"), tall()),
    "matrix_power_neg": lambda: grads(lambda a: L.matrix_power(a, -2).sum(), a3()),
    "cholesky_inverse": lambda: grads(lambda a: torch.cholesky_inverse(L.cholesky(a @ a.mT)).sum(), a3()),
})
