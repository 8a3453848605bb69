-- Operators that move and convert data.
op { "clone(Tensor self, *, str? memory_format=None) -> Tensor", variants = "function, method",
     doc = "A copy with its own storage; dense inputs keep their strides unless memory_format=\"contiguous_format\"." }
op { "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", variants = "method",
     mixed_device = true, doc = "Copies src into self, broadcasting and converting dtype/device." }
op { "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", variants = "function, method",
     doc = "Fills self with value." }
op { "fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)", variants = "function, method",
     doc = "Fills self with a 0-d tensor's value." }
op { "zero_(Tensor(a!) self) -> Tensor(a!)", variants = "function, method", doc = "Fills self with 0." }
op { "_to_copy(Tensor self, *, ScalarType? dtype=None, Device? device=None, bool non_blocking=False, str? memory_format=None) -> Tensor",
     hidden = true, mixed_device = true, doc = "A converted copy on another dtype and/or device." }
op { "to.device(Tensor(a) self, Device? device=None, ScalarType? dtype=None, bool non_blocking=False, bool copy=False, *, str? memory_format=None) -> Tensor(a)",
     variants = "method", doc = "self on another device and/or dtype, or laid out as memory_format says (self itself when nothing changes)." }
op { "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, *, str? memory_format=None) -> Tensor(a)",
     variants = "method", doc = "self converted to dtype." }
op { "to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, *, str? memory_format=None) -> Tensor(a)",
     variants = "method", doc = "self on other's device with other's dtype." }
op { "resize_(Tensor(a!) self, SymInt[] size, *, str? memory_format=None) -> Tensor(a!)", variants = "method",
     doc = "Gives self a new shape (contiguous strides unless the shape is unchanged; memory_format's strides when given, even for the same shape), growing its storage when needed; new elements are uninitialised." }
