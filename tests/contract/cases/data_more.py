"""torch.utils.data: sampler index streams for seeded generators, DataLoader batch order with
samplers, default_collate's outputs and dtypes, and the errors. Index lists come back 1-based
(+ 1) as mindtorch's."""
import torch
from torch.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, DistributedSampler,
                              IterableDataset, RandomSampler, SequentialSampler, SubsetRandomSampler,
                              TensorDataset, WeightedRandomSampler, default_collate)


def idx(it):
    return torch.tensor(list(it), dtype=torch.int64) + 1


def gen(seed):
    return torch.Generator().manual_seed(seed)


def random_global():
    torch.manual_seed(3)
    return idx(RandomSampler(range(10)))


def distributed(n, replicas, rank, **kw):
    def run():
        s = DistributedSampler(range(n), num_replicas=replicas, rank=rank, **kw)
        if kw.get("shuffle", True):
            s.set_epoch(2)
        return idx(s)
    return run


def batches(sampler):
    return torch.tensor([len(b) for b in sampler] + [i + 1 for b in sampler for i in b])


class Count(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter([(torch.tensor([float(i)]), i * 10) for i in range(self.n)])


def ds():
    return TensorDataset(torch.arange(23), torch.arange(23) * 10)


def loader(**kw):
    def run():
        torch.manual_seed(7)
        return torch.cat([xb.reshape(-1) for xb, _ in DataLoader(ds(), **kw)])
    return run


def loader_gen(**kw):
    def run():
        torch.manual_seed(7)
        g = gen(11)
        if "sampler" in kw:
            kw["sampler"] = kw["sampler"](g)
        return torch.cat([xb.reshape(-1) for xb, _ in DataLoader(ds(), generator=g, **kw)])
    return run


def iterable_batches():
    out = []
    for x, y in DataLoader(Count(7), batch_size=3):
        out += [x.reshape(-1), y.double()]
    return torch.cat(out)


def chain():
    return torch.cat([x for x, _ in ChainDataset([Count(2), Count(3)])])


def concat():
    c = ConcatDataset([TensorDataset(torch.arange(3)), TensorDataset(torch.arange(10, 14)), TensorDataset(torch.arange(20, 22))])
    return (torch.tensor(c.cumulative_sizes), torch.stack([c[i][0] for i in [0, 2, 3, 6, 7, 8, -1, -9]]))


CASES = {
    "sequential": lambda: idx(SequentialSampler(range(6))),
    "random_gen": lambda: idx(RandomSampler(range(10), generator=gen(5))),
    "random_global": random_global,
    "random_num_samples": lambda: idx(RandomSampler(range(10), num_samples=25, generator=gen(5))),
    "random_replacement": lambda: idx(RandomSampler(range(10), replacement=True, num_samples=70, generator=gen(5))),
    "random_replacement_len": lambda: idx(RandomSampler(range(13), replacement=True, generator=gen(2))),
    "subset_random": lambda: idx(SubsetRandomSampler([3, 8, 1, 9, 4], generator=gen(4))),
    "weighted_replacement": lambda: idx(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 12, generator=gen(6))),
    "weighted_no_replacement": lambda: idx(WeightedRandomSampler([0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5,
                                                                 replacement=False, generator=gen(6))),
    "batch_keep": lambda: batches(BatchSampler(SequentialSampler(range(10)), 3, False)),
    "batch_drop": lambda: batches(BatchSampler(SequentialSampler(range(10)), 3, True)),
    "dist_shuffle_r0": distributed(10, 3, 0),
    "dist_shuffle_r2": distributed(10, 3, 2, seed=5),
    "dist_plain_pad": distributed(10, 4, 3, shuffle=False),
    "dist_drop_last": distributed(10, 4, 1, drop_last=True),
    "dist_pad_more": distributed(3, 8, 6, shuffle=False),
    "dist_len": lambda: len(DistributedSampler(range(10), num_replicas=4, rank=0, drop_last=True)),
    "loader_sampler": loader_gen(batch_size=4, sampler=lambda g: RandomSampler(range(23), generator=g)),
    "loader_batch_sampler": loader(batch_sampler=BatchSampler(SequentialSampler(range(23)), 6, True)),
    "loader_no_batching": loader(batch_size=None),
    "loader_weighted": loader_gen(batch_size=5, sampler=lambda g: WeightedRandomSampler([1.0] * 23, 17, generator=g)),
    "loader_len_batch_sampler": lambda: len(DataLoader(ds(), batch_sampler=BatchSampler(range(23), 6, False))),
    "loader_len_drop": lambda: len(DataLoader(ds(), batch_size=4, drop_last=True)),
    "loader_iterable": iterable_batches,
    "loader_iterable_none": lambda: torch.cat([torch.tensor([float(y)]) for x, y in DataLoader(Count(4), batch_size=None)]),
    "chain": chain,
    "concat": concat,
    "collate_ints": lambda: default_collate([1, 2, 3]),
    "collate_floats": lambda: default_collate([1.5, 2.0]),
    "collate_bools": lambda: default_collate([True, False]),
    "collate_tensors": lambda: default_collate([torch.tensor([1, 2]), torch.tensor([3, 4])]),
    "collate_nested": lambda: tuple(default_collate([[torch.ones(2), [1, 2.5]], [torch.zeros(2), [3, 4.0]]])[1]),
    "collate_dict": lambda: default_collate([{"a": 1, "b": torch.ones(2)}, {"a": 2, "b": torch.zeros(2)}])["a"],
    "error_collate_sizes": lambda: default_collate([[1, 2], [1]]),
    "error_random_replacement": lambda: RandomSampler(range(3), replacement=1),
    "error_random_num_samples": lambda: RandomSampler(range(3), num_samples=0),
    "error_weighted_num_samples": lambda: WeightedRandomSampler([1.0], -1),
    "error_weighted_replacement": lambda: WeightedRandomSampler([1.0], 1, replacement=3),
    "error_weighted_2d": lambda: WeightedRandomSampler([[1.0, 2.0]], 1),
    "error_batch_size": lambda: BatchSampler(range(3), 0, False),
    "error_batch_drop_last": lambda: BatchSampler(range(3), 2, 1),
    "error_dist_rank": lambda: DistributedSampler(range(3), num_replicas=2, rank=2),
    "error_concat_negative": lambda: ConcatDataset([TensorDataset(torch.arange(3))])[-4],
    "error_loader_workers": lambda: DataLoader(ds(), num_workers=-1),
    "error_loader_timeout": lambda: DataLoader(ds(), timeout=-1.0),
    "error_loader_prefetch": lambda: DataLoader(ds(), prefetch_factor=3),
    "error_loader_persistent": lambda: DataLoader(ds(), persistent_workers=True),
    "error_loader_sampler_shuffle": lambda: DataLoader(ds(), sampler=SequentialSampler(range(3)), shuffle=True),
    "error_loader_batch_sampler": lambda: DataLoader(ds(), batch_sampler=BatchSampler(range(3), 2, False), batch_size=2),
    "error_loader_none_drop_last": lambda: DataLoader(ds(), batch_size=None, drop_last=True),
    "error_loader_iterable_shuffle": lambda: DataLoader(Count(3), shuffle=True),
    "error_loader_batch_size": lambda: DataLoader(ds(), batch_size=0),
}
