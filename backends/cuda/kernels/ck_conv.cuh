// ck_conv.cuh: the columns of a convolution (im2col: every tap of the kernel over every output
// position; col2im: each input position summed back from the columns that read it, so no two
// threads write one element), 2-D max, average and adaptive average pooling with their
// gradients (added into the input's gradient with atomics, as PyTorch's CUDA kernels do), and
// the triangles of matrices (tril, triu).

template <typename T> __device__ static inline void conv_loop(const ck_conv_args &a) {
    int64_t step = (int64_t)gridDim.x * blockDim.x, L = a.Ho * a.Wo, taps = a.kh * a.kw;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < a.n; t += step) {
        if (a.op == CK_IM2COL) { // t: [sample][c * taps + tap][position]
            int64_t l = t % L, k = t / L % (a.C * taps), s = t / L / (a.C * taps);
            int64_t c = k / taps, ki = k % taps / a.kw, kj = k % a.kw;
            int64_t ih = l / a.Wo * a.sh - a.ph + ki * a.dh,
                    iw = l % a.Wo * a.sw - a.pw + kj * a.dw;
            T v = (T)0;
            if (ih >= 0 && ih < a.H && iw >= 0 && iw < a.W)
                v = load<T>(a.big, s * a.sample_stride + (c * a.H + ih) * a.W + iw);
            store<T>(a.small, t, v);
        } else if (a.op == CK_COL2IM) { // t: [sample][c][h][w] of big
            int64_t w = t % a.W, h = t / a.W % a.H, c = t / (a.H * a.W) % a.C;
            int64_t s = t / (a.H * a.W * a.C);
            T acc = (T)0;
            for (int64_t ki = 0; ki < a.kh; ki++) {
                int64_t oh = h + a.ph - ki * a.dh;
                if (oh < 0 || oh % a.sh || oh / a.sh >= a.Ho) continue;
                for (int64_t kj = 0; kj < a.kw; kj++) {
                    int64_t ow = w + a.pw - kj * a.dw;
                    if (ow < 0 || ow % a.sw || ow / a.sw >= a.Wo) continue;
                    int64_t row = (c * a.kh + ki) * a.kw + kj;
                    acc +=
                        load<T>(a.small, (s * a.C * taps + row) * L + oh / a.sh * a.Wo + ow / a.sw);
                }
            }
            store<T>(a.big, s * a.sample_stride + (c * a.H + h) * a.W + w, acc);
        } else if (a.op == CK_MAXPOOL) { // t: [plane][oh][ow] of the output
            int64_t ow = t % a.Wo, oh = t / a.Wo % a.Ho, plane = t / L;
            T best = (T)0;
            int64_t at = -1;
            for (int64_t ki = 0; ki < a.kh; ki++) {
                int64_t ih = oh * a.sh - a.ph + ki * a.dh;
                if (ih < 0 || ih >= a.H) continue;
                for (int64_t kj = 0; kj < a.kw; kj++) {
                    int64_t iw = ow * a.sw - a.pw + kj * a.dw;
                    if (iw < 0 || iw >= a.W) continue;
                    T v = load<T>(a.big, plane * a.H * a.W + ih * a.W + iw);
                    if (at < 0 || (!is_nan(best) && (v > best || is_nan(v)))) {
                        best = v;
                        at = ih * a.W + iw;
                    }
                }
            }
            store<T>(a.small, t, best);
            store<int64_t>(a.indices, t, at);
        } else if (a.op == CK_MAXPOOL_BACKWARD) { // t: [plane][oh][ow] of the output's gradient
            int64_t plane = t / L, at = load<int64_t>(a.indices, t);
            add_at<T>(a.big, plane * a.H * a.W + at, load<T>(a.small, t));
        } else if (a.op == CK_TRIL || a.op == CK_TRIU) { // t: an element of the matrices
            int64_t col = t % a.W, row = t / a.W % a.H;
            bool keep = a.op == CK_TRIL ? col - row <= a.kh : col - row >= a.kh;
            store<T>(a.small, t, keep ? load<T>(a.big, t) : (T)0);
        } else { // the average poolings and their gradients, t: [plane][oh][ow] of the output
            int64_t ow = t % a.Wo, oh = t / a.Wo % a.Ho, plane = t / L, h0, h1, w0, w1, div;
            if (a.op == CK_ADAPTIVE_AVGPOOL || a.op == CK_ADAPTIVE_AVGPOOL_BACKWARD) {
                h0 = oh * a.H / a.Ho, h1 = ((oh + 1) * a.H + a.Ho - 1) / a.Ho;
                w0 = ow * a.W / a.Wo, w1 = ((ow + 1) * a.W + a.Wo - 1) / a.Wo;
                div = (h1 - h0) * (w1 - w0);
            } else {
                h0 = oh * a.sh - a.ph, w0 = ow * a.sw - a.pw;
                h1 = h0 + a.kh < a.H + a.ph ? h0 + a.kh : a.H + a.ph;
                w1 = w0 + a.kw < a.W + a.pw ? w0 + a.kw : a.W + a.pw;
                int64_t padded = (h1 - h0) * (w1 - w0);
                h0 = h0 < 0 ? 0 : h0, w0 = w0 < 0 ? 0 : w0;
                h1 = h1 > a.H ? a.H : h1, w1 = w1 > a.W ? a.W : w1;
                div = a.divisor ? a.divisor : a.count_include_pad ? padded : (h1 - h0) * (w1 - w0);
            }
            if (a.op == CK_AVGPOOL || a.op == CK_ADAPTIVE_AVGPOOL) {
                T acc = (T)0;
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++)
                        acc += load<T>(a.big, plane * a.H * a.W + ih * a.W + iw);
                store<T>(a.small, t, acc / (T)div);
            } else {
                T g = load<T>(a.small, t) / (T)div;
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++)
                        add_at<T>(a.big, plane * a.H * a.W + ih * a.W + iw, g);
            }
        }
    }
}

CK_KERNEL(ck_conv_f32, ck_conv_args) {
    conv_loop<float>(a);
}
CK_KERNEL(ck_conv_f64, ck_conv_args) {
    conv_loop<double>(a);
}
