"""YAML write-back fuzzing through the real planner and `apply` (extends the layout property
test in tests/writers/test_yaml_io.py with what it does not generate: anchors/aliases/merge keys,
flow-style entries, odd quoting and block scalars, unicode, CRLF / mixed line endings, a BOM, tabs,
comment lines anywhere, a missing final newline).

Every generated `models/schema.yml` is either refused — left byte-identical, with a one-line
reason — or edited faithfully: every original line is still there in order (flow collections
that were edited may become block style), the line endings and BOM are kept, the parsed document
only gained what the writer adds (columns, descriptions where there were none, `quote`, our
tests, `meta.schema_link`), and a second run changes nothing.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, find, given, settings
from hypothesis import strategies as st

from dbt_schema_link.writers import apply, plan_writes
from dbt_schema_link.writers.yaml_io import py_load
from tests.reliability.test_fuzz_inputs import FUZZ
from tests.writers.tinyshop import SCHEMA_YML, standard_links, synthetic_project, write_project

CASES = 150
UNICODE = ["Ünïcödé — ✓ 🙂", "日本語のテキスト", "\u202eRTL override", "naïve café", "emoji 👩‍👩‍👧 family"]
ADDABLE_KEYS = {"description", "quote", "config", "meta", "schema_link", "data_tests", "tests", "columns"}


@st.composite
def schema_variants(draw) -> str:
    lines = SCHEMA_YML.splitlines(keepends=True)
    text = "".join(lines)
    if draw(st.booleans()):  # unicode descriptions and comments
        text = text.replace('"One row per customer"', f'"{draw(st.sampled_from(UNICODE))}"')
        text = text.replace("# status is free text", f"# {draw(st.sampled_from(UNICODE))}")
    quoting = draw(st.sampled_from(["keep", "double_escapes", "single_doubled", "literal_block", "empty", "null"] * 2 + ["plain_colon"]))
    replacement = {
        "keep": "'Primary key'",
        "double_escapes": '"Primary \\"key\\" \\u00e9\\t(tab)"',
        "single_doubled": "'It''s the key'",
        "literal_block": "|\n          Primary key,\n          two lines",
        "plain_colon": "Primary key: yes",  # not valid YAML: refused
        "empty": "''",
        "null": "",
    }[quoting]
    text = text.replace("description: 'Primary key'", f"description: {replacement}".rstrip())
    anchors = draw(st.sampled_from(["none"] * 4 + ["scalar"] * 2 + ["merge_key"] * 2 + ["mapping_alias", "column_alias"]))
    if anchors == "scalar":
        text = text.replace('description: "Human-written: the store"', 'description: &store_desc "Human-written: the store"')
        text = text.replace("      - name: payment_id\n", "      - name: payment_id\n        description: *store_desc\n")
    elif anchors == "mapping_alias":
        text = text.replace("      - name: \"customer_id\"\n", "      - &cust_col\n        name: \"customer_id\"\n")
        text += "x-shared:\n  - *cust_col\n"
    elif anchors == "merge_key":
        text = "base: &base\n  description: merged\n" + text.replace(
            "  - name: payments\n", "  - name: payments\n    <<: *base\n")
    elif anchors == "column_alias":
        text = text.replace("      - name: store_id\n", "      - &store_col\n        name: store_id\n")
        text = text.replace("  - name: payments\n    columns:\n", "  - name: payments\n    columns:\n      - *store_col\n")
    if draw(st.booleans()):  # flow-style entry
        text = text.replace("  - name: payments\n    columns:\n      - name: payment_id\n        data_tests: [unique]\n",
                            "  - {name: payments, columns: [{name: payment_id, data_tests: [unique]}, {name: order_id}]}\n")
    tabs = draw(st.sampled_from(["none"] * 4 + ["in_quotes"] * 3 + ["trailing", "indent"]))
    if tabs == "in_quotes":
        text = text.replace('"Human-written: the store"', '"Human-written:\tthe store"')
    elif tabs == "trailing":
        text = text.replace("      - name: order_id\n        data_tests:", "      - name: order_id\t\n        data_tests:")
    elif tabs == "indent":  # a tab in indentation is a YAML error: refused
        text = text.replace("      - name: name\n", "\t- name: name\n")
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(0, 3))):  # comment lines anywhere, any indentation
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, " " * draw(st.sampled_from([0, 2, 6, 9])) + f"# {draw(st.sampled_from(UNICODE))}\n")
    text = "".join(lines)
    if draw(st.booleans()):
        text = text.rstrip("\n")  # no final newline
    ending = draw(st.sampled_from(["lf"] * 4 + ["crlf"] * 3 + ["mixed"]))
    if ending == "crlf":
        text = text.replace("\n", "\r\n")
    elif ending == "mixed":
        text = text.replace("\n", "\r\n", 1)
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text


def _only_additions(old, new, path="") -> None:
    """``new`` is ``old`` plus what the writer may add, nothing changed or removed."""
    if isinstance(old, dict):
        assert isinstance(new, dict), path
        for key, value in old.items():
            assert key in new, f"{path}.{key} was removed"
            if key == "description" and not value and isinstance(new[key], str):
                continue  # an empty description may be filled in
            _only_additions(value, new[key], f"{path}.{key}")
        for key in set(new) - set(old):
            assert key in ADDABLE_KEYS, f"{path}.{key} is not something the writer adds"
    elif isinstance(old, list):
        assert isinstance(new, list), path
        it = iter(new)
        for index, item in enumerate(old):
            for candidate in it:
                if candidate == item or _contains(item, candidate):
                    _only_additions(item, candidate, f"{path}[{index}]")
                    break
                assert isinstance(candidate, dict) and ("name" in candidate or "relationships" in candidate), (
                    f"{path}: unexpected new item {candidate!r}")
            else:
                raise AssertionError(f"{path}[{index}] was removed")
    else:
        assert new == old, f"{path}: {old!r} became {new!r}"


def _contains(old, new) -> bool:
    try:
        _only_additions(old, new)
        return True
    except AssertionError:
        return False


def _lines_kept(old: str, new: str) -> None:
    edited_flow = lambda line: ("{" in line or "[" in line)  # noqa: E731 - may turn into block style
    wanted = [line for line in old.splitlines() if not edited_flow(line)]
    it = iter(new.splitlines())
    for line in wanted:
        assert any(line == other for other in it), f"lost or changed line: {line!r}"


@pytest.fixture(scope="module")
def scratch():
    root = Path(tempfile.mkdtemp(prefix="schema_link_yaml_fuzz_"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@settings(max_examples=CASES, **FUZZ)
@given(text=schema_variants())
def test_generated_yaml_is_edited_faithfully_or_refused_untouched(scratch, text):
    root = scratch / "tinyshop"
    if root.exists():
        shutil.rmtree(root)
    write_project(root)
    schema = root / "models" / "schema.yml"
    raw = text.encode("utf-8")
    schema.write_bytes(raw)
    project = synthetic_project(root)
    plan = plan_writes(project, standard_links())
    apply(plan)
    after = schema.read_bytes()
    refused = [r for r in plan.refusals if r.display == "models/schema.yml"]
    for refusal in plan.refusals:
        assert "\n" not in refusal.reason and refusal.reason
    if refused or after == raw:
        assert after == raw, "a refused file was written"
        event(f"refused: {refused[0].reason[:60]}" if refused else "unchanged")
        return
    event("edited")
    old_text, new_text = raw.decode("utf-8-sig"), after.decode("utf-8-sig")
    assert after.startswith(b"\xef\xbb\xbf") == raw.startswith(b"\xef\xbb\xbf"), "BOM changed"
    if "\r\n" in old_text:
        assert new_text.count("\r\n") == new_text.count("\n"), "line endings changed"
    else:
        assert "\r" not in new_text
    _lines_kept(old_text.replace("\r\n", "\n"), new_text.replace("\r\n", "\n"))
    old_doc, new_doc = py_load(old_text), py_load(new_text)
    _only_additions(old_doc, new_doc)
    assert "schema_link" in new_text  # the edit is really there
    # a second run changes nothing
    again = plan_writes(synthetic_project(root), standard_links())
    assert not [c for c in again.changes if c.display == "models/schema.yml"], "a second run edits again"


FEATURES = {  # what the module docstring promises the generator produces -> how to see it in a file
    "scalar anchor/alias": lambda t: "&store_desc" in t and "*store_desc" in t,
    "merge key": lambda t: "<<: *base" in t,
    "mapping alias": lambda t: "*cust_col" in t,
    "flow-style entry": lambda t: "{name: payments" in t,
    "block scalar": lambda t: "description: |" in t,
    "escaped double quotes": lambda t: '\\"key\\"' in t,
    "unicode": lambda t: any(u in t for u in UNICODE),
    "CRLF": lambda t: t.count("\r\n") == t.count("\n") > 0,
    "mixed line endings": lambda t: 0 < t.count("\r\n") < t.count("\n"),
    "BOM": lambda t: t.startswith("\ufeff"),
    "tab in indentation": lambda t: "\n\t- name" in t,
    "comment line": lambda t: any(line.lstrip().startswith("# ") and any(u in line for u in UNICODE)
                                  for line in t.splitlines()),
    "no final newline": lambda t: not t.endswith("\n"),
    "invalid YAML (refused)": lambda t: "Primary key: yes" in t,
}


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_generator_reaches_each_feature(feature):
    """Each hostile feature shows up within the fuzz test's own number of cases."""
    found = find(schema_variants(), FEATURES[feature],
                 settings=settings(max_examples=CASES, database=None, derandomize=True, deadline=None))
    assert FEATURES[feature](found)
