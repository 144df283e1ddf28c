"""Value index: which columns hold a literal that a question mentions.

Three lookups, cheapest first:
- exact: the folded value (lower case, accents stripped) in a dict, for every word n-gram of the
  question;
- fuzzy: quoted strings and capitalised spans against the value vocabulary with rapidfuzz —
  a full scan while the vocabulary is small, otherwise only the candidates that a MinHash/LSH
  index on character 3-grams proposes (so large value sets stay sub-linear);
- every hit names the columns holding the value and the literal that matched.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from dbt_schema_link.linker.text import STOP_WORDS, capitalised_spans, fold, literals

#: Above this many distinct values fuzzy matching goes through the LSH index, not a full scan.
FUZZY_SCAN_LIMIT = 20_000
FUZZY_CUTOFF = 80.0
LSH_PERMUTATIONS = 32
LSH_ROWS = 2  # rows per band → 16 bands; similarity threshold ≈ (1/16)^(1/2) = 0.25 before verification
_PRIME = np.uint64((1 << 31) - 1)


@dataclass(frozen=True)
class ValueHit:
    column: int
    strength: float  # 1.0 exact; fuzzy ratio / 100 otherwise; numbers count less
    value: str  # the stored value
    literal: str  # what the question said


def _shingle_hashes(value: str) -> list[int]:
    padded = f" {value} "
    grams = {padded[i:i + 3] for i in range(max(1, len(padded) - 2))}
    return [zlib.crc32(g.encode("utf-8")) for g in grams]


def _permutations() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20240611)
    a = rng.integers(1, (1 << 31) - 1, size=LSH_PERMUTATIONS, dtype=np.uint64)
    b = rng.integers(0, (1 << 31) - 1, size=LSH_PERMUTATIONS, dtype=np.uint64)
    return a, b


def minhash_signatures(values: Sequence[str]) -> np.ndarray:
    """(n, LSH_PERMUTATIONS) uint64 MinHash signatures over character 3-grams, vectorised."""
    n = len(values)
    if n == 0:
        return np.zeros((0, LSH_PERMUTATIONS), dtype=np.uint64)
    hashes: list[int] = []
    owners: list[int] = []
    for i, v in enumerate(values):
        hs = _shingle_hashes(v)
        hashes.extend(hs)
        owners.extend([i] * len(hs))
    h = np.asarray(hashes, dtype=np.uint64)
    starts = np.searchsorted(np.asarray(owners, dtype=np.int64), np.arange(n))
    a, b = _permutations()
    out = np.empty((n, LSH_PERMUTATIONS), dtype=np.uint64)
    for k in range(LSH_PERMUTATIONS):
        hv = (a[k] * h + b[k]) % _PRIME
        out[:, k] = np.minimum.reduceat(hv, starts)
    return out


def band_keys(signatures: np.ndarray) -> np.ndarray:
    """(n, bands) uint64 keys: the rows of each band packed into one number."""
    bands = LSH_PERMUTATIONS // LSH_ROWS
    sig = signatures.reshape(len(signatures), bands, LSH_ROWS)
    key = np.zeros((len(signatures), bands), dtype=np.uint64)
    for r in range(LSH_ROWS):
        key = key * np.uint64(1 << 31) + sig[:, :, r]
    return key


class ValueIndex:
    def __init__(self, values: list[str], val_ptr: np.ndarray, val_cols: np.ndarray,
                 lsh_keys: np.ndarray | None = None, lsh_ids: np.ndarray | None = None):
        self.values = values  # folded, distinct
        self.val_ptr = val_ptr  # int64, len(values) + 1
        self.val_cols = val_cols  # int32 column ids
        self.lookup = {v: i for i, v in enumerate(values)}
        self.lsh_keys = lsh_keys  # (bands, n) sorted uint64 keys per band
        self.lsh_ids = lsh_ids  # (bands, n) value ids in the same order
        self._display: list[str] | None = None

    @classmethod
    def build(cls, column_values: Sequence[Sequence[str]]) -> "ValueIndex":
        postings: dict[str, list[int]] = {}
        for col, vals in enumerate(column_values):
            for v in {fold(v) for v in vals}:
                if len(v) >= 2 and v not in STOP_WORDS:
                    postings.setdefault(v, []).append(col)
        values = sorted(postings)
        ptr = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum([len(postings[v]) for v in values], out=ptr[1:]) if values else None
        cols = np.asarray([c for v in values for c in postings[v]], dtype=np.int32)
        keys = ids = None
        if len(values) > FUZZY_SCAN_LIMIT:
            k = band_keys(minhash_signatures(values)).T  # (bands, n)
            order = np.argsort(k, axis=1, kind="stable")
            keys = np.take_along_axis(k, order, axis=1)
            ids = order.astype(np.int32)
        return cls(values, ptr, cols, keys, ids)

    def __len__(self) -> int:
        return len(self.values)

    def columns_of(self, value_id: int) -> np.ndarray:
        return self.val_cols[self.val_ptr[value_id]:self.val_ptr[value_id + 1]]

    def _fuzzy_candidates(self, literal: str) -> list[int]:
        if self.lsh_keys is None:
            return []
        q = band_keys(minhash_signatures([literal]))[0]
        found: set[int] = set()
        for band, key in enumerate(q):
            row = self.lsh_keys[band]
            lo, hi = np.searchsorted(row, key, "left"), np.searchsorted(row, key, "right")
            if hi - lo > 2000:  # a band shared by thousands of values carries no signal
                continue
            found.update(int(i) for i in self.lsh_ids[band][lo:hi])
        return sorted(found)

    def match(self, question: str, fuzzy: bool = True) -> list[ValueHit]:
        """Columns whose values the question mentions; at most one hit per column (the best)."""
        if not self.values:
            return []
        best: dict[int, ValueHit] = {}

        def add(value_id: int, strength: float, literal: str) -> None:
            for col in self.columns_of(value_id):
                col = int(col)
                old = best.get(col)
                if old is None or strength > old.strength:
                    best[col] = ValueHit(col, strength, self.values[value_id], literal)

        for lit in literals(question):
            key = fold(lit)
            vid = self.lookup.get(key)
            if vid is None:
                continue
            numeric = key.replace(".", "", 1).lstrip("-").isdigit()
            words = len(key.split())
            strength = 0.35 if numeric else min(1.0, 0.75 + 0.1 * words + 0.02 * len(key))
            add(vid, strength, lit)
        if fuzzy:
            from rapidfuzz import fuzz, process

            for span in capitalised_spans(question):
                key = fold(span)
                if len(key) < 4 or key in self.lookup:
                    continue
                if self.lsh_keys is None:
                    matches = process.extract(key, self.values, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=5)
                    pairs = [(m[2], m[1]) for m in matches]
                else:
                    cands = self._fuzzy_candidates(key)
                    pairs = [(i, fuzz.ratio(key, self.values[i])) for i in cands]
                    pairs = sorted((p for p in pairs if p[1] >= FUZZY_CUTOFF), key=lambda p: -p[1])[:5]
                for vid, ratio in pairs:
                    add(int(vid), 0.8 * ratio / 100.0, span)
        return sorted(best.values(), key=lambda h: (-h.strength, h.column))

    # persistence -----------------------------------------------------------------------------
    def arrays(self) -> dict[str, np.ndarray]:
        out = {"val_ptr": self.val_ptr, "val_cols": self.val_cols}
        if self.lsh_keys is not None:
            out["lsh_keys"], out["lsh_ids"] = self.lsh_keys, self.lsh_ids
        return out

    @classmethod
    def from_arrays(cls, values: list[str], arrays) -> "ValueIndex":
        keys = arrays["lsh_keys"] if "lsh_keys" in arrays else None
        ids = arrays["lsh_ids"] if "lsh_ids" in arrays else None
        return cls(values, arrays["val_ptr"], arrays["val_cols"], keys, ids)
