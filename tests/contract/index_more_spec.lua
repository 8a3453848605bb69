-- More indexing ops against PyTorch (cases/index_more.py).
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("index_more")
