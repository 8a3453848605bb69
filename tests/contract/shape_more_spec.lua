-- More shape and indexing ops against PyTorch (cases/shape_more.py).
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("shape_more")
