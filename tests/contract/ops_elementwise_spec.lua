-- Element-wise ops against PyTorch (cases/ops_elementwise.py), replayed from the goldens.
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("ops_elementwise")
