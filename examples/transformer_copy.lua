-- transformer_copy.lua: an encoder-decoder nn.Transformer learns to copy sequences of tokens,
-- trained with teacher forcing and a causal mask, then decodes greedily one token at a time.
--   luamt examples/transformer_copy.lua
-- the command line: --help only (Debian's lua-argparse); this example has no options
require "argparse"("luamt examples/transformer_copy.lua",
  "An encoder-decoder nn.Transformer learns to copy sequences of tokens."):parse()
local torch = require "mindtorch"
local nn, F = torch.nn, torch.nn.functional

torch.manual_seed(0)
local VOCAB, LEN, D = 10, 6, 32 -- tokens 3..10 are data; 1 starts a sequence (class indices are 1-based)
local START = 1

local Copier = nn.Module:subclass("Copier")
function Copier:__init()
  nn.Module.__init(self)
  self.embed = nn.Embedding(VOCAB, D)
  self.pos = nn.Parameter(torch.randn(LEN + 1, 1, D) * 0.1) -- learned positions, (S, 1, D)
  self.transformer = nn.Transformer(D, 4, 2, 2, 64, { dropout = 0.0 })
  self.out = nn.Linear(D, VOCAB)
end
function Copier:encode(tokens) return self.embed(tokens) + self.pos[{ { 1, tokens.shape[1] } }] end
function Copier:forward(src, tgt)
  local mask = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
  return self.out(self.transformer(self:encode(src), self:encode(tgt), { tgt_mask = mask }))
end

local function batch(n) -- (LEN, n) random sequences, and the decoder's input: START, then all but the last
  local src = torch.randint(3, VOCAB + 1, { LEN, n })
  return src, torch.cat({ torch.full({ 1, n }, START, { dtype = torch.int64 }), src[{ { 1, LEN - 1 } }] })
end

local model = Copier()
local opt = torch.optim.Adam(model:parameters(), { lr = 3e-3 })
for step = 1, 300 do
  local src, tgt_in = batch(32)
  opt:zero_grad()
  local loss = F.cross_entropy(model(src, tgt_in):reshape(-1, VOCAB), src:reshape(-1))
  loss:backward()
  opt:step()
  if step % 50 == 0 then print(("step %3d  loss %.4f"):format(step, loss:item())) end
end

-- greedy decoding: feed back each predicted token
model:eval()
local src = batch(64)
local out = torch.full({ 1, 64 }, START, { dtype = torch.int64 })
torch.no_grad(function()
  for _ = 1, LEN do
    local next_token = model(src, out)[-1]:argmax(-1):unsqueeze(1)
    out = torch.cat({ out, next_token })
  end
end)
local decoded = out[{ { 2, LEN + 1 } }]
print(("copy accuracy: %.3f"):format(decoded:eq(src):to(torch.float32):mean():item()))
print("first source:  ", table.concat(src[{ {}, 1 }]:tolist(), " "))
print("first decoded: ", table.concat(decoded[{ {}, 1 }]:tolist(), " "))
