-- The gamma family and its neighbours against PyTorch (cases/gamma.py), replayed from goldens.
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("gamma")
