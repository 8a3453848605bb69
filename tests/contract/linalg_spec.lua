-- torch.linalg against PyTorch (cases/linalg.py).
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("linalg")
