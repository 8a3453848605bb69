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
    ("Conv3d", (2, 4, 3), {"stride": 2, "padding": 1, "dilation": 1, "groups": 2, "bias": False,
                           "padding_mode": "replicate"}),
    ("Conv3d", (2, 4, (3, 1, 2)), {"padding": "same", "dtype": F64}),
    ("ConvTranspose3d", (2, 4, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2, "bias": False}),
    ("MaxPool3d", (3,), {"stride": 2, "padding": 1, "dilation": 2, "ceil_mode": True}),
    ("BatchNorm3d", (3,), {"eps": 1e-3, "momentum": 0.2, "affine": False, "dtype": F64}),
    ("InstanceNorm1d", (3,), {"eps": 1e-3, "momentum": 0.2, "affine": True, "track_running_stats": True}),
    ("InstanceNorm2d", (3,), {}),
    ("InstanceNorm3d", (3,), {"affine": True, "dtype": F64}),
    ("Fold", ((4, 5), (2, 2)), {"dilation": 1, "padding": 1, "stride": 2}),
    ("Unfold", ((2, 3),), {"dilation": 2, "padding": 1, "stride": 1}),
    ("PixelShuffle", (2,), {}),
    ("PixelUnshuffle", (3,), {}),
    ("ChannelShuffle", (2,), {}),
    ("Upsample", (), {"scale_factor": 2.0, "mode": "bilinear", "align_corners": True}),
    ("Upsample", (), {"size": (3, 4), "mode": "nearest"}),
    ("UpsamplingNearest2d", (), {"scale_factor": 2}),
    ("UpsamplingBilinear2d", (), {"size": (4, 5)}),
    ("ZeroPad2d", ((1, 2, 0, 3),), {}),
    ("ConstantPad1d", (2, 3.5), {}),
    ("ConstantPad2d", ((1, 0, 2, 1), -1.0), {}),
    ("ConstantPad3d", (1, 0.0), {}),
    ("ReflectionPad1d", ((1, 2),), {}),
    ("ReflectionPad2d", (2,), {}),
    ("ReflectionPad3d", (1,), {}),
    ("ReplicationPad1d", (3,), {}),
    ("ReplicationPad2d", ((1, 2, 3, 0),), {}),
    ("ReplicationPad3d", (2,), {}),
    ("CELU", (), {"alpha": 0.5, "inplace": True}),
    ("SELU", (), {"inplace": True}),
    ("GLU", (), {"dim": -2}),
    ("Hardshrink", (), {"lambd": 0.3}),
    ("Hardsigmoid", (), {"inplace": True}),
    ("Hardswish", (), {"inplace": True}),
    ("LogSigmoid", (), {}),
    ("PReLU", (), {"num_parameters": 3, "init": 0.1}),
    ("PReLU", (), {"dtype": F64}),
    ("RReLU", (), {"lower": 0.1, "upper": 0.4, "inplace": True}),
    ("ReLU6", (), {"inplace": True}),
    ("Softmin", (), {"dim": -1}),
    ("Softmax2d", (), {}),
    ("Softshrink", (), {"lambd": 0.25}),
    ("Softsign", (), {}),
    ("Tanhshrink", (), {}),
    ("Threshold", (0.1, 20.0), {"inplace": True}),
    ("Dropout1d", (), {"p": 0.3, "inplace": True}),
    ("Dropout2d", (), {"p": 0.3}),
    ("Dropout3d", (0.1,), {}),
    ("AlphaDropout", (), {"p": 0.2}),
    ("FeatureAlphaDropout", (), {"p": 0.2, "inplace": True}),
    ("CTCLoss", (), {"blank": 0, "reduction": "sum", "zero_infinity": True}),
    ("CosineEmbeddingLoss", (), {"margin": 0.5, "reduction": "none"}),
    ("GaussianNLLLoss", (), {"full": True, "eps": 1e-3, "reduction": "sum"}),
    ("HingeEmbeddingLoss", (), {"margin": 2.0, "reduction": "sum"}),
    ("MarginRankingLoss", (), {"margin": 0.5}),
    ("MultiLabelMarginLoss", (), {"reduction": "none"}),
    ("MultiLabelSoftMarginLoss", (), {"reduction": "sum"}),
    ("MultiMarginLoss", (), {"p": 2, "margin": 0.5, "reduction": "none"}),
    ("NLLLoss2d", (), {"reduction": "sum"}),
    ("PoissonNLLLoss", (), {"log_input": False, "full": True, "eps": 1e-6, "reduction": "none"}),
    ("SoftMarginLoss", (), {"reduction": "sum"}),
    ("TripletMarginLoss", (), {"margin": 0.5, "p": 1.0, "eps": 1e-5, "swap": True, "reduction": "none"}),
    ("TripletMarginWithDistanceLoss", (), {"margin": 0.5, "swap": True, "reduction": "sum"}),
    ("CosineSimilarity", (), {"dim": -1, "eps": 1e-6}),
    ("PairwiseDistance", (), {"p": 1.0, "eps": 1e-5, "keepdim": True}),
    ("AdaptiveLogSoftmaxWithLoss", (8, 10, [4, 7]), {"div_value": 2.0, "head_bias": True}),
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
