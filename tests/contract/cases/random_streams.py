"""Random streams across calls: the stream continues from call to call, the normal sample
cached by the scalar path survives across calls and dtypes, generators are independent,
states round-trip in PyTorch's byte layout (tests/contract/random_streams_spec.lua)."""
import torch

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def stream_continues():
    torch.manual_seed(21)
    return (torch.rand(3), torch.rand(20), torch.randint(0, 1000, (4,)))


@case
def normal_cache_across_calls():
    torch.manual_seed(22)
    return (torch.randn(3), torch.randn(1, dtype=torch.float64), torch.randn(2, dtype=torch.float16),
            torch.rand(2))


@case
def fill_path_leaves_cache():
    torch.manual_seed(23)
    return (torch.randn(1), torch.randn(16), torch.randn(1))


@case
def manual_seed_clears_cache():
    torch.manual_seed(24)
    torch.randn(1)
    torch.manual_seed(24)
    return torch.randn(2)


@case
def generators_are_independent():
    torch.manual_seed(25)
    g = torch.Generator().manual_seed(25)
    a = torch.rand(3, generator=g)
    b = torch.rand(3)
    c = torch.rand(3, generator=g)
    return (a, b, c)


@case
def new_generator_default_seed():
    g = torch.Generator()
    return (torch.tensor(g.initial_seed()), torch.rand(4, generator=g))


@case
def state_round_trip():
    torch.manual_seed(26)
    torch.randn(3)  # leaves a cached normal sample in the state
    s = torch.get_rng_state()
    a = torch.randn(5)
    torch.set_rng_state(s)
    return (a, torch.randn(5))


@case
def state_bytes():
    torch.manual_seed(27)
    torch.randn(3)
    torch.rand(10)
    return torch.get_rng_state()


@case
def state_from_bytes():
    torch.manual_seed(28)
    torch.randn(1)
    s = torch.get_rng_state()
    torch.manual_seed(0)
    g = torch.Generator()
    g.set_state(s)
    return torch.randn(4, generator=g)


@case
def generator_state_size():
    return torch.Generator().get_state().shape


@case
def set_state_wrong_size():
    torch.set_rng_state(torch.zeros(3, dtype=torch.uint8))


@case
def set_state_wrong_dtype():
    torch.set_rng_state(torch.zeros(5056))


@case
def dropout_after_rand():
    torch.manual_seed(29)
    return (torch.rand(2), torch.dropout(torch.ones(10, dtype=torch.float64), 0.25, True), torch.rand(2))
