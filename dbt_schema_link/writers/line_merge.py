"""Line-level three-way merge: put the hunks between ruamel's dumps of a file (before/after an
edit) into the user's original text, which may be formatted differently.

`match_lines` is a patience diff (near-linear on long files that mostly agree, where difflib is
quadratic on YAML's many repeated lines); `merge_lines` places each hunk between lines that are
the same in the original and in ruamel's dump, or gives up; `merge_by_block` does that per
top-level key for files that mix indentation styles between blocks.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter


def lines_of(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def similarity(a: str, b: str) -> float:
    """Share of lines the two texts have in common (in order)."""
    la, lb = lines_of(a), lines_of(b)
    return 2.0 * len(match_lines(la, lb)) / ((len(la) + len(lb)) or 1)


def match_lines(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Matched line pairs (i, j), increasing in both: patience diff (common prefix/suffix, then
    lines unique on both sides as anchors, recursively), difflib only for small anchorless gaps.
    Near-linear on long files that mostly agree, unlike difflib on YAML's many repeated lines."""
    pairs: list[tuple[int, int]] = []

    def recurse(alo: int, ahi: int, blo: int, bhi: int) -> None:
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            pairs.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        suffix = []
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            suffix.append((ahi, bhi))
        if alo < ahi and blo < bhi:
            count_a = Counter(a[alo:ahi])
            count_b = Counter(b[blo:bhi])
            where_b = {b[j]: j for j in range(blo, bhi) if count_b[b[j]] == 1}
            anchors = [(i, where_b[a[i]]) for i in range(alo, ahi) if count_a[a[i]] == 1 and a[i] in where_b]
            chain = _increasing(anchors)
            if chain:
                prev_a, prev_b = alo, blo
                for i, j in chain:
                    recurse(prev_a, i, prev_b, j)
                    pairs.append((i, j))
                    prev_a, prev_b = i + 1, j + 1
                recurse(prev_a, ahi, prev_b, bhi)
            elif (ahi - alo) * (bhi - blo) <= 40_000:
                matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
                for x, y, size in matcher.get_matching_blocks():
                    pairs.extend((alo + x + k, blo + y + k) for k in range(size))
        pairs.extend(reversed(suffix))

    recurse(0, len(a), 0, len(b))
    return pairs


def _increasing(anchors: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Longest chain of anchors increasing in the second index (patience sorting)."""
    tails: list[int] = []  # index into anchors of the smallest tail of each length
    back: list[int] = [-1] * len(anchors)
    for k, (_, j) in enumerate(anchors):
        pos = _bisect_tails(anchors, tails, j)
        if pos > 0:
            back[k] = tails[pos - 1]
        if pos == len(tails):
            tails.append(k)
        else:
            tails[pos] = k
    out = []
    k = tails[-1] if tails else -1
    while k != -1:
        out.append(anchors[k])
        k = back[k]
    return out[::-1]


def _bisect_tails(anchors: list[tuple[int, int]], tails: list[int], j: int) -> int:
    lo, hi = 0, len(tails)
    while lo < hi:
        mid = (lo + hi) // 2
        if anchors[tails[mid]][1] < j:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib-style opcodes built from `match_lines`."""
    codes = []
    i = j = 0
    for x, y in [*match_lines(a, b), (len(a), len(b))]:
        if x > i or y > j:
            codes.append(("replace" if x > i and y > j else "delete" if x > i else "insert", i, x, j, y))
        if x < len(a):
            codes.append(("equal", x, x + 1, y, y + 1))
        i, j = x + 1, y + 1
    return codes


def merge_lines(original: list[str], unedited: list[str], edited: list[str]) -> list[str] | None:
    """Apply the hunks unedited -> edited onto original (where original == unedited except for
    formatting). A hunk must sit between lines that are the same in both; lines it replaces that
    ruamel formats differently (a flow mapping turned block) are replaced whole, but never a
    comment that the new lines do not carry. None when a hunk cannot be placed."""
    # trailing spaces (a line of spaces between entries) are no formatting ruamel keeps: its
    # dump has the bare line, which is the same line
    to_orig = {u: o for o, u in match_lines(_bare(original), _bare(unedited))}
    edits: list[tuple[int, int, list[str]]] = []
    for tag, i1, i2, j1, j2 in _opcodes(unedited, edited):
        if tag == "equal":
            continue
        if i1 < i2:
            before = to_orig.get(i1 - 1, -1) if i1 > 0 else -1
            after = to_orig.get(i2, len(original)) if i2 < len(unedited) else len(original)
            if (i1 > 0 and (i1 - 1) not in to_orig) or (i2 < len(unedited) and i2 not in to_orig):
                return None
            start, end = before + 1, after
            replaced = original[start:end]
            new_lines = "".join(edited[j1:j2])
            if any("#" in line and line[line.index("#"):].strip() not in new_lines for line in replaced):
                return None
        elif i1 > 0 and (i1 - 1) in to_orig:
            start = end = to_orig[i1 - 1] + 1
        elif i1 in to_orig:
            start = end = to_orig[i1]
        elif not unedited:
            start = end = len(original)
        else:
            return None
        edits.append((start, end, edited[j1:j2]))
    out: list[str] = []
    pos = 0
    for start, end, lines in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < pos:
            return None
        out += original[pos:start]
        out += lines
        pos = end
    out += original[pos:]
    return out


def _bare(lines: list[str]) -> list[str]:
    return [line.rstrip(" \t\r\n") + "\n" for line in lines]


_TOP_KEY = re.compile(r"""^(?![#\s\-])(?:"[^"]*"|'[^']*'|[^:#\s][^:#]*?)\s*:(?:\s|$)""")


def split_blocks(text: str) -> list[tuple[str | None, list[str]]]:
    """Lines grouped by top-level key: [(None, header lines), ("models", [...]), ...]."""
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in lines_of(text):
        match = _TOP_KEY.match(line)
        if match:
            blocks.append((line.split(":", 1)[0].strip().strip("'\""), [line]))
        else:
            blocks[-1][1].append(line)
    return blocks


def merge_by_block(original: str, dumps: dict[tuple[int, int, int], tuple[str, str]],
                   rank=lambda style: 0) -> str | None:
    """`merge_lines` per top-level block, each with the style (unedited, edited dumps by style,
    best first; ``rank`` breaks ties) whose unedited dump of that block is closest."""
    orig_blocks = split_blocks(original)
    orig_keys = [k for k, _ in orig_blocks]
    split = {}
    for style, (unedited, edited) in dumps.items():
        u, e = split_blocks(unedited), split_blocks(edited)
        if [k for k, _ in u] != orig_keys:
            continue
        edited_keys = [k for k, _ in e]
        if [k for k in edited_keys if k in orig_keys] != orig_keys:
            continue
        split[style] = (dict(u), e)
    if not split:
        return None
    out: list[str] = []
    orig = dict(orig_blocks)
    first_style = next(iter(split))
    for key, new_lines in split[first_style][1]:
        if key not in orig:
            out += new_lines  # a new top-level key: nothing of the user's to keep
            continue
        fits = sorted(split.items(), key=lambda kv: (-similarity("".join(orig[key]), "".join(kv[1][0][key])), rank(kv[0])))
        for _, (unedited, edited_blocks) in fits:
            edited = dict(edited_blocks)[key]
            if edited == unedited[key]:
                out += orig[key]
                break
            merged = merge_lines(orig[key], unedited[key], edited)
            if merged is not None:
                out += merged
                break
        else:
            return None
    return "".join(out)
