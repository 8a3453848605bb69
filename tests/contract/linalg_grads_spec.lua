-- Gradients of torch.linalg against PyTorch's (cases/linalg_grads.py).
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local L = torch.linalg
local D = torch.float64

local function a3()
  return torch.tensor({ { 4.0, 1.0, -0.5 }, { 0.5, 3.0, 1.0 }, { -1.0, 0.25, 5.0 } }, { dtype = D, requires_grad = true })
end
local function b32() return torch.tensor({ { 1.0, -2.0 }, { 0.5, 1.5 }, { -1.0, 0.75 } }, { dtype = D, requires_grad = true }) end
local function tall()
  return torch.tensor({ { 2.0, 1.0, 0.0 }, { 1.0, 3.0, 1.0 }, { 0.0, 1.0, 4.0 }, { 1.0, -1.0, 0.5 } },
    { dtype = D, requires_grad = true })
end
local function grads(f, ...)
  local inputs = table.pack(...)
  f(...):backward()
  local out = {}
  for i = 1, inputs.n do out[i] = inputs[i].grad end
  return out -- the harness compares a list with PyTorch's tuple
end
local function sym(a) return a + a.mT end
local function ar9() return torch.arange(9.0, { dtype = D }):view(3, 3) end
local TOL = 1e-9

local cases = {
  det = { function() return grads(function(a) return L.det(a) end, a3()) end, tol = TOL },
  slogdet = { function() return grads(function(a) local _, l = L.slogdet(a); return l end, a3()) end, tol = TOL },
  logdet = { function() return grads(function(a) return torch.logdet(a:matmul(a.mT)) end, a3()) end, tol = TOL },
  inv = { function() return grads(function(a) return (L.inv(a) * ar9()):sum() end, a3()) end, tol = TOL },
  solve = { function() return grads(function(a, b) return (L.solve(a, b) ^ 2):sum() end, a3(), b32()) end, tol = TOL },
  solve_left_false = { function()
    return grads(function(a, b) return (L.solve(a, b.mT, { left = false }) ^ 2):sum() end, a3(), b32())
  end, tol = TOL },
  cholesky = { function() return grads(function(a) return (L.cholesky(a:matmul(a.mT)) * ar9()):sum() end, a3()) end,
    tol = TOL },
  solve_triangular = { function()
    return grads(function(a, b) return L.solve_triangular(a:triu(), b, { upper = true }):sum() end, a3(), b32())
  end, tol = TOL },
  lu_factor = { function() return grads(function(a) return ((L.lu_factor(a)) ^ 2):sum() end, a3()) end, tol = TOL },
  lu_solve = { function()
    return grads(function(a, b) local lu, piv = L.lu_factor(a); return L.lu_solve(lu, piv, b):sum() end, a3(), b32())
  end, tol = TOL },
  qr = { function()
    return grads(function(a) local q, r = L.qr(a); return (q:sum(1) * 2):sum() + r:sum() end, tall())
  end, tol = TOL },
  eigh = { function()
    return grads(function(a)
      local e, v = L.eigh(sym(a))
      return (e * torch.tensor({ 1.0, 2.0, 3.0 }, { dtype = D })):sum() + (v ^ 2 * e):sum()
    end, a3())
  end, tol = TOL },
  svd = { function()
    return grads(function(a)
      local u, s, vh = L.svd(a, { full_matrices = false })
      return s:sum() + u:matmul(torch.diag(s)):matmul(vh):sum()
    end, tall())
  end, tol = TOL },
  svdvals = { function() return grads(function(a) return (L.svdvals(a) ^ 2):sum() end, tall()) end, tol = TOL },
  pinv = { function() return grads(function(a) return L.pinv(a):sum() end, tall()) end, tol = TOL },
  lstsq = { function()
    return grads(function(a, b) return (L.lstsq(a, b)):sum() end, tall(),
      torch.tensor({ { 1.0 }, { 2.0 }, { 0.5 }, { -1.0 } }, { dtype = D, requires_grad = true }))
  end, tol = TOL },
  matrix_exp = { function() return grads(function(a) return L.matrix_exp(a * 0.3):sum() end, a3()) end, tol = TOL },
  matrix_norm_nuc = { function() return grads(function(a) return L.matrix_norm(a, "nuc") end, tall()) end, tol = TOL },
  matrix_power_neg = { function() return grads(function(a) return L.matrix_power(a, -2):sum() end, a3()) end, tol = TOL },
  cholesky_inverse = { function()
    return grads(function(a) return torch.cholesky_inverse(L.cholesky(a:matmul(a.mT))):sum() end, a3())
  end, tol = TOL },
}

H.run("linalg_grads", cases)
