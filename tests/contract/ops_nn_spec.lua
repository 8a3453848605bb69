-- Convolution and pooling ops against PyTorch (cases/ops_nn.py), replayed from goldens.
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("ops_nn")
