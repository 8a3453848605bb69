-- Random streams against PyTorch: the same numbers after the same seed (cases/ops_random.py).
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("ops_random")
