"""Storage contracts (seed 004): sizes, resizing rules, copies, file mappings, sharing."""
import os
import tempfile

import torch

TMP = os.path.join(tempfile.gettempdir(), "mindtorch-contract-storage.bin")


def write_tmp():
    with open(TMP, "wb") as f:
        f.write(bytes(range(16)))


def from_file(shared, size):
    write_tmp()
    return torch.UntypedStorage.from_file(TMP, shared, size)


def missing_file():
    return torch.UntypedStorage.from_file(TMP + ".missing", False, 4)


CASES = {
    "untyped_size": lambda: torch.ones(2, 3).storage().untyped().size(),
    "untyped_nbytes": lambda: torch.ones(2, 3, dtype=torch.float64).storage().untyped().nbytes(),
    "typed_size": lambda: torch.ones(2, 3).storage().size(),
    "typed_element_size": lambda: torch.ones(2, dtype=torch.int16).storage().element_size(),
    "untyped_element_size": lambda: torch.ones(2).storage().untyped().element_size(),
    "typed_dtype": lambda: torch.ones(2, dtype=torch.int16).storage().dtype,
    "tensor_storage_not_resizable": lambda: torch.ones(2, 3).storage().untyped().resize_(10).size(),
    "new_storage_resize": lambda: torch.UntypedStorage(10).resize_(20).size(),
    "storage_from_list": lambda: torch.UntypedStorage([1, 2, 255]).tolist(),
    "typed_from_list": lambda: torch.TypedStorage([1, 2, 3], dtype=torch.int64).tolist(),
    "typed_float_list": lambda: torch.TypedStorage([1.5, 2], dtype=torch.float32).tolist(),
    "copy_size_mismatch": lambda: torch.UntypedStorage(4).copy_(torch.UntypedStorage(3)),
    "copy": lambda: torch.UntypedStorage(3).copy_(torch.UntypedStorage([7, 8, 9])).tolist(),
    "fill": lambda: torch.UntypedStorage(3).fill_(5).tolist(),
    "index_out_of_range": lambda: torch.UntypedStorage(4)[5],
    "from_file_private": lambda: from_file(False, 16).tolist(),
    "from_file_too_small": lambda: from_file(False, 32),
    "from_file_shared_not_resizable": lambda: from_file(True, 16).resize_(32),
    "from_file_missing": missing_file,
    "typed_from_file": lambda: torch.TypedStorage.from_file(TMP, False, 4),
    "share_memory": lambda: torch.UntypedStorage(4).share_memory_().is_shared(),
    "share_memory_not_resizable": lambda: torch.UntypedStorage(4).share_memory_().resize_(8),
    "not_shared": lambda: torch.UntypedStorage(4).is_shared(),
    "not_pinned": lambda: torch.UntypedStorage(4).is_pinned(),
    "meta_resize": lambda: torch.UntypedStorage(4, device="meta").resize_(8),
    "storage_repr": lambda: str(torch.UntypedStorage([1, 2])),
    "typed_storage_repr": lambda: str(torch.tensor([1.5, 2.0]).storage()),
    "int_storage_repr": lambda: str(torch.tensor([1, 2]).storage()),
    "bool_storage_repr": lambda: str(torch.tensor([True, False]).storage()),
    "small_float_repr": lambda: str(torch.tensor([1e-7, 123456789.0, 1e20], dtype=torch.float64).storage()),
}
