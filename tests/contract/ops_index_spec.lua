-- Joining, reordering and indexing ops against PyTorch (cases/ops_index.py).
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("ops_index")
