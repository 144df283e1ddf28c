"""The verdict of every found link and the scores of a package (or of several, summed).

A found link is child (table, column) → parent (table, column), lower-cased, a source named by
its table (fkbench.product reads links.json; lineage links are not joins; a composite key's
further pairs are links of their own; a pair written twice counts once, at its highest
confidence). Its verdict, first that holds:

label                     it matches a label: the same (child, parent), or either orientation
                          for a `kind: sibling` label;
allowed_named_key         the parent column is a key of its table and the child's name designates
                          the parent's table (see `named_key`);
allowed_sibling_of_label  both columns are the child side of labels (`fk` or `sibling`) with a
                          common parent column: a = c and b = c are joins the package makes, so
                          a = b is a join path;
false                     anything else.

Strict precision counts `label` only; precision with allowance counts the two `allowed_*`
verdicts too. Nothing else is judged by hand. Recall is over labels (all, child non-empty,
data-confirmed), never with allowance.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import Enum

from fkbench.product import FoundLink

from .labels import Column, DataSays, Label

#: The product's bar for writing a test (a link it is sure enough of to assert); "at the bar" is
#: confidence >= this. The product keeps links from 0.5.
WRITE_BAR = 0.7

#: Confidence bands: (label, low inclusive, high exclusive); the last is [0.9, 1.0].
BANDS: tuple[tuple[str, float, float], ...] = (
    ("<0.5", float("-inf"), 0.5), ("0.5-0.7", 0.5, 0.7), ("0.7-0.9", 0.7, 0.9), ("0.9-1.0", 0.9, float("inf")),
)


class Verdict(str, Enum):
    LABEL = "label"
    NAMED_KEY = "allowed_named_key"
    SIBLING_OF_LABEL = "allowed_sibling_of_label"
    FALSE = "false"


def band_of(confidence: float) -> str:
    return next(label for label, lo, hi in BANDS if lo <= confidence < hi)


# --- names -------------------------------------------------------------------------------------
def name_forms(word: str) -> set[str]:
    """`word` with singular/plural variants: order/orders, category/categories, address/addresses."""
    forms = {word, word + "s", word + "es"}
    if word.endswith("ies"):
        forms.add(word[:-3] + "y")
    if word.endswith("es"):
        forms.add(word[:-2])
    if word.endswith("s"):
        forms.add(word[:-1])
    if word.endswith("y"):
        forms.add(word[:-1] + "ies")
    return {f for f in forms if f}


def table_keys(table: str, labels: list[Label]) -> set[str]:
    """Columns that count as a key of `table`: `id`, `fivetran_id`, `<table>_id`, the table's own
    suffix key (`deal_pipeline.pipeline_id`), and the parent column of any `fk` label into it
    (the README's key rules, which the labels' orientation follows)."""
    keys = {"id", "fivetran_id"}
    words = table.split("_")
    for i in range(len(words)):
        keys |= {f"{form}_id" for form in name_forms("_".join(words[i:]))}
    keys |= {label.parent[1] for label in labels if label.kind == "fk" and label.parent[0] == table}
    return keys


def designates(child_column: str, table: str) -> bool:
    """The child's name designates `table`: `<table>_id` or `..._<table>_id`, singular/plural tolerant."""
    return any(child_column == f"{form}_id" or child_column.endswith(f"_{form}_id") for form in name_forms(table))


def named_key(child: Column, parent: Column, labels: list[Label]) -> bool:
    """Parent column is a key of its table and the child's name designates the parent's table.
    A column naming its own table (`deal.deal_id` → `deal.id`) is that row's key, not a join."""
    if parent[1] not in table_keys(parent[0], labels) or not designates(child[1], parent[0]):
        return False
    own = child[0] == parent[0] and child[1] in {f"{form}_id" for form in name_forms(child[0])}
    return not own


def label_parents(labels: list[Label]) -> dict[Column, set[Column]]:
    """Child column → the parent columns of its labels (either kind)."""
    out: dict[Column, set[Column]] = {}
    for label in labels:
        out.setdefault(label.child, set()).add(label.parent)
    return out


# --- verdicts ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScoredLink:
    child: Column
    parent: Column
    confidence: float
    kind: str
    evidence: dict[str, tuple[float, float]]
    verdict: Verdict
    label: Label | None = None
    child_all_null: bool | None = None  # None: not looked up
    reversed_label: bool = False  # the reverse of an `fk` label (false either way; told apart)

    @property
    def strict(self) -> bool:
        return self.verdict is Verdict.LABEL

    @property
    def allowed(self) -> bool:
        return self.verdict is not Verdict.FALSE

    def to_dict(self) -> dict:
        out = {"child": ".".join(self.child), "parent": ".".join(self.parent),
               "confidence": round(self.confidence, 4), "band": band_of(self.confidence), "kind": self.kind,
               "verdict": self.verdict.value, "child_all_null": self.child_all_null,
               "evidence": {k: [round(s, 4), round(c, 4)] for k, (s, c) in self.evidence.items()}}
        if self.label is not None:
            out["label"] = {"kind": self.label.kind, "data_says": self.label.data_says.value}
        if self.reversed_label:
            out["reversed_label"] = True
        return out


def _lower(col: tuple[str, str]) -> Column:
    return (col[0].lower(), col[1].lower())


def distinct_links(found: list[FoundLink]) -> list[FoundLink]:
    """One link per (child, parent), lower-cased, at its highest confidence, in a stable order."""
    best: dict[tuple[Column, Column], FoundLink] = {}
    for link in found:
        key = (_lower(link.child), _lower(link.parent))
        if key not in best or link.confidence > best[key].confidence:
            best[key] = link
    return [best[k] for k in sorted(best)]


def judge(found: list[FoundLink], labels: list[Label],
          all_null: dict[Column, bool] | None = None) -> list[ScoredLink]:
    """The verdict of each distinct found link. `all_null`: child column → has no non-null value."""
    parents = label_parents(labels)
    fk_pairs = {(label.child, label.parent) for label in labels if label.kind == "fk"}
    out = []
    for link in distinct_links(found):
        child, parent = _lower(link.child), _lower(link.parent)
        label = next((x for x in labels if x.matches(child, parent)), None)
        if label is not None:
            verdict = Verdict.LABEL
        elif named_key(child, parent, labels):
            verdict = Verdict.NAMED_KEY
        elif parents.get(child, set()) & parents.get(parent, set()):
            verdict = Verdict.SIBLING_OF_LABEL
        else:
            verdict = Verdict.FALSE
        null = None if all_null is None else all_null.get(child)
        out.append(ScoredLink(child, parent, link.confidence, link.kind, dict(link.evidence), verdict, label,
                              null, (parent, child) in fk_pairs))
    return out


# --- tallies -----------------------------------------------------------------------------------
def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


@dataclass(frozen=True)
class Tally:
    """Counts of one package, or summed over several (micro-averaged ratios)."""

    labels: int = 0
    labels_found: int = 0
    nonnull: int = 0  # labels whose child column has a value
    nonnull_found: int = 0
    confirmed: int = 0  # labels the data confirms (child non-empty, every child value in the parent)
    confirmed_found: int = 0
    found: int = 0
    strict: int = 0
    allowed: int = 0
    bar: int = 0  # found links at confidence >= WRITE_BAR
    bar_strict: int = 0
    bar_allowed: int = 0
    all_null: int = 0  # found links whose child column is all NULL
    all_null_bar: int = 0
    reversed: int = 0  # found links that are an fk label reversed
    bands: tuple[tuple[int, int, int], ...] = field(default=tuple((0, 0, 0) for _ in BANDS))  # (n, strict, allowed)

    def __add__(self, other: "Tally") -> "Tally":
        values = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self) if f.name != "bands"}
        bands = tuple(tuple(a + b for a, b in zip(x, y)) for x, y in zip(self.bands, other.bands))
        return Tally(**values, bands=bands)

    @property
    def recall(self) -> float | None:
        return _ratio(self.labels_found, self.labels)

    @property
    def recall_nonnull(self) -> float | None:
        return _ratio(self.nonnull_found, self.nonnull)

    @property
    def recall_confirmed(self) -> float | None:
        return _ratio(self.confirmed_found, self.confirmed)

    @property
    def precision(self) -> float | None:
        return _ratio(self.strict, self.found)

    @property
    def precision_allowed(self) -> float | None:
        return _ratio(self.allowed, self.found)

    @property
    def bar_precision(self) -> float | None:
        return _ratio(self.bar_strict, self.bar)

    @property
    def bar_precision_allowed(self) -> float | None:
        return _ratio(self.bar_allowed, self.bar)

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "bands"}
        out.update({name: getattr(self, name) for name in (
            "recall", "recall_nonnull", "recall_confirmed", "precision", "precision_allowed",
            "bar_precision", "bar_precision_allowed")})
        out["write_bar"] = WRITE_BAR
        out["bands"] = [{"band": label, "links": n, "strict": s, "allowed": a,
                         "share_strict": _ratio(s, n), "share_allowed": _ratio(a, n)}
                        for (label, _, _), (n, s, a) in zip(BANDS, self.bands)]
        return out


def found_labels(labels: list[Label], links: list[ScoredLink]) -> list[bool]:
    """For each label, whether some found link matches it."""
    pairs = [(x.child, x.parent) for x in links]
    return [any(label.matches(c, p) for c, p in pairs) for label in labels]


def tally(labels: list[Label], links: list[ScoredLink]) -> Tally:
    hit = found_labels(labels, links)
    says = [label.data_says for label in labels]
    bands = []
    for _, lo, hi in BANDS:
        inside = [x for x in links if lo <= x.confidence < hi]
        bands.append((len(inside), sum(x.strict for x in inside), sum(x.allowed for x in inside)))
    at_bar = [x for x in links if x.confidence >= WRITE_BAR]
    return Tally(
        labels=len(labels), labels_found=sum(hit),
        nonnull=sum(s is not DataSays.ALL_NULL for s in says),
        nonnull_found=sum(h for h, s in zip(hit, says) if s is not DataSays.ALL_NULL),
        confirmed=sum(s is DataSays.CONTAINED for s in says),
        confirmed_found=sum(h for h, s in zip(hit, says) if s is DataSays.CONTAINED),
        found=len(links), strict=sum(x.strict for x in links), allowed=sum(x.allowed for x in links),
        bar=len(at_bar), bar_strict=sum(x.strict for x in at_bar), bar_allowed=sum(x.allowed for x in at_bar),
        all_null=sum(bool(x.child_all_null) for x in links),
        all_null_bar=sum(bool(x.child_all_null) for x in at_bar),
        reversed=sum(x.reversed_label for x in links),
        bands=tuple(bands),
    )


def missed(labels: list[Label], links: list[ScoredLink]) -> list[Label]:
    return [label for label, h in zip(labels, found_labels(labels, links)) if not h]
