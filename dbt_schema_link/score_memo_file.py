"""The scores memo under ``target/schema_link/scores.memo`` (:mod:`.discovery.memo`): what
``link`` keeps of one run so that the next re-scores only what changed.

One header line (format, package and memo version, a digest of the scoring code, Python version)
and a ``marshal`` of plain values: fast to read and write at warehouse scale (hundreds of thousands
of scored pairs), and unlike ``pickle`` it runs no code. ``marshal``'s format belongs to one Python
version, so a memo written by another (or another package version, other scoring code — an
editable install or a checkout between two releases — or damaged) is not read: the run scores
everything and writes a new one.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import marshal
import sys
from pathlib import Path

from dbt_schema_link import discovery
from dbt_schema_link.collector import collector_paused
from dbt_schema_link.discovery.lookup_reuse import KeptLookups
from dbt_schema_link.discovery.memo import MEMO_VERSION_TAG, ScoreMemo
from dbt_schema_link.fileio import atomic_write_bytes

MEMO_FORMAT = "dbt_schema_link/scores_memo"


@functools.cache
def code_digest() -> str:
    """A digest of the discovery package's source: stored scores are what this code computed, and
    the package version alone does not change between two commits of a checkout."""
    h = hashlib.blake2b(digest_size=8)
    root = Path(discovery.__file__).parent
    for path in sorted(root.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _header() -> bytes:
    return (f"{MEMO_FORMAT} {MEMO_VERSION_TAG} code-{code_digest()} "
            f"python{sys.version_info[0]}.{sys.version_info[1]}\n").encode()


@collector_paused()  # millions of plain values (dbt_schema_link.collector)
def read_memo(path: Path) -> ScoreMemo | None:
    """The memo at ``path``, or ``None`` when there is none this version can read."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    header = _header()
    if not data.startswith(header):
        return None
    try:
        values = list(marshal.loads(data[len(header):]))
        if len(values) != len(_FIELDS):
            return None
        memo = ScoreMemo(*values)
        memo.lookups = None if memo.lookups is None else KeptLookups(*memo.lookups)
    except (EOFError, ValueError, TypeError):
        return None
    if not (isinstance(memo.scope, bytes) and isinstance(memo.shared, list) and isinstance(memo.shared_start, int)
            and all(isinstance(x, dict) for x in (memo.relations, memo.first, memo.final, memo.names, memo.roles))
            and isinstance(memo.calendars, tuple)):
        return None
    return memo


def write_memo(path: Path, memo: ScoreMemo) -> None:
    lookups = None if memo.lookups is None else tuple(getattr(memo.lookups, f.name)  # no deep copy
                                                      for f in dataclasses.fields(memo.lookups))
    payload = tuple(lookups if name == "lookups" else getattr(memo, name) for name in _FIELDS)
    atomic_write_bytes(path, _header() + marshal.dumps(payload))


#: The memo's fields in the order they are written (plain values; the value lookups as a tuple).
_FIELDS = tuple(f.name for f in dataclasses.fields(ScoreMemo))
