"""The declared scoring policy (discovery/policy.py): every hand-set number of the scoring modules
is there, and its ladders keep the order the rules rely on."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from dbt_schema_link.discovery import policy

DISCOVERY = Path(policy.__file__).parent
#: Modules whose strengths and cut-offs must come from the policy (names.py keeps its lexicon).
SCORING_MODULES = ("evidence.py", "features.py", "candidates.py", "scoring.py", "selection.py",
                   "evaluate.py", "verification.py", "rejections.py", "materialise.py")


def _stray_numbers(path: Path) -> list[str]:
    """Float literals other than 0.0, 1.0 and division guards (below 1e-3) inside functions
    (module-level named constants are declarations, not strays)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value not in (0.0, 1.0) \
                    and abs(node.value) >= 1e-3:
                out.append(f"{path.name}:{node.lineno} {node.value}")
    return out


def test_scoring_modules_take_their_numbers_from_the_policy():
    strays = [s for name in SCORING_MODULES for s in _stray_numbers(DISCOVERY / name)]
    assert strays == []


def test_every_policy_number_is_a_strength_or_share():
    for group in (policy.KEY, policy.NAMES, policy.READING, policy.TYPES, policy.CARDINALITY, policy.VALUES,
                  policy.PRIORS, policy.SELECTION):
        for f in dataclasses.fields(group):
            value = getattr(group, f.name)
            assert 0.0 <= value <= 1.0, f"{type(group).__name__}.{f.name} = {value}"
    assert policy.TRAPS.tightest_margin >= 1.0  # a ratio of two container sizes


def test_key_ladder_keeps_named_keys_above_keys_from_values():
    key = policy.KEY
    # a key from values elsewhere than the first column never becomes a table key on its own
    assert key.data_other < key.table_key_min <= key.key_named_other
    # a key named for its relation outranks one found from values, by more than the tie margin
    assert key.data_first + key.tie < key.abbreviates_relation <= key.names_relation
    # role names (created_by) are references: never table keys
    assert key.role < key.table_key_min
    # an unprofiled name-only key stays a key
    assert key.key_named_first * key.unprofiled_factor >= key.table_key_min


def test_name_strengths_order_exact_matches_by_what_they_show():
    names = policy.NAMES
    assert names.exact_to_key > names.exact_to_unique > names.exact_plain_unique > names.exact_plain
    assert names.exact_plain_unique >= names.signal_min > names.exact_plain  # a plain name on a unique parent speaks
    assert names.fuzzy_min < names.fuzzy_signal_min
