"""Round-trip YAML: load a dbt property file, edit it as data, write back only the changed lines.

ruamel.yaml keeps comments, key order and quoting, but re-indents a whole file to one style. So
unless ruamel reproduces a file byte for byte, we never write its output as is: we diff ruamel's
dump of the *unedited* document against its dump of the *edited* one and apply just those hunks
to the original text (a three-way merge, `line_merge`).
Every line we did not edit keeps its bytes. The result must load (with PyYAML, as dbt does) to
exactly the edited data, or the file is refused. Anything we cannot edit faithfully (syntax
errors, several documents, mixed line endings, edits inside anchored/aliased nodes, hunks that
land inside lines ruamel would reformat) raises `YamlRefused` with a one-line reason and nothing
is written to that file.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import yaml as pyyaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.scalarstring import SingleQuotedScalarString
from ruamel.yaml.tokens import CommentToken
from ruamel.yaml.util import load_yaml_guess_indent

from dbt_schema_link.writers.line_merge import (
    lines_of,
    merge_by_block,
    merge_lines,
    similarity,
)

_PyLoader = getattr(pyyaml, "CSafeLoader", pyyaml.SafeLoader)

#: (mapping, sequence, offset) indentation styles tried when dumping; the one whose dump of the
#: unedited file is closest to the original wins. The first is what new files get.
INDENT_STYLES: tuple[tuple[int, int, int], ...] = ((2, 4, 2), (2, 2, 0), (4, 6, 4), (4, 4, 2), (4, 4, 0), (4, 2, 0))
NEW_FILE_STYLE = INDENT_STYLES[0]


class YamlRefused(Exception):
    """This file cannot be edited faithfully; ``str(exc)`` is the one-line reason."""


def _yaml(style: tuple[int, int, int]) -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 1_000_000  # never re-wrap long lines
    mapping, sequence, offset = style
    y.indent(mapping=mapping, sequence=sequence, offset=offset)
    return y


def _dump(doc: Any, style: tuple[int, int, int]) -> str:
    buf = io.StringIO()
    _yaml(style).dump(doc, buf)
    return buf.getvalue()


def py_load(text: str) -> Any:
    """Load as dbt does (PyYAML safe loader, YAML 1.1)."""
    return pyyaml.load(text, Loader=_PyLoader)


def plain(value: str) -> str:
    """A string scalar for new content: quoted when YAML 1.1 (dbt's reader) would not read it
    back as the same string (``yes``, ``on``, ``1.0``, ``null``, leading ``*``...)."""
    try:
        same = py_load(value) == value and "\n" not in value
    except pyyaml.YAMLError:
        same = False
    return value if same else SingleQuotedScalarString(value)


def flow_seq(items: list) -> CommentedSeq:
    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


@dataclass
class YamlFile:
    """One YAML file being edited. ``doc`` is the live ruamel document."""

    path: Path
    display: str
    old_bytes: bytes | None  # None for a file we create
    old_mtime_ns: int | None
    doc: CommentedMap
    header: str = ""  # leading comment for new files
    actions: list[str] = field(default_factory=list)
    _text: str = ""  # the original text, LF line endings, BOM removed
    _newline: str = "\n"
    _bom: bool = False
    _unedited: dict[tuple[int, int, int], str] = field(default_factory=dict)
    _shared: set[int] = field(default_factory=set)
    _under_flow: set[int] = field(default_factory=set)  # containers inside a flow collection
    _prefix_only: bool = False  # existing file that held only comments/blank lines

    @property
    def is_new(self) -> bool:
        return self.old_bytes is None

    def editable(self, *nodes: Any) -> None:
        """Call before changing these containers: refuses nodes that are anchored, aliased or
        reached through a merge key, and turns flow-style ones (``{...}``/``[...]``) into block
        style unless they sit inside another flow collection (where new items stay flow)."""
        for node in nodes:
            if id(node) in self._shared:
                raise YamlRefused(
                    f"an edit would change a node shared through a YAML anchor/alias ({_where(node)}); "
                    "write it out without anchors or add the test by hand"
                )
            fa = getattr(node, "fa", None)
            if fa is not None and fa.flow_style() and id(node) not in self._under_flow:
                fa.set_block_style()

    def render(self) -> bytes:
        """The new bytes (the old bytes when nothing changed). Raises YamlRefused."""
        if self.is_new or self._prefix_only:
            if not self.doc:
                return self.old_bytes if self.old_bytes is not None else b""
            text = _dump(self.doc, NEW_FILE_STYLE)
            prefix = self._text if self._prefix_only else self.header
            if prefix and not prefix.endswith("\n"):
                prefix += "\n"
            return self._encode(prefix + text)
        exact = [st for st, text in self._unedited.items() if text == self._text]
        if exact:  # ruamel reproduces the file byte for byte: its dump of the edit is the result
            edited_text = _dump(self.doc, exact[0])
            return self.old_bytes if edited_text == self._text else self._encode(edited_text)  # type: ignore[return-value]
        missing = [st for st in INDENT_STYLES if st not in self._unedited]
        if missing:  # the remaining styles, from a fresh parse of the untouched text
            original = _yaml(NEW_FILE_STYLE).load(self._text)
            for style in missing:
                self._unedited[style] = _dump(original, style)
        styles = sorted(self._unedited, key=lambda st: (-similarity(self._text, self._unedited[st]), _style_rank(st)))
        edited = {style: _dump(self.doc, style) for style in styles}
        if edited[styles[0]] == self._unedited[styles[0]]:
            return self.old_bytes  # type: ignore[return-value]
        expected = py_load(edited[styles[0]])
        for style in styles:
            merged = merge_lines(lines_of(self._text), lines_of(self._unedited[style]), lines_of(edited[style]))
            if merged is not None and _reads_as("".join(merged), expected):
                return self._encode("".join(merged))
        # Files mixing indentation styles between top-level keys (models: one way, sources:
        # another): merge each top-level block with the style that fits it.
        merged = merge_by_block(self._text, {s: (self._unedited[s], edited[s]) for s in styles}, _style_rank)
        if merged is not None and _reads_as(merged, expected):
            return self._encode(merged)
        raise YamlRefused(
            "cannot add the new lines without reformatting the user's lines around them (mixed "
            "indentation inside one block, or an unusual layout); reformat the file consistently "
            "or add the tests by hand"
        )

    def _encode(self, text: str) -> bytes:
        if self._newline != "\n":
            text = text.replace("\n", self._newline)
        return (("\ufeff" if self._bom else "") + text).encode("utf-8")


def _style_rank(style: tuple[int, int, int]) -> int:
    return INDENT_STYLES.index(style) if style in INDENT_STYLES else len(INDENT_STYLES)


def _reads_as(text: str, expected: Any) -> bool:
    try:
        return py_load(text) == expected
    except pyyaml.YAMLError:
        return False


def new_yaml_file(path: Path, display: str, header: str) -> YamlFile:
    return YamlFile(path=path, display=display, old_bytes=None, old_mtime_ns=None, doc=CommentedMap(), header=header)


def load_yaml_file(path: Path, display: str) -> YamlFile:
    """Read and check one existing YAML file. Raises YamlRefused with a one-line reason."""
    try:
        stat = path.stat()
        raw = path.read_bytes()
    except OSError as exc:
        raise YamlRefused(f"cannot read the file ({exc.strerror})") from None
    if not os.access(path, os.W_OK) or not stat.st_mode & 0o222:
        raise YamlRefused("the file is read-only; make it writable to let dbt-schema-link edit it")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlRefused(f"not UTF-8 text (byte {exc.start}); dbt reads UTF-8 only") from None
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    newline = "\n"
    if "\r" in text:
        crlf = text.count("\r\n")
        if crlf != text.count("\n") or crlf != text.count("\r"):
            raise YamlRefused("mixed line endings (CR/LF); normalise them before writing")
        newline, text = "\r\n", text.replace("\r\n", "\n")
    if text and not text.endswith("\n"):
        text += "\n"
    try:
        docs = list(_yaml(NEW_FILE_STYLE).load_all(text))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f" at line {mark.line + 1}" if mark is not None else ""
        raise YamlRefused(f"YAML error{line}: {_short(exc.problem or exc.context)}") from None
    except YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise YamlRefused(f"YAML error: {first}") from None
    docs_with_content = [d for d in docs if d is not None]
    if len(docs) > 1:
        raise YamlRefused(f"holds {len(docs)} YAML documents; dbt reads property files with exactly one")
    try:
        py_load(text)
    except pyyaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0]
        raise YamlRefused(f"dbt's YAML reader rejects it ({first})") from None
    if not docs_with_content:
        if text.strip() and not all(line.strip() == "" or line.lstrip().startswith("#") for line in text.splitlines()):
            raise YamlRefused("holds no YAML mapping")
        return YamlFile(path, display, raw, stat.st_mtime_ns, CommentedMap(), _text=text, _newline=newline,
                        _bom=bom, _prefix_only=True)
    doc = docs_with_content[0]
    if not isinstance(doc, CommentedMap):
        raise YamlRefused("top level is not a mapping of `models:`/`sources:`... keys")
    unedited = {}
    for style in dict.fromkeys((_guess_style(text), NEW_FILE_STYLE, (2, 2, 0))):
        unedited[style] = _dump(doc, style)
        if unedited[style] == text:
            break  # an exact round trip: no other style is needed (the common case)
    return YamlFile(path, display, raw, stat.st_mtime_ns, doc, _text=text, _newline=newline, _bom=bom,
                    _unedited=unedited, _shared=shared_nodes(doc), _under_flow=under_flow(doc))


def _short(text: Any, limit: int = 160) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _guess_style(text: str) -> tuple[int, int, int]:
    try:
        _, indent, offset = load_yaml_guess_indent(text)
    except Exception:  # noqa: BLE001 - guessing is best effort
        return NEW_FILE_STYLE
    indent = indent if isinstance(indent, int) and indent > 0 else 2
    offset = offset if isinstance(offset, int) and 0 <= offset < indent else 0
    return (max(indent - offset, 2), indent, offset)


# --- anchors and aliases --------------------------------------------------------------------


def _own_keys(mapping: CommentedMap) -> list:
    """Keys in document order, without those that come in through a `<<:` merge."""
    own = getattr(mapping, "_ok", None)
    return [k for k in mapping if own is None or k in own]


def _children(node: Any) -> Iterator[Any]:
    if isinstance(node, CommentedMap):
        for key in _own_keys(node):
            yield node[key]
        for merged in getattr(node, "merge", None) or []:
            # ruamel < 0.19 keeps (position, mapping) pairs, 0.19 the mappings themselves
            yield merged[1] if isinstance(merged, tuple) else merged
    elif isinstance(node, (list, dict)):
        yield from (node.values() if isinstance(node, dict) else node)


def shared_nodes(doc: Any) -> set[int]:
    """ids of containers that are anchored, reached more than once (aliases / merge keys), or
    inside such a container: editing any of them would silently change another place too."""
    counts: dict[int, int] = {}
    order: list[Any] = []

    def count(node: Any) -> None:
        if not isinstance(node, (dict, list)):
            return
        counts[id(node)] = counts.get(id(node), 0) + 1
        if counts[id(node)] > 1:
            return
        order.append(node)
        for child in _children(node):
            count(child)

    count(doc)
    shared: set[int] = set()

    def mark(node: Any) -> None:
        if not isinstance(node, (dict, list)) or id(node) in shared:
            return
        shared.add(id(node))
        for child in _children(node):
            mark(child)

    for node in order:
        anchored = getattr(getattr(node, "anchor", None), "value", None)
        if counts[id(node)] > 1 or anchored:
            mark(node)
        if isinstance(node, CommentedMap) and getattr(node, "merge", None):
            shared.add(id(node))  # keys resolved through `<<:` are not its own
    return shared


def under_flow(doc: Any) -> set[int]:
    """ids of containers with a flow-style (``{...}``/``[...]``) ancestor."""
    out: set[int] = set()

    def walk(node: Any, inside: bool) -> None:
        if not isinstance(node, (dict, list)):
            return
        if inside:
            out.add(id(node))
        fa = getattr(node, "fa", None)
        flow = inside or bool(fa is not None and fa.flow_style())
        for child in _children(node):
            walk(child, flow)

    walk(doc, False)
    return out


def _where(node: Any) -> str:
    line = getattr(getattr(node, "lc", None), "line", None)
    return f"line {line + 1}" if isinstance(line, int) else "an anchored node"


# --- editing helpers that keep comments in place ----------------------------------------------


def _last_chain(node: Any) -> list[tuple[Any, Any, int]]:
    """(container, key, comment slot) down the chain of last elements."""
    chain = []
    while isinstance(node, (CommentedMap, CommentedSeq)) and len(node):
        if isinstance(node, CommentedMap):
            own = _own_keys(node)
            if not own:
                break
            key = own[-1]
            chain.append((node, key, 2))
        else:
            key = len(node) - 1
            chain.append((node, key, 0))
        node = node[key]
    return chain


def _detach_trailing(node: Any) -> CommentToken | None:
    """Remove the comment lines that follow a container's last element (keeping any end-of-line
    comment) and return them, so that appending after the element does not push them up."""
    for container, key, slot in reversed(_last_chain(node)):
        entry = container.ca.items.get(key)
        token = entry[slot] if entry and len(entry) > slot else None
        if not isinstance(token, CommentToken) or "\n" not in token.value:
            continue
        head, _, tail = token.value.partition("\n")
        if not tail.strip("\n") and tail.count("\n") == 0:
            return None
        if head.strip():
            token.value = head + "\n"
        else:
            entry[slot] = None
            if not any(entry):
                del container.ca.items[key]
        return CommentToken("\n" + tail, token.start_mark, None)
    return None


def _attach_trailing(node: Any, token: CommentToken | None) -> None:
    if token is None:
        return
    chain = _last_chain(node)
    if not chain:
        return
    container, key, slot = chain[-1]
    entry = container.ca.items.setdefault(key, [None, None, None, None])
    while len(entry) <= slot:
        entry.append(None)
    entry[slot] = token


def seq_append(seq: CommentedSeq, item: Any) -> None:
    """Append, keeping the comments that followed the last item after the new one."""
    token = _detach_trailing(seq) if len(seq) else None
    seq.append(item)
    _attach_trailing(seq, token)


def add_to_list(parent: CommentedMap, key: str, item: Any) -> None:
    """Append ``item`` to ``parent[key]``, creating the list (with the item already in it, so
    trailing comments move past it) when the key is missing or empty."""
    items = parent.get(key)
    if isinstance(items, CommentedSeq):
        seq_append(items, item)
    elif items is None:
        seq = CommentedSeq([item])
        if key in parent:
            parent[key] = seq
        else:
            map_add(parent, key, seq)
    else:
        raise YamlRefused(f"`{key}:` is not a list")


def map_add(mapping: CommentedMap, key: str, value: Any, after: str | None = None) -> None:
    """Add a key (at the end, or right after ``after``), keeping trailing comments in place."""
    keys = _own_keys(mapping)
    if after is not None and after in keys and keys.index(after) < len(keys) - 1:
        mapping.insert(keys.index(after) + 1, key, value)
        return
    token = _detach_trailing(mapping) if len(mapping) else None
    mapping[key] = value
    _attach_trailing(mapping, token)
