"""Every nn module's constructor surface: each option PyTorch 1.13 takes, given a non-default
value by keyword, must be accepted, kept and shown as PyTorch shows it (repr), and build the
same state_dict (keys, shapes, dtypes, and the values drawn from the same seed). The Lua side replays each call from the golden: the
positional arguments as they are, the keywords as a trailing options table; "torch.float64"
names a dtype. A combination PyTorch refuses must be refused with its words. Dims are left out (they are 1-based in Lua, so their reprs differ by design)."""
import torch
from torch import nn

F64 = "torch.float64"
CALLS = [
    # name, positional args, keyword args
    ("Linear", (4, 3), {}),
    ("Linear", (4, 3), {"bias": False, "dtype": F64}),
    ("Bilinear", (3, 2, 4), {"bias": False}),
    ("Identity", (), {}),
    ("Dropout", (), {"p": 0.25, "inplace": True}),
    ("ReLU", (), {"inplace": True}),
    ("ELU", (), {"alpha": 0.5, "inplace": True}),
    ("LeakyReLU", (), {"negative_slope": 0.2, "inplace": True}),
    ("Hardtanh", (), {"min_val": -2.0, "max_val": 3.0, "inplace": True}),
    ("GELU", (), {"approximate": "tanh"}),
    ("SiLU", (), {"inplace": True}),
    ("Mish", (), {"inplace": True}),
    ("Softplus", (), {"beta": 2, "threshold": 10}),
    ("Softmax", (), {"dim": -1}),
    ("LogSoftmax", (), {"dim": -2}),
    ("Flatten", (-3, -1), {}),
    ("Conv1d", (2, 4, 3), {"stride": 2, "padding": 1, "dilation": 2, "groups": 2, "bias": False,
                           "padding_mode": "reflect"}),
    ("Conv2d", (2, 4, (3, 2)), {"stride": (2, 1), "padding": "same", "padding_mode": "circular"}),
    ("Conv2d", (2, 4, (3, 2)), {"padding": "same", "padding_mode": "circular", "dilation": (1, 2)}),
    ("Conv2d", (2, 4, 3), {"padding": "valid", "dtype": F64}),
    ("ConvTranspose1d", (2, 4, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2, "bias": False,
                                    "dilation": 1}),
    ("ConvTranspose2d", (2, 4, 3), {"stride": 3, "dilation": 2, "output_padding": (1, 2)}),
    ("MaxPool1d", (3,), {"stride": 2, "padding": 1, "dilation": 2, "return_indices": True, "ceil_mode": True}),
    ("MaxPool2d", ((3, 2),), {"stride": 1, "ceil_mode": True}),
    ("AvgPool1d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}),
    ("AvgPool2d", (2,), {"stride": 1, "padding": 1, "ceil_mode": True, "count_include_pad": False,
                         "divisor_override": 3}),
    ("AdaptiveAvgPool1d", (5,), {}),
    ("AdaptiveAvgPool2d", ((3, 4),), {}),
    ("BatchNorm1d", (3,), {"eps": 1e-3, "momentum": 0.2, "affine": False}),
    ("BatchNorm2d", (3,), {"track_running_stats": False, "dtype": F64}),
    ("LayerNorm", ((3, 4),), {"eps": 1e-6, "elementwise_affine": False}),
    ("LayerNorm", (5,), {"dtype": F64}),
    ("GroupNorm", (2, 4), {"eps": 1e-3, "affine": False}),
    ("GroupNorm", (2, 4), {"dtype": F64}),
    ("Embedding", (5, 3), {"max_norm": 1.0, "norm_type": 1.0, "scale_grad_by_freq": True, "sparse": True}),
    ("Embedding", (5, 3), {"dtype": F64}),
    ("RNN", (3, 4), {"num_layers": 2, "nonlinearity": "relu", "bias": False, "batch_first": True, "dropout": 0.5,
                     "bidirectional": True}),
    ("LSTM", (3, 4), {"proj_size": 2, "num_layers": 2}),
    ("GRU", (3, 4), {"dtype": F64}),
    ("RNNCell", (3, 4), {"bias": False, "nonlinearity": "relu"}),
    ("LSTMCell", (3, 4), {"dtype": F64}),
    ("GRUCell", (3, 4), {"bias": False}),
    ("MultiheadAttention", (8, 2), {"dropout": 0.1, "bias": False, "add_bias_kv": True, "add_zero_attn": True,
                                    "kdim": 3, "vdim": 5, "batch_first": True}),
    ("TransformerEncoderLayer", (8, 2), {"dim_feedforward": 16, "dropout": 0.2, "activation": "gelu",
                                         "layer_norm_eps": 1e-6, "batch_first": True, "norm_first": True}),
    ("TransformerDecoderLayer", (8, 2), {"dim_feedforward": 16, "dropout": 0.0, "layer_norm_eps": 1e-3}),
    ("Transformer", (), {"d_model": 8, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1,
                         "dim_feedforward": 16, "dropout": 0.3, "batch_first": True, "norm_first": True}),
    ("MSELoss", (), {"reduction": "sum"}),
    ("L1Loss", (), {"reduction": "none"}),
    ("SmoothL1Loss", (), {"reduction": "sum", "beta": 0.5}),
    ("HuberLoss", (), {"reduction": "none", "delta": 2.0}),
    ("NLLLoss", (), {"reduction": "sum"}),
    ("CrossEntropyLoss", (), {"reduction": "none", "label_smoothing": 0.1}),
    ("BCELoss", (), {"reduction": "sum"}),
    ("BCEWithLogitsLoss", (), {"reduction": "none"}),
    ("KLDivLoss", (), {"reduction": "batchmean", "log_target": True}),
]


def lua_arg(v):
    if isinstance(v, tuple):
        return [lua_arg(x) for x in v]
    return v


def make(name, args, kwargs):
    def run():
        kw = {k: (getattr(torch, v[6:]) if isinstance(v, str) and v.startswith("torch.") else v)
              for k, v in kwargs.items()}
        call = {"name": name, "args": [lua_arg(a) for a in args], "kwargs": {k: lua_arg(v) for k, v in kwargs.items()}}
        torch.manual_seed(0)
        try:
            m = getattr(nn, name)(*args, **kw)
        except Exception as ex:  # a refused combination: Lua must refuse it with the same words
            return dict(call, error=str(ex))
        sd = m.state_dict()
        return dict(call, repr=repr(m), keys=[[k, list(sd[k].shape), str(sd[k].dtype)[6:]] for k in sorted(sd)],
                    values=[sd[k].double().reshape(-1).tolist() for k in sorted(sd)])
    return run


CASES = {}
for i, (name, args, kwargs) in enumerate(CALLS):
    CASES["%02d_%s" % (i, name)] = make(name, args, kwargs)
