-- Reductions and statistics against PyTorch (cases/statistics.py).
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("statistics")
