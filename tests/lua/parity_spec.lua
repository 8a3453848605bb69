-- tools/parity_have.lua, the mindtorch half of `make parity`: it answers which names exist
-- (the PyTorch half needs python3-torch and runs by hand: make parity).
describe("parity_have.lua", function()
  it("prints back the names mindtorch has, per namespace, and only those", function()
    local names = os.tmpname()
    local f = assert(io.open(names, "w"))
    f:write("torch add\ntorch no_such_function\nTensor view\nTensor mT\nTensor grad\nTensor grad_fn\n",
      "Tensor no_such_method\nnn Linear\nnn NoSuchModule\nfunctional relu\noptim SGD\n",
      "lr_scheduler StepLR\ndata DataLoader\nlinalg no_such_linalg\nspecial no_such_special\n")
    f:close()
    local p = assert(io.popen(("%q tools/parity_have.lua %q"):format(arg[-1] or "build/luamt", names)))
    local out = p:read("a")
    p:close()
    os.remove(names)
    assert.are.equal(table.concat({ "torch add", "Tensor view", "Tensor mT", "Tensor grad", "Tensor grad_fn",
      "nn Linear", "functional relu", "optim SGD", "lr_scheduler StepLR", "data DataLoader" }, "\n") .. "\n", out)
  end)
end)
