-- Reductions and ops along a dim against PyTorch (cases/ops_reduce.py), replayed from goldens.
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("ops_reduce")
