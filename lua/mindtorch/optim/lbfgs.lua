-- lbfgs.lua: L-BFGS as PyTorch 1.13's optim.LBFGS: the two-loop recursion over the last
-- history_size steps, a fixed step or the strong Wolfe line search with cubic interpolation,
-- step(closure) returning the closure's first loss. The scalars (dot products, step lengths)
-- are Lua numbers: PyTorch's 0-dim float64 tensors, with the same operations in the same order.
return function(torch, optim)
  local Optimizer = optim.Optimizer
  local py_type = require("mindtorch._args").py_type

  -- Python's max(a, b) and min(a, b): a unless b is strictly greater (smaller)
  local function py_max(a, b) if b > a then return b end return a end
  local function py_min(a, b) if b < a then return b end return a end
  local function max_of(list) return py_max(list[1], list[2] or list[1]) end
  local function min_of(list) return py_min(list[1], list[2] or list[1]) end

  -- the minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to
  -- bounds (the interval's ends by default); the bounds' middle when the cubic has none
  local function cubic_interpolate(x1, f1, g1, x2, f2, g2, lo, hi)
    if lo == nil then
      if x1 <= x2 then lo, hi = x1, x2 else lo, hi = x2, x1 end
    end
    local d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    local d2_square = d1 * d1 - g1 * g2
    if d2_square >= 0 then
      local d2 = math.sqrt(d2_square)
      local min_pos
      if x1 <= x2 then
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
      else
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
      end
      return py_min(py_max(min_pos, lo), hi)
    end
    return (lo + hi) / 2
  end

  local function dot(a, b) return a:dot(b):item() end

  -- the strong Wolfe line search (c1 = 1e-4, c2 = 0.9, at most 25 evaluations): returns the
  -- loss, flat gradient and step at the point chosen, and the number of evaluations
  local function strong_wolfe(obj_func, x, t, d, f, g, gtd, tolerance_change)
    local c1, c2, max_ls = 1e-4, 0.9, 25
    local d_norm = d:abs():max():item()
    g = g:clone()
    local f_new, g_new = obj_func(x, t, d)
    local ls_func_evals = 1
    local gtd_new = dot(g_new, d)
    local t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    local done, ls_iter = false, 0
    local bracket, bracket_f, bracket_g, bracket_gtd
    while ls_iter < max_ls do
      if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev) then
        bracket, bracket_f = { t_prev, t }, { f_prev, f_new }
        bracket_g, bracket_gtd = { g_prev, g_new:clone() }, { gtd_prev, gtd_new }
        break
      end
      if math.abs(gtd_new) <= -c2 * gtd then
        bracket, bracket_f, bracket_g = { t }, { f_new }, { g_new }
        done = true
        break
      end
      if gtd_new >= 0 then
        bracket, bracket_f = { t_prev, t }, { f_prev, f_new }
        bracket_g, bracket_gtd = { g_prev, g_new:clone() }, { gtd_prev, gtd_new }
        break
      end
      -- extrapolate
      local min_step = t + 0.01 * (t - t_prev)
      local max_step = t * 10
      local tmp = t
      t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, min_step, max_step)
      t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new:clone(), gtd_new
      f_new, g_new = obj_func(x, t, d)
      ls_func_evals = ls_func_evals + 1
      gtd_new = dot(g_new, d)
      ls_iter = ls_iter + 1
    end
    if ls_iter == max_ls then
      bracket, bracket_f, bracket_g = { 0, t }, { f, f_new }, { g, g_new }
    end

    -- zoom: shrink the bracket until a point satisfies the conditions
    local insuf_progress = false
    local low, high = 1, 2
    if not (bracket_f[1] <= bracket_f[#bracket_f]) then low, high = 2, 1 end
    while not done and ls_iter < max_ls do
      if math.abs(bracket[2] - bracket[1]) * d_norm < tolerance_change then break end
      t = cubic_interpolate(bracket[1], bracket_f[1], bracket_gtd[1], bracket[2], bracket_f[2], bracket_gtd[2])
      -- too close to an end of the bracket: move away from it, unless progress was fine
      local bmax, bmin = max_of(bracket), min_of(bracket)
      local eps = 0.1 * (bmax - bmin)
      if py_min(bmax - t, t - bmin) < eps then
        if insuf_progress or t >= bmax or t <= bmin then
          if math.abs(t - bmax) < math.abs(t - bmin) then t = bmax - eps else t = bmin + eps end
          insuf_progress = false
        else
          insuf_progress = true
        end
      else
        insuf_progress = false
      end
      f_new, g_new = obj_func(x, t, d)
      ls_func_evals = ls_func_evals + 1
      gtd_new = dot(g_new, d)
      ls_iter = ls_iter + 1
      if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low] then
        bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = t, f_new, g_new:clone(), gtd_new
        if bracket_f[1] <= bracket_f[2] then low, high = 1, 2 else low, high = 2, 1 end
      else
        if math.abs(gtd_new) <= -c2 * gtd then
          done = true
        elseif gtd_new * (bracket[high] - bracket[low]) >= 0 then
          bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
          bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
        end
        bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low] = t, f_new, g_new:clone(), gtd_new
      end
    end
    return bracket_f[low], bracket_g[low], bracket[low], ls_func_evals
  end

  -- LBFGS(params, lr = 1, max_iter = 20, max_eval = max_iter * 5 // 4, tolerance_grad = 1e-7,
  -- tolerance_change = 1e-9, history_size = 100, line_search_fn = nil or "strong_wolfe")
  local LBFGS = Optimizer:extend("optim.LBFGS",
    { lr = 1, max_iter = 20, tolerance_grad = 1e-7, tolerance_change = 1e-9, history_size = 100 },
    { "lr", "max_iter", "max_eval", "tolerance_grad", "tolerance_change", "history_size", "line_search_fn" })
  function LBFGS:_check(g)
    if g.max_eval == nil then
      if math.type(g.max_iter) ~= "integer" then
        error(("unsupported operand type(s) for //: '%s' and 'int'"):format(py_type(g.max_iter)), 4)
      end
      g.max_eval = g.max_iter * 5 // 4
    end
  end

  function LBFGS.new(cls, params, ...)
    local o = Optimizer.new(cls, params, ...)
    if #o.param_groups ~= 1 then error("LBFGS doesn't support per-parameter options (parameter groups)", 2) end
    o._params = o.param_groups[1].params
    return o
  end

  function LBFGS:_gather_flat_grad()
    local views = {}
    for i, p in ipairs(self._params) do
      if p.grad == nil then views[i] = torch.zeros(p:numel(), { dtype = p.dtype, device = p.device })
      else views[i] = p.grad:reshape(-1) end
    end
    return torch.cat(views, 1)
  end

  function LBFGS:_add_grad(step_size, update)
    local offset = 0
    for _, p in ipairs(self._params) do
      local n = p:numel()
      p:add_(update:narrow(1, offset + 1, n):view_as(p), { alpha = step_size })
      offset = offset + n
    end
  end

  function LBFGS:_clone_param()
    local out = {}
    for i, p in ipairs(self._params) do out[i] = p:clone() end
    return out
  end

  function LBFGS:_set_param(data)
    for i, p in ipairs(self._params) do p:copy_(data[i]) end
  end

  local function as_number(v)
    if torch.is_tensor(v) then return v:item() end
    if type(v) ~= "number" then
      error(("float() argument must be a string or a number, not '%s'"):format(py_type(v)), 4)
    end
    return v
  end

  function LBFGS:_directional_evaluate(closure, x, t, d)
    self:_add_grad(t, d)
    local loss = as_number(closure())
    local flat_grad = self:_gather_flat_grad()
    self:_set_param(x)
    return loss, flat_grad
  end

  -- step(closure): up to max_iter iterations; returns the loss of the closure's first call
  function LBFGS:step(closure)
    if closure == nil then error("step() missing 1 required positional argument: 'closure'", 2) end
    if #self.param_groups ~= 1 then error("LBFGS doesn't support per-parameter options (parameter groups)", 2) end
    local eval = function() return torch.enable_grad(closure) end
    return torch.no_grad(function() return self:_step(eval) end)
  end

  function LBFGS:_step(closure)
    local group = self.param_groups[1]
    local lr, max_iter, max_eval = group.lr, group.max_iter, group.max_eval
    local tolerance_grad, tolerance_change = group.tolerance_grad, group.tolerance_change
    local line_search_fn, history_size = group.line_search_fn, group.history_size

    local p1 = self._params[1]
    local state = self.state[p1]
    if state == nil then
      state = {}
      self.state[p1] = state
    end
    state.func_evals = state.func_evals or 0
    state.n_iter = state.n_iter or 0

    local orig_loss = closure()
    local loss = as_number(orig_loss)
    local current_evals = 1
    state.func_evals = state.func_evals + 1
    local flat_grad = self:_gather_flat_grad()
    local opt_cond = flat_grad:abs():max():item() <= tolerance_grad
    if opt_cond then return orig_loss end

    local d, t = state.d, state.t
    local old_dirs, old_stps, ro, H_diag = state.old_dirs, state.old_stps, state.ro, state.H_diag
    local prev_flat_grad, prev_loss = state.prev_flat_grad, state.prev_loss

    local n_iter = 0
    while n_iter < max_iter do
      n_iter = n_iter + 1
      state.n_iter = state.n_iter + 1
      -- the direction
      if state.n_iter == 1 then
        d = flat_grad:neg()
        old_dirs, old_stps, ro, H_diag = {}, {}, {}, 1
      else
        local y = flat_grad:sub(prev_flat_grad)
        local s = d:mul(t)
        local ys = dot(y, s)
        if ys > 1e-10 then
          if #old_dirs == history_size then
            table.remove(old_dirs, 1)
            table.remove(old_stps, 1)
            table.remove(ro, 1)
          end
          old_dirs[#old_dirs + 1] = y
          old_stps[#old_stps + 1] = s
          ro[#ro + 1] = 1 / ys
          H_diag = ys / dot(y, y)
        end
        local num_old = #old_dirs
        state.al = state.al or {}
        local al = state.al
        local q = flat_grad:neg()
        for i = num_old, 1, -1 do
          al[i] = dot(old_stps[i], q) * ro[i]
          q:add_(old_dirs[i], { alpha = -al[i] })
        end
        local r = torch.mul(q, H_diag)
        d = r
        for i = 1, num_old do
          local be_i = dot(old_dirs[i], r) * ro[i]
          r:add_(old_stps[i], { alpha = al[i] - be_i })
        end
      end
      if prev_flat_grad == nil then prev_flat_grad = flat_grad:clone() else prev_flat_grad:copy_(flat_grad) end
      prev_loss = loss

      -- the step
      if state.n_iter == 1 then
        t = py_min(1, 1 / flat_grad:abs():sum():item()) * lr
      else
        t = lr
      end
      local gtd = dot(flat_grad, d)
      if gtd > -tolerance_change then break end

      local ls_func_evals = 0
      if line_search_fn ~= nil then
        if line_search_fn ~= "strong_wolfe" then error("only 'strong_wolfe' is supported", 4) end
        local x_init = self:_clone_param()
        local function obj_func(x, tt, dd) return self:_directional_evaluate(closure, x, tt, dd) end
        loss, flat_grad, t, ls_func_evals = strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd, tolerance_change)
        self:_add_grad(t, d)
        opt_cond = flat_grad:abs():max():item() <= tolerance_grad
      else
        self:_add_grad(t, d)
        if n_iter ~= max_iter then
          loss = as_number(closure())
          flat_grad = self:_gather_flat_grad()
          opt_cond = flat_grad:abs():max():item() <= tolerance_grad
          ls_func_evals = 1
        end
      end
      current_evals = current_evals + ls_func_evals
      state.func_evals = state.func_evals + ls_func_evals

      -- the conditions to stop
      if n_iter == max_iter then break end
      if current_evals >= max_eval then break end
      if opt_cond then break end
      if d:mul(t):abs():max():item() <= tolerance_change then break end
      if math.abs(loss - prev_loss) < tolerance_change then break end
    end

    state.d, state.t, state.old_dirs, state.old_stps, state.ro = d, t, old_dirs, old_stps, ro
    state.H_diag, state.prev_flat_grad, state.prev_loss = H_diag, prev_flat_grad, prev_loss
    return orig_loss
  end
  optim.LBFGS = LBFGS
end
