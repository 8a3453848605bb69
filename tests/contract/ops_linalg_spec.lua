-- Matrix products against PyTorch (cases/ops_linalg.py), replayed from goldens.
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("ops_linalg")
