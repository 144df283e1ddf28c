"""A NumPy runtime for BERT-style sentence-transformers models (the bundled MiniLM among them).

Why: a one-off `ask` spent ~5 s importing torch, transformers and sentence-transformers to embed
one question. This runtime reads the same safetensors weights and tokenizer.json, and reproduces
the forward pass the index was built with — fp32, or torch's int8 dynamic quantization of the
Linear layers (per-tensor symmetric int8 weights; activations quantized per call to 7-bit
unsigned with a min/max scale, as fbgemm does on x86) — so question vectors land in the index's
space. `tests/linker/test_bert_numpy.py` compares it with torch on real texts.

Only models it can run exactly are taken (a BertModel with absolute positions, GELU, mean
pooling, normalized output); anything else returns None and the caller loads torch.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Sequence

import numpy as np

#: Activation range fbgemm's dynamic quantization uses on x86 (`reduce_range`: 7 bits, 0..127).
ACT_QMIN, ACT_QMAX = 0, 127
#: Weight range of torch's default dynamic qconfig (qint8, per-tensor symmetric).
WEIGHT_QMIN, WEIGHT_QMAX = -128, 127
#: Inner-dimension slice whose int8 x uint8 dot products float32 sums exactly (see _Linear).
EXACT_INNER = 512
_FLOAT_EPS = float(np.finfo(np.float32).eps)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf in float64 by the Chebyshev-fitted erfc of Numerical Recipes (fractional error below
    1.2e-7, under one float32 step): scipy's exact one costs ~0.5 s of import in a one-off ask."""
    z = np.abs(x.astype(np.float64))
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277))))))))
    erfc = t * np.exp(poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0)


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, as BERT's "gelu" activation."""
    return (0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))).astype(np.float32)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + np.float32(eps)) * weight + bias).astype(np.float32)


class _Linear:
    """y = x W^T + b, in fp32 or as torch's dynamically quantized int8 Linear."""

    def __init__(self, weight: np.ndarray, bias: np.ndarray, int8: bool):
        self.bias = bias.astype(np.float32)
        self.int8 = int8
        if not int8:
            self.wt = np.ascontiguousarray(weight.T, dtype=np.float32)
            return
        # MinMaxObserver, per_tensor_symmetric, qint8: scale = max|w| / ((qmax - qmin) / 2).
        amax = max(float(-min(weight.min(), 0.0)), float(max(weight.max(), 0.0)))
        scale = np.float32(max(amax / ((WEIGHT_QMAX - WEIGHT_QMIN) / 2), _FLOAT_EPS))
        q = np.clip(np.rint(weight / scale), WEIGHT_QMIN, WEIGHT_QMAX)
        self.w_scale = float(scale)
        # Integer products summed in float32 are exact while every partial sum stays below 2^24:
        # 127 * 128 * EXACT_INNER < 2^24, so the inner dimension is cut into such slices (BLAS
        # float32 speed, integer-exact results) and the slices summed in float64.
        wt = q.T.astype(np.float32)
        self.slices = [np.ascontiguousarray(wt[i:i + EXACT_INNER]) for i in range(0, wt.shape[0], EXACT_INNER)]
        self.col_sum = wt.astype(np.float64).sum(axis=0)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        if not self.int8:
            return (x @ self.wt + self.bias).astype(np.float32)
        scale, zero = _activation_params(float(x.min()), float(x.max()))
        qx = np.clip(np.rint(x.astype(np.float32) / np.float32(scale)) + zero, 0, 255).reshape(-1, x.shape[-1])
        acc = -zero * self.col_sum
        for i, part in enumerate(self.slices):
            acc = acc + (qx[:, i * EXACT_INNER:(i + 1) * EXACT_INNER] @ part)
        out = acc.astype(np.float32) * np.float32(scale * self.w_scale) + self.bias
        return out.reshape(*x.shape[:-1], -1).astype(np.float32)


def _activation_params(lo: float, hi: float) -> tuple[float, int]:
    """fbgemm's ChooseQuantizationParams for uint8 with reduce_range (scale, zero point)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / (ACT_QMAX - ACT_QMIN)
    if np.float32(scale) == 0.0 or np.isinf(1.0 / np.float32(scale)):
        scale = 0.1
    scale = float(np.float32(scale))
    from_min, from_max = ACT_QMIN - lo / scale, ACT_QMAX - hi / scale
    err_min = abs(ACT_QMIN) - abs(lo / scale)
    err_max = abs(ACT_QMAX) - abs(hi / scale)
    initial = from_min if err_min < err_max else from_max
    zero = int(np.clip(np.rint(initial), ACT_QMIN, ACT_QMAX))
    return scale, zero


class BertNumpyEmbedder:
    """Embedder protocol (see embedder.py) over a BERT sentence-transformers model directory."""

    def __init__(self, path: Path, name: str, int8: bool, max_tokens: int):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((path / "config.json").read_text())
        w = load_file(str(path / "model.safetensors"))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in w else ""
        self.name = name
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.word = w[f"{prefix}embeddings.word_embeddings.weight"]
        self.dim = int(self.word.shape[1])
        self.position = w[f"{prefix}embeddings.position_embeddings.weight"]
        self.token_type = w[f"{prefix}embeddings.token_type_embeddings.weight"]
        self.emb_norm = (w[f"{prefix}embeddings.LayerNorm.weight"], w[f"{prefix}embeddings.LayerNorm.bias"])
        self.layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"{prefix}encoder.layer.{i}."

            def lin(key: str) -> _Linear:
                return _Linear(w[p + key + ".weight"], w[p + key + ".bias"], int8)

            self.layers.append((
                lin("attention.self.query"), lin("attention.self.key"), lin("attention.self.value"),
                lin("attention.output.dense"),
                (w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]),
                lin("intermediate.dense"), lin("output.dense"),
                (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
            ))
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.no_padding()
        self.max_tokens = max_tokens

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, length = ids.shape
        x = self.word[ids] + self.position[np.arange(length)][None, :, :] + self.token_type[0][None, None, :]
        x = _layer_norm(x.astype(np.float32), *self.emb_norm, self.eps)
        head_dim = self.dim // self.heads
        bias = ((1.0 - mask[:, None, None, :].astype(np.float32)) * np.finfo(np.float32).min).astype(np.float32)
        for q_lin, k_lin, v_lin, o_lin, norm1, up, down, norm2 in self.layers:
            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, length, self.heads, head_dim).transpose(0, 2, 1, 3)

            q, k, v = split(q_lin(x)), split(k_lin(x)), split(v_lin(x))
            scores = (q @ k.transpose(0, 1, 3, 2)) / np.float32(np.sqrt(head_dim)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            attn = scores / scores.sum(axis=-1, keepdims=True)
            ctx = (attn @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.dim).astype(np.float32)
            x = _layer_norm(o_lin(ctx) + x, *norm1, self.eps)
            x = _layer_norm(down(_gelu(up(x))) + x, *norm2, self.eps)
        m = mask[:, :, None].astype(np.float32)
        pooled = (x * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        with _one_blas_thread():
            self._encode(texts, batch_size, out)
        return out

    def _encode(self, texts: Sequence[str], batch_size: int, out: np.ndarray) -> None:
        encodings = self.tokenizer.encode_batch(list(texts))
        # sentence-transformers sorts by length (longest first) and pads each batch to its
        # longest text; the int8 activation scale spans the padded batch, so batch the same way.
        order = [int(i) for i in np.argsort([-len(t) for t in texts])]
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            length = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.int64)
            for row, i in enumerate(chunk):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            out[chunk] = self._forward(ids, mask)


@contextmanager
def _one_blas_thread():
    """Small matrices on one BLAS thread: on a busy 2-core machine OpenBLAS's thread pool made one
    question 10-20x slower (p50 330-610 ms vs 30 ms)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # an optional nicety: without it BLAS keeps its own thread count
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def load(path: Path, name: str, int8: bool, max_tokens: int) -> BertNumpyEmbedder | None:
    """The model at `path` in this runtime, or None when it cannot run it exactly (the caller
    then loads it with sentence-transformers, which also reports any damage in one line)."""
    if not runnable(path):
        return None
    try:
        config = json.loads((path / "sentence_bert_config.json").read_text())
        limit = int(config.get("max_seq_length") or max_tokens)
    except (OSError, ValueError, TypeError):
        limit = max_tokens
    try:
        return BertNumpyEmbedder(path, name, int8, min(max_tokens, limit))
    except Exception:  # noqa: BLE001 - any damage: the full loader explains it
        return None


def runnable(path: Path) -> bool:
    """True when `path` holds a model this runtime reproduces exactly."""
    try:
        config = json.loads((path / "config.json").read_text())
        modules = json.loads((path / "modules.json").read_text())
        pooling = json.loads((path / "1_Pooling" / "config.json").read_text())
    except (OSError, ValueError):
        return False
    kinds = [m.get("type", "").rsplit(".", 1)[-1] for m in modules]
    return (config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and kinds == ["Transformer", "Pooling", "Normalize"]
            and bool(pooling.get("pooling_mode_mean_tokens"))
            and not any(pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens",
                                                 "pooling_mode_mean_sqrt_len_tokens"))
            and (path / "model.safetensors").is_file() and (path / "tokenizer.json").is_file())
