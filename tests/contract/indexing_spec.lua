-- Torch7-style indexing and assignment against PyTorch's Python indexing (cases/indexing.py).
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("indexing")
