"""Value lookups taken back on a relink (discovery/lookup_reuse.py): a lookup no changed parent can
reach has the answer it had, and a relink through them equals a full run."""

import random

import numpy as np
import pytest

from dbt_schema_link.discovery import DiscoverySettings, discover
from dbt_schema_link.discovery.bands import Lookup
from dbt_schema_link.discovery.lookup_reuse import kept, layout_digest, lookup_key, reusable_answers
from dbt_schema_link.discovery.memo import Relink
from dbt_schema_link.discovery.values import ContainmentIndex
from tests.discovery.builders import Warehouse, minhash

K = 64
MAX_BUCKET = 4


def _signature(values) -> np.ndarray:
    return np.array(minhash(map(str, values), K), dtype=np.uint64)


def _index(parents):
    return ContainmentIndex(((i, sig, n) for i, (sig, n) in enumerate(parents)), k=K, threshold=0.7, num_part=4, m=4)


def _answers(index, lookups):
    return {key: [sorted(part) for part in index.query_partitions(look.signature, look.size, look.min_upper, MAX_BUCKET)]
            for key, look in lookups.items()}


@pytest.mark.parametrize("seed", range(6))
def test_a_lookup_not_found_stale_has_the_answer_a_new_index_gives(seed):
    """Soundness: parents change (values, sizes, one removed, one added); every lookup whose
    answer is taken back answers the same from an index built anew, buckets capped or not."""
    rng = random.Random(seed)
    values = [rng.sample(range(1, 400), rng.randint(5, 60)) for _ in range(40)]
    values += [list(range(1, 20)) for _ in range(6)]  # a crowded bucket: more than MAX_BUCKET alike
    before = [(_signature(v), len(v)) for v in values]
    after_values = [list(v) for v in values]
    for i in rng.sample(range(len(values)), 3):  # new values in place of old ones, size kept
        after_values[i] = after_values[i][:-2] + [1000 + i, 2000 + i]
    del after_values[5]
    after_values.append(list(range(1, 20)))  # one more of the crowded kind
    after = [(_signature(v), len(v)) for v in after_values]
    children = [rng.sample(v, max(1, len(v) // 2)) for v in values + after_values]
    lookups = {}
    for c in children:
        look = Lookup(_signature(c), len(c))
        lookups[lookup_key(look)] = look

    old, new = _index(before), _index(after)
    layout = layout_digest(old, True, 1.0, 8, MAX_BUCKET)
    names = [("p", str(i)) for i in range(len(values))]
    new_names = names[:5] + names[6:] + [("p", "added")]
    old_answers = _answers(old, lookups)
    previous = kept(layout, names, [s for s, _ in before], [old.indexed_size(i) for i in range(len(before))],
                    [float(n) for _, n in before],
                    {key: [i for part in parts for i in part] for key, parts in old_answers.items()})
    reused = reusable_answers(previous, layout_digest(new, True, 1.0, 8, MAX_BUCKET), new, new_names, [s for s, _ in after],
                              [new.indexed_size(i) for i in range(len(after))], [float(n) for _, n in after], lookups)
    new_answers = _answers(new, lookups)
    if old.ensemble_layout() != new.ensemble_layout():
        assert reused == {}  # the partitions moved: every lookup is asked again
        return
    assert reused, "some lookups stand"
    assert len(reused) < len(lookups), "some lookups are stale"
    for key, positions in reused.items():
        assert sorted(positions) == sorted(i for part in new_answers[key] for i in part)


def test_nothing_is_reused_across_another_layout():
    parents = [(_signature(range(n)), n) for n in (5, 50, 500)]
    index = _index(parents)
    look = Lookup(_signature(range(3)), 3)
    previous = kept(b"another layout", ["a", "b", "c"], [s for s, _ in parents], [5, 50, 500], [5.0, 50.0, 500.0],
                    {lookup_key(look): [0]})
    layout = layout_digest(index, True, 1.0, 8, None)
    assert reusable_answers(previous, layout, index, ["a", "b", "c"], [s for s, _ in parents], [5, 50, 500],
                            [5.0, 50.0, 500.0], {lookup_key(look): look}) == {}


def _many_keys(change: str | None = None) -> Warehouse:
    """130 keyed relations (more than the 100 parents where value lookups are capped) and facts
    whose columns hold their values under names that say nothing."""
    rng = random.Random(11)
    w = Warehouse()
    keys = []
    for t in range(130):
        ids = sorted(rng.sample(range(1, 50_000), rng.randint(30, 90)))
        if change == "parent_values" and t == 7:
            ids = ids[:-3] + [60_001, 60_002, 60_003]
        keys.append(ids)
        w.table(f"entity_{t}", {"pk": ("INTEGER", ids), "label": ("VARCHAR", [f"l{i}" for i in ids])})
    for f in range(20):
        n = 300
        frng = random.Random(100 + f)
        a = (f * 5 + (1 if change == "fact_values" and f == 3 else 0)) % 130  # now holding another key's values
        w.table(f"fact_{f}", {"fact_pk": ("INTEGER", list(range(n))),
                              "attr_a": ("INTEGER", [frng.choice(keys[a]) for _ in range(n)]),
                              "attr_b": ("INTEGER", [frng.choice(keys[(f * 7 + 3) % 130]) for _ in range(n)])})
    return w


@pytest.mark.parametrize("change", ["fact_values", "parent_values"])
def test_a_relink_taking_lookups_back_equals_a_full_run(change):
    settings = DiscoverySettings()
    first = Relink()
    discover(_many_keys().project(), _many_keys().profiles(), settings, relink=first)
    assert first.memo.lookups is not None and first.memo.lookups.answers
    changed = _many_keys(change)
    again = Relink(previous=first.memo)
    relinked = discover(changed.project(), changed.profiles(), settings, relink=again)
    full = discover(changed.project(), changed.profiles(), settings)
    assert relinked.to_json() == full.to_json()
    assert 0 < again.use.lookups_reused < len(again.memo.lookups.answers)
