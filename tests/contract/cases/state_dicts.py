"""PyTorch-saved state_dicts loaded by name: for each module, PyTorch builds it from a seed
(float64, every parameter and buffer then moved off its initial value, so a load that skips a
key shows), runs a training-mode forward when the module keeps running statistics, writes its
state_dict as a safetensors file (written here byte by byte from the format's description: an
8-byte little-endian header length, a JSON header, the raw data) and records the eval-mode
output on a fixed input. The Lua side builds the same module from another seed, loads the file
strictly and must give the same output and the same state_dict keys."""
import json
import struct

import torch
from torch import nn

D = torch.float64
ST_DTYPES = {torch.float64: "F64", torch.float32: "F32", torch.int64: "I64", torch.bool: "BOOL"}


def wave(shape, f, off=0.0):
    n = 1
    for s in shape:
        n *= s
    return torch.arange(n, dtype=D).reshape(shape).mul(f).add(off).sin()


def safetensors_bytes(sd):
    header, blobs, offset = {}, [], 0
    for k in sorted(sd):
        t = sd[k].detach().contiguous()
        data = t.numpy().tobytes() if t.dtype != torch.bool else bytes(t.to(torch.uint8).numpy().tobytes())
        header[k] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def case(make, inputs, train_first=False):
    def run():
        torch.manual_seed(0)
        m = make().double()
        with torch.no_grad():
            for i, (_, t) in enumerate(sorted(m.state_dict().items())):
                if t.is_floating_point():
                    t.add_(wave(t.shape, 0.7 + 0.05 * i) * 0.1)
        if train_first:
            m.train()
            m(*[x() for x in inputs])
        m.eval()
        out = m(*[x() for x in inputs])
        if isinstance(out, tuple):
            out = out[0]
        out = out.detach()
        return {"file": safetensors_bytes(m.state_dict()).hex(), "keys": sorted(m.state_dict().keys()),
                "shape": list(out.shape), "values": out.reshape(-1).tolist()}
    return run


def x(*shape, f=0.37):
    return lambda: wave(shape, f)


CASES = {
    "linear": case(lambda: nn.Linear(4, 3), [x(2, 4)]),
    "bilinear": case(lambda: nn.Bilinear(3, 2, 4), [x(2, 3), x(2, 2, f=0.5)]),
    "conv1d": case(lambda: nn.Conv1d(2, 3, 3, padding=1), [x(2, 2, 5)]),
    "conv2d": case(lambda: nn.Conv2d(2, 3, 3, stride=2, groups=1), [x(1, 2, 6, 6)]),
    "conv_transpose2d": case(lambda: nn.ConvTranspose2d(2, 3, 3, stride=2), [x(1, 2, 3, 3)]),
    "batch_norm1d": case(lambda: nn.BatchNorm1d(3), [x(4, 3)], train_first=True),
    "batch_norm2d": case(lambda: nn.BatchNorm2d(3), [x(2, 3, 2, 2)], train_first=True),
    "layer_norm": case(lambda: nn.LayerNorm([3, 4]), [x(2, 3, 4)]),
    "group_norm": case(lambda: nn.GroupNorm(2, 4), [x(2, 4, 3)]),
    "embedding": case(lambda: nn.Embedding(5, 3, padding_idx=1), [lambda: torch.tensor([[0, 4, 1], [2, 3, 3]])]),
    "lstm": case(lambda: nn.LSTM(3, 4, 2, bidirectional=True), [x(5, 2, 3)]),
    "gru": case(lambda: nn.GRU(3, 4, batch_first=True), [x(2, 5, 3)]),
    "rnn_cell": case(lambda: nn.RNNCell(3, 4), [x(2, 3)]),
    "mha": case(lambda: nn.MultiheadAttention(8, 2, kdim=3, vdim=5), [x(4, 2, 8), x(5, 2, 3), x(5, 2, 5)]),
    "transformer": case(lambda: nn.Transformer(8, 2, 1, 2, 16), [x(4, 2, 8), x(3, 2, 8, f=0.53)]),
    "conv3d": case(lambda: nn.Conv3d(2, 3, 2, padding=1), [x(1, 2, 3, 3, 3)]),
    "conv_transpose3d": case(lambda: nn.ConvTranspose3d(2, 3, 2, stride=2), [x(1, 2, 2, 2, 2)]),
    "max_pool3d": case(lambda: nn.MaxPool3d(2, stride=1, padding=1), [x(1, 2, 3, 3, 3)]),
    "batch_norm3d": case(lambda: nn.BatchNorm3d(2), [x(2, 2, 2, 2, 2)], train_first=True),
    "instance_norm1d": case(lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True), [x(2, 3, 5)],
                            train_first=True),
    "instance_norm2d_unbatched": case(lambda: nn.InstanceNorm2d(2, affine=True), [x(2, 3, 4)]),
    "instance_norm3d": case(lambda: nn.InstanceNorm3d(2), [x(2, 2, 2, 3, 2)]),
    "prelu": case(lambda: nn.PReLU(3), [x(2, 3, 4)]),
    "sequential": case(lambda: nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3)),
                       [x(2, 1, 4, 4)]),
    "conv_transpose1d": case(lambda: nn.ConvTranspose1d(2, 3, 3, stride=2, padding=1), [x(2, 2, 4)]),
    "rnn": case(lambda: nn.RNN(3, 4, 2, nonlinearity="relu"), [x(5, 2, 3)]),
    "lstm_cell": case(lambda: nn.LSTMCell(3, 4), [x(2, 3)]),
    "gru_cell": case(lambda: nn.GRUCell(3, 4), [x(2, 3)]),
    "embedding_bag": case(lambda: nn.EmbeddingBag(6, 3, mode="mean"), [lambda: torch.tensor([[0, 4, 1], [2, 5, 3]])]),
    "cross_entropy_weight": case(lambda: nn.CrossEntropyLoss(weight=torch.tensor([0.5, 1.0, 2.0])),
                                 [x(4, 3), lambda: torch.tensor([0, 2, 1, 2])]),
    "bce_with_logits_pos_weight": case(lambda: nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0, 0.5])),
                                       [x(4, 3), lambda: wave([4, 3], 0.9).abs()]),
    "transformer_encoder": case(lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2,
                                                              norm=nn.LayerNorm(8)), [x(4, 2, 8)]),
    "transformer_decoder_layer": case(lambda: nn.TransformerDecoderLayer(8, 2, 16, norm_first=True),
                                      [x(4, 2, 8), x(3, 2, 8, f=0.53)]),
    "lazy_linear": case(lambda: nn.Sequential(nn.Linear(4, 3)), [x(2, 4)]),
    "local_response_norm": case(lambda: nn.LocalResponseNorm(3), [x(2, 4, 3)]),
    "adaptive_log_softmax": case(lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8], div_value=2.0),
                                 [x(3, 8), lambda: torch.tensor([0, 4, 9])]),
    "nll_loss_weight": case(lambda: nn.NLLLoss(weight=torch.tensor([0.5, 1.0, 2.0])),
                            [lambda: wave([4, 3], 0.37).log_softmax(1), lambda: torch.tensor([0, 2, 1, 2])]),
}
