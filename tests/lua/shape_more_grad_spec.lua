-- The shape ops of src/ops/shape_more.lua and the products of src/ops/products.lua are compositions: their gradients are those of the
-- ops they are made of. gradcheck (float64, central differences) confirms each one end to end,
-- gradgradcheck a few.
local torch = require "mindtorch"
local gradcheck, gradgradcheck = torch.autograd.gradcheck, torch.autograd.gradgradcheck

local gen = torch.Generator():manual_seed(18)
local function r(...) return torch.randn(table.pack(...), { dtype = torch.float64, generator = gen }):requires_grad_() end
local function first(list) return list[1] * 1 + list[#list] * 2 end -- a list result as one tensor

local cases = {
  atleast_3d = { function(x) return torch.atleast_3d(x) end, { r(3) } },
  block_diag = { function(a, b) return torch.block_diag(a, b) end, { r(2, 3), r(2) }, true },
  cartesian_prod = { function(a, b) return torch.cartesian_prod(a, b) end, { r(2), r(3) } },
  combinations = { function(x) return torch.combinations(x, 2, true) end, { r(4) } },
  column_stack = { function(a, b) return torch.column_stack({ a, b }) end, { r(3), r(3, 2) } },
  hstack = { function(a, b) return torch.hstack({ a, b }) end, { r(2, 3), r(2, 1) } },
  vstack = { function(a, b) return torch.vstack({ a, b }) end, { r(3), r(2, 3) } },
  dstack = { function(a, b) return torch.dstack({ a, b }) end, { r(2, 3), r(2, 3) } },
  tensor_split = { function(x) return first(torch.tensor_split(x, { 1, 3 }, 2)) end, { r(2, 5) } },
  hsplit = { function(x) return first(torch.hsplit(x, 2)) end, { r(2, 4) } },
  split_with_sizes = { function(x) return first(x:split_with_sizes({ 1, 3 })) end, { r(4, 2) } },
  diag_embed = { function(x) return torch.diag_embed(x, 1) end, { r(2, 3) }, true },
  diagflat = { function(x) return torch.diagflat(x, -1) end, { r(2, 2) } },
  fliplr = { function(x) return torch.fliplr(x) end, { r(2, 3) } },
  movedim = { function(x) return torch.movedim(x, { 1, 3 }, { 3, 1 }) end, { r(2, 3, 4) } },
  ravel = { function(x) return torch.ravel(x:t()) end, { r(2, 3) } },
  rot90 = { function(x) return torch.rot90(x, 3) end, { r(2, 3) }, true },
  repeat_interleave = { function(x) return torch.repeat_interleave(x, torch.tensor({ 1, 0, 2 }), 2) end, { r(2, 3) } },
  repeat_interleave_int = { function(x) return x:repeat_interleave(2, 1) end, { r(2, 3) } },
  take_along_dim = { function(x) return torch.take_along_dim(x, torch.tensor({ { 1, 3 }, { 2, 2 } }), 2) end,
    { r(2, 3) }, true },
  meshgrid = { function(a, b) return first(torch.meshgrid(a, b, { indexing = "xy" })) end, { r(2), r(3) } },
  unfold = { function(x) return x:unfold(2, 3, 2) end, { r(2, 7) }, true },
  sum_to_size = { function(x) return x:sum_to_size(3, 1) end, { r(2, 3, 4) } },
  -- indexing (src/ops/index_more.lua)
  slice_scatter = { function(x, s) return torch.slice_scatter(x, s, 1, 0, 4, 2) end, { r(4, 3), r(2, 3) } },
  select_scatter = { function(x, s) return torch.select_scatter(x, s, 2, 1) end, { r(4, 3), r(4) } },
  diagonal_scatter = { function(x, s) return torch.diagonal_scatter(x, s, 1) end, { r(3, 4), r(3) }, true },
  as_strided_scatter = { function(x, s) return torch.as_strided_scatter(x, s, { 2, 2 }, { 1, 3 }, 1) end,
    { r(3, 3), r(2, 2) } },
  index_fill = { function(x) return x:index_fill(2, torch.tensor({ 1, 3 }), 1.5) end, { r(3, 4) } },
  index_fill_tensor = { function(x, v) return x:index_fill(1, torch.tensor({ 2 }), v) end, { r(3, 4), r() } },
  put = { function(x, s) return x:put(torch.tensor({ 1, 12, 5 }), s) end, { r(3, 4), r(3) } },
  put_accumulate = { function(x, s) return x:t():put(torch.tensor({ 1, 1, 5 }), s, true) end, { r(3, 4), r(3) } },
  msort = { function(x) return torch.msort(x) end, { r(4, 3) } },
  fill_diagonal_ = { function(x) return (x * 1):fill_diagonal_(2) end, { r(3, 4) } },
  type_as = { function(x) return x:type_as(x) * 2 end, { r(3) } },
  -- products (src/ops/products.lua)
  kron = { function(a, b) return torch.kron(a, b) end, { r(2, 3), r(2, 2) }, true },
  inner = { function(a, b) return torch.inner(a, b) end, { r(2, 3), r(4, 3) }, true },
  vdot = { function(a, b) return torch.vdot(a, b) end, { r(4), r(4) } },
  tensordot = { function(a, b) return torch.tensordot(a, b, { { 2, 3 }, { 2, 1 } }) end, { r(2, 3, 4), r(4, 3, 2) }, true },
  tensordot_broadcast = { function(a, b) return torch.tensordot(a, b, 1) end, { r(2, 1), r(3, 4) } },
  chain_matmul = { function(a, b, c) return torch.chain_matmul(a, b, c) end, { r(2, 3), r(3, 4), r(4, 2) } },
  addbmm = { function(s, a, b) return torch.addbmm(s, a, b, { beta = 0.5, alpha = 2 }) end,
    { r(2, 4), r(3, 2, 5), r(3, 5, 4) }, true },
  addr = { function(s, a, b) return torch.addr(s, a, b, { beta = 2, alpha = -1 }) end, { r(3), r(2), r(3) }, true },
  trace = { function(x) return torch.trace(x) end, { r(3, 4) } },
  vander = { function(x) return torch.vander(x, 4) end, { r(3) }, true },
  einsum_bilinear = { function(a, b, c) return torch.einsum("bn,anm,bm->ba", a, b, c) end,
    { r(2, 3), r(4, 3, 5), r(2, 5) }, true },
  einsum_diagonal = { function(x) return torch.einsum("bii->bi", x) end, { r(2, 3, 3) } },
  einsum_ellipsis = { function(a, b) return torch.einsum("...ij,...jk", a, b) end, { r(5, 2, 3), r(3, 4) } },
}

describe("shape_more gradients", function()
  local names = {}
  for name in pairs(cases) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local c = cases[name]
    it(name, function()
      assert.is_true(gradcheck(c[1], c[2]))
      if c[3] then assert.is_true(gradgradcheck(c[1], c[2])) end
    end)
  end
end)
