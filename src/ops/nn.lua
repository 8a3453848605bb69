-- Neural-network kernels: convolution and pooling (float32/float64 on OpenBLAS; other dtypes
-- where PyTorch's CPU kernels take them). Inputs are (N, C, L) or (N, C, H, W), or unbatched
-- without N.

op { "convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor",
     doc = "1-D or 2-D convolution, or its transpose, over batched inputs (what conv1d/conv2d/conv_transpose* call)." }
op { "convolution_backward_weight(Tensor grad_output, Tensor input, int[] weight_size, int[] stride, int[] padding, int[] dilation, bool transposed, int groups) -> Tensor",
     doc = "The gradient of convolution's weight (ConvolutionBackward0 calls it)." }
op { "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, int[1] dilation=1, int groups=1) -> Tensor",
     doc = "1-D convolution of (N, C_in, L) or (C_in, L) input with (C_out, C_in / groups, k) weight." }
op { "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor",
     doc = "2-D convolution of (N, C_in, H, W) or (C_in, H, W) input with (C_out, C_in / groups, kH, kW) weight." }
op { "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, int[1] output_padding=0, int groups=1, int[1] dilation=1) -> Tensor",
     doc = "1-D transposed convolution; weight is (C_in, C_out / groups, k)." }
op { "conv_transpose2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] output_padding=0, int groups=1, int[2] dilation=1) -> Tensor",
     doc = "2-D transposed convolution; weight is (C_in, C_out / groups, kH, kW)." }

op { "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, IndexTensor)",
     doc = "2-D max pooling and the 1-based position of each maximum within its H*W plane; stride defaults to kernel_size." }
op { "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, IndexTensor indices) -> Tensor",
     doc = "The gradient of max_pool2d_with_indices: grad_output added at the maxima's positions." }
op { "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor",
     doc = "2-D max pooling over (N, C, H, W) or (C, H, W) input." }
op { "max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, int[1] dilation=1, bool ceil_mode=False) -> Tensor",
     doc = "1-D max pooling over (N, C, L) or (C, L) input." }
op { "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
     doc = "2-D average pooling; stride defaults to kernel_size." }
op { "avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
     doc = "The gradient of avg_pool2d." }
op { "avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, bool ceil_mode=False, bool count_include_pad=True) -> Tensor",
     doc = "1-D average pooling." }
op { "adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor",
     doc = "2-D average pooling into a given output size (windows from floor(i*H/oH) to ceil((i+1)*H/oH)); to 1x1 it is the mean over the last two dimensions, as in PyTorch (any dims and dtypes mean takes), otherwise _adaptive_avg_pool2d." }
op { "_adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor",
     doc = "adaptive_avg_pool2d's kernel, for (C, H, W) or (N, C, H, W) input." }
op { "_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor",
     doc = "The gradient of _adaptive_avg_pool2d." }
op { "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
     doc = "Batch normalization of (N, C, *) input per channel: the result, and in training the batch's mean and 1/sqrt(var + eps) (empty in evaluation); training moves the running statistics, when given, towards the batch's mean and unbiased variance." }
op { "_batch_norm_with_var(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float eps) -> (Tensor, Tensor, Tensor, Tensor)",
     doc = "native_batch_norm without the running statistics' update, which its fourth result serves: the batch's biased variance (empty in evaluation).",
     grad = { node = "NativeBatchNormBackward0", fn = "mt_d_native_batch_norm",
              uses = "input: input, weight, running_mean, running_var, result1, result2; weight: input, running_mean, running_var, result1, result2; bias:" } }
op { "_native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps) -> (Tensor, Tensor, Tensor)",
     doc = "native_batch_norm's gradients of input, weight and bias in two passes over the data (native_batch_norm_backward with every output asked for)." }
op { "adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor",
     doc = "1-D average pooling into a given output size." }

-- The negative log-likelihood loss, as PyTorch's ATen ops (F.nll_loss and F.cross_entropy call
-- nll_loss_nd). Targets are class indices, 1-based like every index in the Lua API; ignore_index
-- is compared with them as written (the default -100, or a class to skip). reduction is
-- PyTorch's enum: 0 none, 1 mean, 2 sum.
op { "nll_loss_forward(Tensor self, IndexTensor target, Tensor? weight, int reduction, Index ignore_index) -> (Tensor, Tensor)",
     doc = "The loss of (C) or (N, C) log-probabilities at the target classes (-weight[t] * self[i, t]), and the total weight a mean divides by." }
op { "nll_loss_backward(Tensor grad_output, Tensor self, IndexTensor target, Tensor? weight, int reduction, Index ignore_index, Tensor total_weight) -> Tensor",
     doc = "The gradient of nll_loss_forward: -weight[t] * grad_output at each target class (divided by total_weight for a mean), zero elsewhere." }
op { "nll_loss2d_forward(Tensor self, IndexTensor target, Tensor? weight, int reduction, Index ignore_index) -> (Tensor, Tensor)",
     doc = "nll_loss_forward over (N, C, H, W) log-probabilities and (N, H, W) targets." }
op { "nll_loss2d_backward(Tensor grad_output, Tensor self, IndexTensor target, Tensor? weight, int reduction, Index ignore_index, Tensor total_weight) -> Tensor",
     doc = "The gradient of nll_loss2d_forward." }
op { "nll_loss_nd(Tensor self, IndexTensor target, Tensor? weight=None, int reduction=1, Index ignore_index=-100) -> Tensor",
     doc = "The negative log-likelihood loss of (C), (N, C) or (N, C, d1, ...) log-probabilities (what F.nll_loss calls)." }
