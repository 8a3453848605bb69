-- scatter_reduce, index_reduce and scatter(reduce=) against PyTorch (cases/scatter_reduce.py).
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("scatter_reduce")
