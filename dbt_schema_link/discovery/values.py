"""Value evidence from MinHash signatures: one-way containment estimates and a MinHash LSH
Ensemble index that finds, for a child column, the parent columns that probably contain its values
(so links with no name signal are found without comparing every pair of columns).

Signatures are the K per-seed minima of a 64-bit warehouse hash of each distinct value (see
``docs/envelope.md``). They are only comparable within one profiling run.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from datasketch import LeanMinHash, MinHashLSHEnsemble
from datasketch.lshensemble_partition import optimal_partitions

from dbt_schema_link.discovery.policy import VALUES


@dataclass(frozen=True, slots=True)
class ContainmentEstimate:
    """Estimated containment of the child's distinct values in the parent's."""

    containment: float  # |A ∩ B| / |A|, in [0, 1]
    jaccard: float
    jaccard_containment: float  # J·(|A|+|B|)/((1+J)·|A|): the textbook estimate, for comparison
    reliability: float  # 0..1: how much the signature can tell (low when |A| << |B|)
    violations: int  # hash functions whose minimum over A is below B's: a value of A not in B

    def describe(self, child_n: int, parent_n: int) -> str:
        if self.reliability < VALUES.estimate_reliability_min:
            # too few minima land in the child to tell: never claim what J and the J-based figure deny
            return (
                f"containment untold by MinHash (J={self.jaccard:.3f}, J-based {self.jaccard_containment:.2f}, "
                f"|child|={child_n}, |parent|={parent_n}, {self.violations} witnesses of values outside the "
                f"parent, reliability {self.reliability:.2f}): only the exact check can say"
            )
        return (
            f"containment≈{self.containment:.2f} from MinHash (J={self.jaccard:.3f}, "
            f"J-based {self.jaccard_containment:.2f}, |child|={child_n}, |parent|={parent_n}, "
            f"{self.violations} witnesses of values outside the parent, reliability {self.reliability:.2f})"
        )


def estimate_containment(a: np.ndarray, a_n: int, b: np.ndarray, b_n: int,
                         a_borrowed: np.ndarray | None = None,
                         b_borrowed: np.ndarray | None = None) -> ContainmentEstimate:
    """One-way containment C(A ⊆ B) from two signatures over the same K hash functions.

    With ``J`` the fraction of equal minima, the union size is ``(|A| + |B|) / (1 + J)`` and
    ``C = J·(|A| + |B|) / ((1 + J)·|A|)``. When A is much smaller than B few minima land in A and
    that estimate is noisy, so we also count *violations* (minima of A strictly below B's: each one
    is a value of A missing from B, which a contained A never shows) and estimate
    ``|A \\ B| ≈ v/K · |A ∪ B|``, so ``C ≈ 1 - v/K · |A ∪ B| / |A|`` (the same quantity in
    expectation, but exactly 1.0 when A ⊆ B, whatever the sizes). ``reliability`` says how many
    minima the estimate rests on: ~0 when |A| << |B| (then only exact verification can tell).

    One-permutation signatures (``*_borrowed``: positions densification filled) keep that order
    only in buckets A holds itself, so violations are counted there (a bucket A holds and B does
    not is one too), out of the buckets either set holds (those where A ∪ B has a minimum).
    """
    k = len(a)
    if k == 0 or len(b) != k or a_n <= 0 or b_n <= 0:
        return ContainmentEstimate(0.0, 0.0, 0.0, 0.0, 0)
    eq = int(np.count_nonzero(a == b))
    below = a < b
    slots = k
    if a_borrowed is not None or b_borrowed is not None:
        a_own = ~a_borrowed if a_borrowed is not None else np.ones(k, dtype=bool)
        b_own = ~b_borrowed if b_borrowed is not None else np.ones(k, dtype=bool)
        # a bucket A holds and B does not is as sure a witness as a smaller minimum
        below = a_own & (below | ~b_own)
        slots = int(np.count_nonzero(a_own | b_own))
    lt = int(np.count_nonzero(below))
    j = eq / k
    union = (a_n + b_n) / (1.0 + j)
    c = max(0.0, min(1.0, 1.0 - (lt / max(slots, 1)) * union / a_n))
    c_jaccard = max(0.0, min(1.0, j * (a_n + b_n) / ((1.0 + j) * a_n)))
    # expected number of minima that fall in A (if A were disjoint from B, ~this many violations)
    info = k * a_n / max(union, 1.0)
    reliability = 1.0 - math.exp(-info / 3.0)
    return ContainmentEstimate(containment=c, jaccard=j, jaccard_containment=c_jaccard,
                               reliability=reliability, violations=lt)


#: Above this many distinct parent sizes the LSH Ensemble is built on sizes rounded up to a 5%
#: grid (``coarse_size``); below it (every small project) on the exact sizes.
MAX_SIZE_LEVELS = 300
SIZE_GRID = 1.05


def coarse_size(size: int) -> int:
    """The smallest value of the grid ``ceil(1.05^k)`` that is at least ``size``."""
    if size <= 1:
        return 1
    k = math.ceil(math.log(size) / math.log(SIZE_GRID) - 1e-9)
    value = math.ceil(SIZE_GRID ** k)
    while value < size:
        k += 1
        value = math.ceil(SIZE_GRID ** k)
    return value


class ContainmentIndex:
    """MinHash LSH Ensemble over the potential parent columns (partitioned by set size).

    ``query(signature, size)`` returns keys of indexed parents whose containment of the query set
    is probably at least ``threshold``. Build once, query per child: near-linear overall.
    """

    def __init__(self, entries: Iterable[tuple[Hashable, np.ndarray, int]], k: int,
                 threshold: float, num_part: int, m: int, recall_weight: float = 0.8,
                 bands: bool = True) -> None:
        """``bands=False``: partition the parents and fix the band parameters only, without the
        band tables (``has_bands``): for lookups run elsewhere (:mod:`.bands`), which need the
        layout and not the tables (tens of bytes per parent and band). Where this datasketch
        does not expose the layout, the tables are built anyway."""
        self._k = k
        items = [(key, sig, max(1, int(size))) for key, sig, size in entries if sig is not None and len(sig) == k]
        if len({size for _, _, size in items}) > MAX_SIZE_LEVELS:
            # datasketch's optimal partitioning is quadratic in the number of distinct set sizes
            # (minutes at 5,000 keys); sizes rounded up onto a 5% grid partition the same way
            items = [(key, sig, coarse_size(size)) for key, sig, size in items]
        self._indexed_sizes = {key: size for key, _, size in items}
        self._filled: list[tuple[int, int]] | None = None  # (upper, partition) of non-empty partitions
        self._empty = not items
        self._banded = True
        self._ensemble: MinHashLSHEnsemble | None = None
        if self._empty:
            return
        fn = round(recall_weight, 2)
        self._ensemble = MinHashLSHEnsemble(
            threshold=threshold, num_perm=k, num_part=max(1, min(num_part, len(items))),
            m=max(2, min(m, k)), weights=(round(1.0 - fn, 2), fn),
        )
        if not bands and self.has_layout():
            self._banded = False  # datasketch's own partitioning, as ``index`` computes it
            sizes, counts = np.array(sorted(Counter(size for _, _, size in items).most_common())).T
            for i, (lower, upper) in enumerate(optimal_partitions(sizes, counts, len(self._ensemble.indexes))):
                self._ensemble.lowers[i], self._ensemble.uppers[i] = lower, upper
            return
        patched = [lsh for part in self._ensemble.indexes for lsh in part.values() if _fast_insert_ok(lsh)]
        for lsh in patched:  # an instance attribute shadows MinHashLSH.insert while indexing
            lsh.insert = _fast_insert(lsh)
        try:
            self._ensemble.index([(key, _minhash(sig), size) for key, sig, size in items])
        finally:
            for lsh in patched:
                del lsh.insert

    def __len__(self) -> int:
        return 0 if self._empty else 1

    @property
    def has_bands(self) -> bool:
        """Whether lookups can run here (``query``, ``query_partitions``): the band tables exist."""
        return self._banded

    @property
    def k(self) -> int:
        return self._k

    def query(self, signature: np.ndarray, size: int) -> Iterator[Hashable]:
        self._need_bands()
        if self._ensemble is None or signature is None or len(signature) != self._k:
            return iter(())
        return self._ensemble.query(_minhash(signature), max(1, int(size)))

    def query_partitions(self, signature: np.ndarray, size: int, min_upper: float = 0,
                         max_bucket: int | None = None) -> Iterator[list[Hashable]]:
        """The keys ``query`` returns, one list per size partition of the ensemble (sorted),
        smallest indexed sets first, so a caller that only wants the tightest containers can stop
        early (keys of dense integer ranges are contained in one another: without stopping, every
        such child would meet every larger key, which grows with the square of the warehouse).
        Partitions whose largest indexed set is below ``min_upper`` are not read, nor band
        buckets of more than ``max_bucket`` keys (``None``: all)."""
        self._need_bands()
        if self._ensemble is None or signature is None or len(signature) != self._k:
            return
        ensemble, size = self._ensemble, max(1, int(size))
        minhash = _minhash(signature)
        if not self.has_layout():  # another datasketch: one list
            yield sorted(ensemble.query(minhash, size))
            return
        swapped = np.asarray(signature, dtype=np.uint64).byteswap().tobytes()
        bands: dict[int, list[bytes]] = {}  # band keys by rows per band: partitions share them
        for part, b, r in self.plan(size, min_upper):
            lsh = ensemble.indexes[part][r]
            keys = bands.get(r)
            if keys is None:
                keys = bands[r] = [swapped[start * 8:end * 8] for start, end in lsh.hashranges]
            yield sorted(_query_bands(lsh, minhash, keys, b, max_bucket))

    def _need_bands(self) -> None:
        if not self._banded:
            raise RuntimeError("this ContainmentIndex was built without band tables (bands=False): "
                               "its lookups run elsewhere")

    # -- the layout, for lookups run elsewhere (``bands``: the same lookups as a relational join)

    def has_layout(self) -> bool:
        """Whether this datasketch exposes the partitions and band parameters ``plan`` reads."""
        ensemble = self._ensemble
        return (ensemble is not None and hasattr(ensemble, "indexes") and hasattr(ensemble, "uppers")
                and hasattr(ensemble, "_get_optimal_param"))

    def plan(self, size: int, min_upper: float = 0) -> list[tuple[int, int, int]]:
        """(partition, bands read, rows per band) of a lookup of a set of ``size`` values: per
        partition, the ensemble's optimal band parameters for its largest indexed set, skipping
        empty partitions and those whose largest indexed set is below ``min_upper``."""
        ensemble, size = self._ensemble, max(1, int(size))
        out = []
        for part, upper in enumerate(ensemble.uppers):
            if upper is None or upper < min_upper:
                continue
            b, r = ensemble._get_optimal_param(upper, size)
            out.append((part, int(b), int(r)))
        return out

    def ensemble_layout(self) -> tuple:
        """The partitions (lower and upper bounds) and band widths lookups read through."""
        ensemble = self._ensemble
        if ensemble is None:
            return ()
        return tuple(ensemble.lowers), tuple(ensemble.uppers), tuple(self.rows_per_band())

    def indexed_size(self, key: Hashable) -> int:
        """The size ``key`` was indexed under (its own, or rounded onto the grid)."""
        return self._indexed_sizes[key]

    def rows_per_band(self) -> list[int]:
        """Every band width the ensemble indexes (a parent is indexed under each)."""
        return sorted(int(r) for r in self._ensemble.indexes[0])

    def partitions(self) -> dict[Hashable, int]:
        """Each indexed key's size partition, as the ensemble assigned it."""
        of = self.partition_of
        return {key: of(size) for key, size in self._indexed_sizes.items()}

    def partition_of(self, size: int) -> int | None:
        """The partition a set indexed at ``size`` lies in: the first whose largest set is at
        least that size (``None``: larger than every partition's)."""
        filled = self._filled
        if filled is None:
            filled = self._filled = [(u, part) for part, u in enumerate(self._ensemble.uppers) if u is not None]
        at = bisect.bisect_left(filled, size, key=lambda item: item[0])
        return filled[at][1] if at < len(filled) else None


def _fast_insert_ok(lsh) -> bool:
    """Whether this datasketch's in-memory LSH has the layout `_fast_insert` writes to (checked,
    not assumed: any other layout or version keeps datasketch's own insert)."""
    try:
        from datasketch.lsh import _check_scheme_consistency  # noqa: F401
    except ImportError:
        return False
    return (getattr(lsh, "hashfunc", None) is None and not getattr(lsh, "prepickle", False)
            and getattr(lsh, "_H", None) == getattr(lsh, "_byteswap", object()) and hasattr(lsh.keys, "_dict")
            and all(hasattr(t, "_dict") for t in lsh.hashtables))


def _fast_insert(lsh):
    """``MinHashLSH.insert`` for in-memory storage without its per-band overhead: the band keys
    are slices of the signature byte-swapped once, stored exactly as ``_insert`` stores them
    (``keys[key]`` extended by the band keys, each band table's set gaining the key). The index
    is built once per ``discover()``; its cost is per parent and band, thousands of parents at
    warehouse scale."""
    from datasketch.lsh import _check_scheme_consistency

    ranges = [(start * 8, end * 8) for start, end in lsh.hashranges]
    keys, tables = lsh.keys._dict, [t._dict for t in lsh.hashtables]

    def insert(key, minhash, check_duplication: bool = True) -> None:
        if len(minhash) != lsh.h:
            raise ValueError("Expecting minhash with length %d, got %d" % (lsh.h, len(minhash)))
        lsh._minhash_scheme = _check_scheme_consistency(getattr(lsh, "_minhash_scheme", None), minhash)
        if check_duplication and key in keys:
            raise ValueError("The given key already exists")
        swapped = np.asarray(minhash.hashvalues).byteswap().tobytes()
        bands = [swapped[a:b] for a, b in ranges]
        keys[key].extend(bands)
        for band, table in zip(bands, tables):
            table[band].add(key)

    return insert


def _query_bands(lsh, minhash: LeanMinHash, band_keys: list[bytes], b: int, max_bucket: int | None = None) -> set:
    """``MinHashLSH._query_b`` without its per-band overhead: the band keys are slices of the
    signature byte-swapped once (the bytes ``_query_b`` builds band by band, ``lsh.hashranges``
    of it); the same lookups, in the same order, so the same set, less the buckets holding more
    than ``max_bucket`` keys (``DiscoverySettings.lsh_max_bucket``). Falls back to ``_query_b``
    (every bucket) for other storage layouts."""
    tables = lsh.hashtables[:b]
    if (getattr(lsh, "hashfunc", None) is not None or getattr(lsh, "prepickle", False)
            or lsh._H != lsh._byteswap or not (tables and hasattr(tables[0], "_dict"))):
        return lsh._query_b(minhash, b)
    candidates: set = set()
    for key, table in zip(band_keys[:b], tables):
        bucket = table._dict.get(key)
        if bucket and (max_bucket is None or len(bucket) <= max_bucket):
            candidates.update(bucket)
    return candidates


#: Pairs estimated per numpy batch: large enough to amortize the array work, small enough that
#: the stacked signatures (rows x K x 8 bytes, twice) stay a few tens of MiB.
ESTIMATE_BATCH = 8192


def estimate_containments(a: np.ndarray, a_n: np.ndarray, b: np.ndarray, b_n: np.ndarray,
                          a_own: np.ndarray, b_own: np.ndarray) -> list[ContainmentEstimate]:
    """``estimate_containment`` for many pairs at once: row i of ``a``/``b`` (n x K signatures)
    with sizes ``a_n[i]``/``b_n[i]`` and ``*_own`` the positions each set holds itself (all
    True for a k-permutation signature). The same arithmetic in the same order, so the same
    numbers as the one-pair function; the counting runs in numpy, which is most of the cost."""
    rows, k = a.shape
    if rows == 0:
        return []
    eq = np.count_nonzero(a == b, axis=1)
    lt = np.count_nonzero(a_own & ((a < b) | ~b_own), axis=1)
    slots = np.count_nonzero(a_own | b_own, axis=1)
    an, bn = np.asarray(a_n, dtype=np.int64), np.asarray(b_n, dtype=np.int64)
    valid = (an > 0) & (bn > 0) if k else np.zeros(rows, dtype=bool)
    # the one-pair arithmetic over whole arrays, operation for operation (float64 both ways);
    # rows without values divide by zero here and are replaced below
    with np.errstate(divide="ignore", invalid="ignore"):
        j = eq / k if k else np.zeros(rows)
        union = (an + bn) / (1.0 + j)
        c = np.clip(1.0 - (lt / np.maximum(slots, 1)) * union / an, 0.0, 1.0)
        c_jaccard = np.clip(j * (an + bn) / ((1.0 + j) * an), 0.0, 1.0)
        info = k * an / np.maximum(union, 1.0)
    empty = ContainmentEstimate(0.0, 0.0, 0.0, 0.0, 0)
    exp = math.exp  # math.exp, not np.exp: the same reliability to the last bit as the one-pair function
    return [ContainmentEstimate(containment=ci, jaccard=ji, jaccard_containment=cji,
                                reliability=1.0 - exp(-ii / 3.0), violations=vi) if ok else empty
            for ok, ci, ji, cji, ii, vi in zip(valid.tolist(), c.tolist(), j.tolist(), c_jaccard.tolist(),
                                               info.tolist(), lt.tolist())]


def _minhash(signature: np.ndarray) -> LeanMinHash:
    # Warehouse hashes are 64-bit: datasketch 2.x needs the affine64 scheme for such values
    # (``MinHash(num_perm=K, hashvalues=..., scheme="affine64")`` would do the same, but also
    # build K permutations that are never used: the values are the warehouse's minima as they are).
    return LeanMinHash(seed=1, hashvalues=signature, scheme="affine64")


#: The most surprise reported (decimal orders): beyond it every pair is equally implausible.
_SURPRISE_CAP = 1000.0
#: Value lengths past 10**5 characters all mean "a space no parent fills" (and must not overflow).
_LONGEST = 100_000


def range_density_surprise(child_n: int, parent_n: int, parent_min: float, parent_max: float,
                           child_min_len: int | None, child_max_len: int | None) -> float:
    """How improbable (in decimal orders of magnitude) it is that ``child_n`` distinct integers of
    the child's lengths all fall on the parent's keys by chance, from the parent's measured range:
    each must land inside that range — under a scale-free (log-uniform) draw over the numbers of
    the child's lengths, as counters and sequences start at 1, so ``1..15`` holds most small
    numbers while ``2001..2003`` holds almost no four-digit one — and there on a key (the range's
    density: a dense key 1..N holds every number of its range). 0 when nothing can be said."""
    span = parent_max - parent_min + 1.0
    if child_n <= 0 or parent_n <= 0 or not math.isfinite(span) or span <= 0 or not child_min_len or not child_max_len:
        return 0.0
    lo, hi = min(max(1, child_min_len), _LONGEST), min(max(child_min_len, child_max_len), _LONGEST)
    ln10 = math.log(10.0)
    space_low, space_high = (lo - 1) * ln10, hi * ln10  # ln of the smallest and past the largest number
    low = max(math.log(max(parent_min, 1.0)), space_low)
    high = min(math.log(max(parent_max + 1.0, 1.0)), space_high)
    if high <= low or space_high <= space_low:
        return 0.0
    in_range = (high - low) / (space_high - space_low)
    on_key = key_density(parent_n, parent_min, parent_max)
    return min(_SURPRISE_CAP, child_n * -(math.log10(in_range) + math.log10(on_key)))


def _integral(text: str) -> int | None:
    """The absolute value of an integral number written as text (``'5'``, ``'10.0'``, ``'-15'``);
    ``None`` for anything else (inf and nan included)."""
    try:
        number = float(text)
    except ValueError:
        return None
    return int(abs(number)) if number.is_integer() else None


def common_step(values: Iterable[str]) -> int:
    """The greatest common divisor of integral numbers written as text: 1 as soon as it is 1 (most
    columns, after a few values); 0 when a value is no integral number, or every value is 0, or
    none is given."""
    step = 0
    for text in values:
        number = _integral(text)
        if number is None:
            return 0
        step = math.gcd(step, number)
        if step == 1:
            return 1
    return step


def count_on_step(values: Iterable[str], step: int) -> int | None:
    """How many of the integral numbers written as text are multiples of ``step``; ``None`` when
    a value is no integral number."""
    numbers = [_integral(text) for text in values]
    return None if None in numbers else sum(1 for n in numbers if n % step == 0)


def key_density(parent_n: float, parent_min: float, parent_max: float) -> float:
    """The share of the numbers of the parent's range that are its keys (1.0: a dense key 1..N)."""
    span = parent_max - parent_min + 1.0
    return min(1.0, parent_n / span) if span > 0 else 1.0


def step_surprise(child_n: int, step: int, parent_n: int, parent_min: float, parent_max: float,
                  parent_on_step: int | None = None) -> float:
    """How improbable (in decimal orders of magnitude) it is that ``child_n`` distinct keys drawn
    at random from the parent's ``parent_n`` would all be multiples of ``step``: the chance
    ``C(M, n) / C(N, n)``, ``M`` the parent's keys on the step — counted (``parent_on_step``) when
    its values are all known, else at most the multiples of ``step`` its range holds. Scores of
    5, 10, .., 100 are no sample of ids 1..167; ids 10, 20, .. of a parent keyed in tens are. 0
    when nothing can be said."""
    if step < 2 or child_n <= 0 or parent_n <= 0 or not (math.isfinite(parent_min) and math.isfinite(parent_max)):
        return 0.0
    on_step = parent_on_step
    if on_step is None:
        on_step = math.floor(parent_max / step) - math.ceil(parent_min / step) + 1
    on_step = max(0, min(parent_n, on_step))
    if on_step >= parent_n:
        return 0.0
    if child_n > on_step:
        return _SURPRISE_CAP
    return min(_SURPRISE_CAP, log10_choose(parent_n, child_n) - log10_choose(on_step, child_n))


def log10_choose(n: int, k: int) -> float:
    """``log10 C(n, k)``, the ways to pick ``k`` of ``n`` (``0 <= k <= n``)."""
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(10.0)


def value_space_surprise(child_n: int, child_min_len: int | None, child_max_len: int | None,
                         parent_n: int, numeric: bool) -> float:
    """How improbable (in decimal orders of magnitude) it is that ``child_n`` distinct values,
    drawn at random from the space of values of the child's lengths, all fall among ``parent_n``
    parent values — assuming the parent packs as many of its values into that space as it can.

    Few values inside a dense key range (ids 1..N) give ~0 (no surprise: any small number is
    "contained"); values among sparse keys (4-digit ids, 3-letter codes) give a large number.
    """
    if child_n <= 0 or parent_n <= 0 or not child_min_len or not child_max_len:
        return 0.0
    lo, hi = min(max(1, child_min_len), _LONGEST), min(max(child_min_len, child_max_len), _LONGEST)
    # In log10 space: 10 ** hi overflows a float past 308 digits (long numeric strings are real).
    if numeric:
        # 10**hi - 10**(lo-1) = 10**hi * (1 - 10**(lo-1-hi)), and lo - 1 < hi whenever lo > 1
        log_space = hi + math.log10(1.0 - 10.0 ** (lo - 1 - hi)) if lo > 1 else float(hi)
    else:
        space = sum(26.0 ** n for n in range(lo, min(hi, 12) + 1))
        log_space = math.log10(space) if space > 1.0 else 0.0
    log_density = math.log10(parent_n) - max(log_space, 0.0)
    if log_density >= 0.0:
        return 0.0
    # child_n * -log_density, capped; compared before multiplying so a huge count never overflows
    if child_n >= _SURPRISE_CAP / -log_density:
        return _SURPRISE_CAP
    return child_n * -log_density
