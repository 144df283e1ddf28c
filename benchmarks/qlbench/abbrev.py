"""The abbreviation variant of a benchmark: every column renamed the way warehouse teams shorten
names (`customer_name` → `cust_nm`, `order_date` → `ord_dt`, `quantity` → `qty`), the original
name moved into the column's description, so grounding has to come from descriptions.

The rules are generic (a table of common warehouse abbreviations, then a consonant skeleton of
long words); they never look at questions. Table names are kept. Gold SQL keeps naming the
source columns; the harness maps gold columns through `TableSpec.source_names`.

`schema_only` drops the rows of any benchmark (the tables are created empty), as in warehouses
documented before they are loaded: no values to ground on, no containment to verify joins, so
descriptions are the only evidence.
"""

from __future__ import annotations

import copy
import re

from dbt_schema_link.evaluation.harness import Benchmark
from dbt_schema_link.linker.text import identifier_words

#: Common warehouse abbreviations (data-dictionary style), word → short form.
ABBREVIATIONS = {
    "account": "acct", "address": "addr", "amount": "amt", "average": "avg", "balance": "bal",
    "birth": "brth", "building": "bldg", "category": "cat", "code": "cd", "count": "cnt", "country": "cntry",
    "customer": "cust", "date": "dt", "day": "dy", "department": "dept", "description": "desc",
    "document": "doc", "employee": "emp", "first": "fst", "from": "frm", "government": "govt",
    "height": "hgt", "identifier": "id", "last": "lst", "location": "loc", "manager": "mgr",
    "maximum": "max", "middle": "mid", "minimum": "min", "month": "mth", "name": "nm", "number": "num",
    "order": "ord", "percent": "pct", "percentage": "pct", "population": "pop", "position": "pos",
    "price": "prc", "product": "prod", "quantity": "qty", "rank": "rnk", "rating": "rtg",
    "reference": "ref", "region": "rgn", "sequence": "seq", "service": "svc", "status": "stat",
    "student": "stu", "template": "tmpl", "time": "tm", "total": "tot", "transaction": "txn",
    "type": "typ", "value": "val", "weight": "wgt", "year": "yr",
}
_VOWELS = set("aeiou")


def abbreviate_word(word: str) -> str:
    w = word.lower()
    if w in ABBREVIATIONS:
        return ABBREVIATIONS[w]
    if len(w) <= 4 or not w.isalpha():
        return w
    # consonant skeleton: first letter, then the consonants, at most four letters
    skeleton = w[0] + "".join(ch for ch in w[1:] if ch not in _VOWELS)
    out = "".join(ch for i, ch in enumerate(skeleton) if i == 0 or ch != skeleton[i - 1])
    return out[:4]


def abbreviate(column: str) -> str:
    words = re.findall(r"[a-z0-9]+", identifier_words(column).lower())
    return "_".join(abbreviate_word(w) for w in words) or column.lower()


def abbreviation_variant(bench: Benchmark) -> Benchmark:
    """The same databases and questions with abbreviated column names."""
    specs = copy.deepcopy(bench.specs)
    for spec in specs:
        new_names: dict[tuple[str, str], str] = {}
        for table in spec.tables:
            used: set[str] = set()
            columns = []
            descriptions: dict[str, str] = {}
            for col, nl, typ in table.columns:
                short = abbreviate(col)
                base, n = short, 2
                while short in used:
                    short, n = f"{base}{n}", n + 1
                used.add(short)
                new_names[(table.name.lower(), col.lower())] = short
                original = nl or identifier_words(col)
                extra = table.descriptions.get(col.lower(), "")
                descriptions[short] = original if not extra or extra.lower() == original.lower() \
                    else f"{original}: {extra}"
                table.source_names[short] = col
                columns.append((short, nl, typ))
            table.columns = columns
            table.descriptions = descriptions
            table.primary_key = [new_names[(table.name.lower(), c.lower())] for c in table.primary_key]
        spec.foreign_keys = [(ct, new_names[(ct.lower(), cc.lower())], pt, new_names[(pt.lower(), pc.lower())])
                             for ct, cc, pt, pc in spec.foreign_keys]
    return Benchmark(f"{bench.name}_abbrev", specs, bench.questions, bench.notes + ["columns abbreviated"])


def schema_only(bench: Benchmark) -> Benchmark:
    """The same databases and questions with empty tables (no rows copied in)."""
    specs = copy.deepcopy(bench.specs)
    for spec in specs:
        spec.sqlite_path = None
    return Benchmark(f"{bench.name}_schemaonly", specs, bench.questions, bench.notes + ["schema only (no rows)"])
