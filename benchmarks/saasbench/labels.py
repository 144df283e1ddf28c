"""The SaaS packages under `<data>/saas_dev/` and their join labels (`<pkg>/truth.json`).

A column is `(table, column)` lower-cased, the table being the source table (the seed file's
stem). A label is oriented child → parent; `kind: sibling` labels join two non-key columns and
match a found link in either orientation (scoring.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

Column = tuple[str, str]

SAAS_DIR = "saas_dev"


class DataSays(str, Enum):
    """What the seeds say about a label (the README's three classes; every label is in one)."""

    ALL_NULL = "all_null"  # the child column has no values
    CONTAINED = "contained"  # every non-null child value is in the parent: data-confirmed
    ORPHANS = "orphans"  # some child values are missing from the parent


@dataclass(frozen=True)
class Label:
    child: Column
    parent: Column
    kind: str  # fk | sibling
    data: dict = field(default_factory=dict, compare=False, hash=False)
    evidence: str = field(default="", compare=False, hash=False)
    trace: str = field(default="", compare=False, hash=False)
    note: str | None = field(default=None, compare=False, hash=False)

    @property
    def data_says(self) -> DataSays:
        if int(self.data.get("child_nonnull", 0)) == 0:
            return DataSays.ALL_NULL
        if int(self.data.get("child_distinct_orphans", 1)) == 0:
            return DataSays.CONTAINED
        return DataSays.ORPHANS

    def matches(self, child: Column, parent: Column) -> bool:
        """A found link child → parent is this label: same orientation, or either for a sibling."""
        if (child, parent) == (self.child, self.parent):
            return True
        return self.kind == "sibling" and (parent, child) == (self.child, self.parent)

    def to_dict(self) -> dict:
        out = {"child": ".".join(self.child), "parent": ".".join(self.parent), "kind": self.kind,
               "data_says": self.data_says.value, "trace": self.trace, "evidence": self.evidence,
               "data": self.data}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Package:
    name: str
    dir: Path

    @property
    def seeds(self) -> list[Path]:
        return sorted((self.dir / "seeds").glob("*.csv"))


def column(ref: str) -> Column:
    """`table.column` → (table, column), lower-cased (a column name may hold no dot; a table none)."""
    table, _, col = ref.partition(".")
    return (table.lower(), col.lower())


def read_labels(path: Path) -> list[Label]:
    out = []
    for entry in json.loads(path.read_text(encoding="utf-8")):
        out.append(Label(column(entry["child"]), column(entry["parent"]), str(entry["kind"]),
                         dict(entry.get("data", {})), str(entry.get("evidence", "")),
                         str(entry.get("trace", "")), entry.get("note")))
    return out


def discover(data_dir: Path) -> list[Package]:
    """Every `<data>/saas_dev/<pkg>/` holding `truth.json` and `seeds/*.csv`, by name."""
    root = data_dir / SAAS_DIR
    if not root.is_dir():
        return []
    return [Package(d.name, d) for d in sorted(root.iterdir())
            if d.is_dir() and (d / "truth.json").is_file() and any((d / "seeds").glob("*.csv"))]


def missing_data(data_dir: Path) -> str | None:
    """Why the benchmark data cannot be used (one line), or ``None`` when it is there."""
    if discover(data_dir):
        return None
    return (f"benchmark data is not available: no packages with truth.json and seeds/*.csv under "
            f"{data_dir / SAAS_DIR} (it lives in ../shared/data beside the repository; pass --data DIR)")
