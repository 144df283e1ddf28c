"""Round-trip YAML editing: faithful edits (only new lines appear) or a one-line refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml.comments import CommentedMap

from dbt_schema_link.writers.entries import add_item
from dbt_schema_link.writers.line_merge import match_lines, merge_lines, split_blocks
from dbt_schema_link.writers.yaml_io import (
    YamlRefused,
    add_to_list,
    load_yaml_file,
    map_add,
    plain,
    py_load,
)


def _load(tmp_path: Path, text: str | bytes, name: str = "schema.yml"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return load_yaml_file(path, name)


def _add_column(yfile, model_index: int = 0, name: str = "new_col"):
    entry = yfile.doc["models"][model_index]
    add_item(yfile, entry, "columns", CommentedMap(name=name, description="added"))


def _is_subsequence(old: str, new: str) -> bool:
    it = iter(new.splitlines())
    return all(any(line == other for other in it) for line in old.splitlines())


def test_untouched_file_renders_identical_bytes(tmp_path):
    text = "# c\nmodels:\n- name: a   # x\n  columns:\n  - {name: b, description: 'q'}\n"
    yfile = _load(tmp_path, text)
    assert yfile.render() == text.encode()


@pytest.mark.parametrize("text", [
    # dbt style, comments, folded scalars, odd quoting
    'version: 2\nmodels:\n  - name: "a"\n    description: >-\n      folded\n      text\n    columns:\n      - name: \'id\'\n',
    # offset-0 style
    "models:\n- name: a\n  columns:\n  - name: id\n",
    # four-space style
    "models:\n    - name: a\n      columns:\n          - name: id\n",
    # mixed between top-level blocks
    "models:\n  - name: a\n    columns:\n      - name: id\nsources:\n- name: s\n  tables:\n  - name: t\n",
    # document start marker and trailing comments
    "---\nmodels:\n  - name: a\n    columns:\n      - name: id\n# the end\n",
    # no newline at end of file
    "models:\n  - name: a\n    columns:\n      - name: id",
    # tabs inside a quoted value
    'models:\n  - name: a\n    description: "tab\there"\n    columns:\n      - name: id\n',
])
def test_edits_keep_every_original_line(tmp_path, text):
    yfile = _load(tmp_path, text)
    _add_column(yfile)
    new = yfile.render().decode()
    assert _is_subsequence(text, new), new
    data = py_load(new)
    assert data["models"][0]["columns"][-1] == {"name": "new_col", "description": "added"}


def test_blank_lines_of_spaces_and_trailing_spaces_are_kept(tmp_path):
    """A star-schema project's file: lines of spaces between columns, a value with trailing
    spaces, CRLF; ruamel dumps those lines bare, which must not stop the edit."""
    text = ("version: 2\r\n\r\nmodels:\r\n  - name: fct_sales\r\n    columns:\r\n\r\n"
            "      - name: sales_key\r\n        tests:\r\n          - not_null\r\n      \r\n"
            "      - name: customer_key\r\n        tests:\r\n          - not_null \r\n      \r\n"
            "      - name: product_key\r\n        tests:\r\n          - not_null\r\n")
    yfile = _load(tmp_path, text.encode())
    add_to_list(yfile.doc["models"][0]["columns"][1], "tests", "unique")
    new = yfile.render().decode()
    assert _is_subsequence(text.replace("\r\n", "\n"), new.replace("\r\n", "\n")), new
    assert py_load(new)["models"][0]["columns"][1]["tests"] == ["not_null", "unique"]


def test_flow_style_entry_becomes_block_where_edited(tmp_path):
    yfile = _load(tmp_path, "version: 2\nmodels:\n  - {name: a, columns: [{name: id}]}\n  - name: b\n")
    _add_column(yfile)
    new = yfile.render().decode()
    assert new.startswith("version: 2\nmodels:\n") and new.endswith("  - name: b\n")
    assert py_load(new)["models"][0]["columns"] == [{"name": "id"}, {"name": "new_col", "description": "added"}]


def test_crlf_and_bom_are_kept(tmp_path):
    text = "\ufeffmodels:\r\n  - name: a\r\n    columns:\r\n      - name: id\r\n"
    yfile = _load(tmp_path, text.encode("utf-8"))
    _add_column(yfile)
    new = yfile.render()
    assert new.startswith("\ufeff".encode())
    body = new.decode("utf-8")[1:]
    assert body.count("\r\n") == body.count("\n") and "new_col" in body


def test_trailing_comment_stays_after_the_list(tmp_path):
    text = ("models:\n  - name: a\n    columns:\n      - name: id\n        data_tests:\n          - unique\n\n"
            "  # ---- marts ----\n  - name: b\n")
    yfile = _load(tmp_path, text)
    add_to_list(yfile.doc["models"][0]["columns"][0], "data_tests", "not_null")
    new = yfile.render().decode()
    assert new.index("- not_null") < new.index("# ---- marts ----") < new.index("- name: b")


@pytest.mark.parametrize("text, reason", [
    ("models:\n  - name: a\n   bad: indent\n", "YAML error at line"),
    ("models:\n\t- name: a\n", "YAML error"),
    ("models: []\n---\nsources: []\n", "holds 2 YAML documents"),
    ("- just\n- a list\n", "top level is not a mapping"),
    ("models:\n  - name: a\n  - name: a\nmodels: []\n", "YAML error"),  # duplicate key
    ("models:\r\n  - name: a\n", "mixed line endings"),
])
def test_bad_files_are_refused_with_one_line(tmp_path, text, reason):
    with pytest.raises(YamlRefused) as err:
        _load(tmp_path, text)
    assert reason in str(err.value) and "\n" not in str(err.value)


def test_not_utf8_is_refused(tmp_path):
    with pytest.raises(YamlRefused, match="not UTF-8"):
        _load(tmp_path, b"models:\n  - name: \xff\n")


def test_read_only_file_is_refused(tmp_path):
    path = tmp_path / "schema.yml"
    path.write_text("models: []\n")
    path.chmod(0o444)
    try:
        with pytest.raises(YamlRefused, match="read-only"):
            load_yaml_file(path, "schema.yml")
    finally:
        path.chmod(0o644)


def test_anchored_nodes_are_guarded(tmp_path):
    text = ("cols: &cols\n  - name: id\nmodels:\n  - name: a\n    columns: *cols\n  - name: b\n"
            "    columns:\n      - name: id\n")
    yfile = _load(tmp_path, text)
    shared = yfile.doc["models"][0]["columns"]
    with pytest.raises(YamlRefused, match="anchor"):
        yfile.editable(shared)
    with pytest.raises(YamlRefused, match="anchor"):
        yfile.editable(shared[0])
    yfile.editable(yfile.doc["models"][1]["columns"])  # not shared: fine


def test_merge_key_mapping_is_guarded(tmp_path):
    text = "base: &base\n  description: d\nmodels:\n  - name: a\n    <<: *base\n"
    yfile = _load(tmp_path, text)
    with pytest.raises(YamlRefused):
        yfile.editable(yfile.doc["models"][0])


def test_plain_quotes_what_yaml_1_1_would_misread():
    for value in ("yes", "on", "No", "null", "1.0", "0755", "*x", "a: b", "- x", ""):
        assert type(plain(value)).__name__ == "SingleQuotedScalarString", value
    for value in ("customer_id", "ref('customers')", "source('raw', 'payments')", "Joins to `a.b` (many-to-one)."):
        assert plain(value) == value and type(plain(value)) is str


def test_merge_lines_refuses_hunks_in_reformatted_lines():
    original = ["a:\n", "- x\n", "- y\n"]
    unedited = ["a:\n", "  - x\n", "  - y\n"]
    edited = ["a:\n", "  - x\n", "  - z\n", "  - y\n"]
    assert merge_lines(original, unedited, edited) is None
    assert merge_lines(unedited, unedited, edited) == edited


def test_match_lines_is_a_common_subsequence():
    import random

    rng = random.Random(7)
    for _ in range(300):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 30))]
        b = list(a)
        for _ in range(rng.randint(0, 5)):
            spot = rng.randint(0, len(b))
            b[spot:spot + rng.randint(0, 2)] = [rng.choice("abcdxyz") for _ in range(rng.randint(0, 2))]
        pairs = match_lines(a, b)
        assert all(a[i] == b[j] for i, j in pairs)
        assert all(p[0] < q[0] and p[1] < q[1] for p, q in zip(pairs, pairs[1:], strict=False))


def test_split_blocks_by_top_level_key():
    blocks = split_blocks("# head\nversion: 2\nmodels:\n- name: a\n  x: 1\nsources:\n  - name: s\n")
    assert [k for k, _ in blocks] == [None, "version", "models", "sources"]


def test_new_key_is_added_after_the_named_key(tmp_path):
    yfile = _load(tmp_path, "models:\n  - name: a\n    columns:\n      - name: id\n        data_tests: [unique]\n")
    column = yfile.doc["models"][0]["columns"][0]
    map_add(column, "description", "d", after="name")
    assert list(column) == ["name", "description", "data_tests"]


# --- property: any dbt-like file in any common layout is edited faithfully or refused --------

_names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
_comment = st.sampled_from(["", "  # note", "   # keep: me"])
_quote = st.sampled_from(["{}", "'{}'", '"{}"'])


@st.composite
def dbt_yaml(draw):
    mapping = draw(st.sampled_from([2, 4]))
    offset = draw(st.sampled_from([0, 2])) if mapping == 2 else draw(st.sampled_from([0, 2, 4]))
    seq = offset + 2
    pad = lambda n: " " * n  # noqa: E731
    lines = [draw(st.sampled_from(["", "# header comment\n", "version: 2\n\n"]))]
    lines.append("models:\n")
    models = draw(st.lists(_names, min_size=1, max_size=3, unique=True))
    for model in models:
        lines.append(f"{pad(offset)}- name: {draw(_quote).format(model)}{draw(_comment)}\n")
        inner = offset + seq - offset if offset else seq
        inner = offset + 2
        if draw(st.booleans()):
            lines.append(f"{pad(inner)}description: {draw(_quote).format('some text')}\n")
        columns = draw(st.lists(_names, min_size=0, max_size=3, unique=True))
        if columns:
            lines.append(f"{pad(inner)}columns:\n")
            for column in columns:
                dash = inner + offset
                lines.append(f"{pad(dash)}- name: {draw(_quote).format(column)}{draw(_comment)}\n")
                key_pad = dash + 2
                kind = draw(st.sampled_from(["none", "tests_flow", "tests_block", "data_tests_block"]))
                if kind == "tests_flow":
                    lines.append(f"{pad(key_pad)}tests: [unique, not_null]\n")
                elif kind != "none":
                    key = "tests" if kind == "tests_block" else "data_tests"
                    lines.append(f"{pad(key_pad)}{key}:\n{pad(key_pad + offset)}- unique{draw(_comment)}\n")
            if draw(st.booleans()):
                lines.append(f"{pad(inner + offset)}# trailing comment in the list\n")
        if draw(st.booleans()):
            lines.append("\n")
    return "".join(lines), models


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=dbt_yaml(), which=st.integers(min_value=0, max_value=5))
def test_any_layout_edits_faithfully_or_refuses(tmp_path, case, which):
    text, models = case
    yfile = _load(tmp_path, text)
    entry = yfile.doc["models"][which % len(models)]
    columns = entry.get("columns") or []
    if columns and which % 2:
        column = columns[which % len(columns)]
        key = "tests" if "tests" in column else "data_tests"
        add_item(yfile, column, key, CommentedMap(relationships=CommentedMap(to="ref('x')", field="id")))
    else:
        add_item(yfile, entry, "columns", CommentedMap(name="zz_new", description="Joins to `x.id`."))
    expected = py_load(_dump_for_compare(yfile))
    try:
        new = yfile.render().decode()
    except YamlRefused as exc:
        assert "\n" not in str(exc)
        return
    flow_line = "tests: [unique, not_null]"  # a flow list we append to becomes a block list
    kept = "\n".join(line for line in text.splitlines() if flow_line not in line or which % 2 == 0)
    assert _is_subsequence(kept, new), f"lost a line:\n{text}\n---\n{new}"
    assert py_load(new) == expected


def _dump_for_compare(yfile) -> str:
    from dbt_schema_link.writers.yaml_io import _dump

    return _dump(yfile.doc, (2, 4, 2))
