-- Random streams across calls, generators and saved states (cases/random_streams.py).
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()

H.run("random_streams", {
  stream_continues = function()
    torch.manual_seed(21)
    return { torch.rand(3), torch.rand(20), torch.randint(0, 1000, { 4 }) }
  end,
  normal_cache_across_calls = function()
    torch.manual_seed(22)
    return { torch.randn(3), torch.randn(1, { dtype = torch.float64 }), torch.randn(2, { dtype = torch.float16 }),
      torch.rand(2) }
  end,
  fill_path_leaves_cache = function()
    torch.manual_seed(23)
    return { torch.randn(1), torch.randn(16), torch.randn(1) }
  end,
  manual_seed_clears_cache = function()
    torch.manual_seed(24)
    torch.randn(1)
    torch.manual_seed(24)
    return torch.randn(2)
  end,
  generators_are_independent = function()
    torch.manual_seed(25)
    local g = torch.Generator():manual_seed(25)
    local a = torch.rand(3, { generator = g })
    local b = torch.rand(3)
    local c = torch.rand(3, { generator = g })
    return { a, b, c }
  end,
  new_generator_default_seed = function()
    local g = torch.Generator()
    return { torch.tensor(g:initial_seed()), torch.rand(4, { generator = g }) }
  end,
  state_round_trip = function()
    torch.manual_seed(26)
    torch.randn(3)
    local s = torch.get_rng_state()
    local a = torch.randn(5)
    torch.set_rng_state(s)
    return { a, torch.randn(5) }
  end,
  state_bytes = function()
    torch.manual_seed(27)
    torch.randn(3)
    torch.rand(10)
    return torch.get_rng_state()
  end,
  state_from_bytes = function()
    torch.manual_seed(28)
    torch.randn(1)
    local s = torch.get_rng_state()
    torch.manual_seed(0)
    local g = torch.Generator()
    g:set_state(s)
    return torch.randn(4, { generator = g })
  end,
  generator_state_size = function() return torch.Generator():get_state().shape end,
  set_state_wrong_size = function() torch.set_rng_state(torch.zeros(3, { dtype = torch.uint8 })) end,
  set_state_wrong_dtype = function() torch.set_rng_state(torch.zeros(5056)) end,
  dropout_after_rand = function()
    torch.manual_seed(29)
    return { torch.rand(2), torch.dropout(torch.ones(10, { dtype = torch.float64 }), 0.25, true), torch.rand(2) }
  end,
})
