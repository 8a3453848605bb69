-- Products against PyTorch (cases/products.py).
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("products")
