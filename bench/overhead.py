"""overhead: the fixed cost of one call on a tiny (4-element) tensor."""
import torch

from common import result, time_per_call

x = torch.ones(4)
N = 200000
result("call_small_op_clone", time_per_call(lambda: x.clone(), N) * 1e6, "us")
result("call_method_view", time_per_call(lambda: x.view(2, 2), N) * 1e6, "us")
result("call_fill_inplace", time_per_call(lambda: x.fill_(1.5), N) * 1e6, "us")
result("create_zeros", time_per_call(lambda: torch.zeros(4), N) * 1e6, "us")
result("create_tensor_from_list", time_per_call(lambda: torch.tensor([1.0, 2.0, 3.0, 4.0]), N) * 1e6, "us")
result("read_item", time_per_call(lambda: x[1].item(), N) * 1e6, "us")
