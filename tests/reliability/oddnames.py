"""A dbt project whose relations and columns have hostile names: spaces, quotes, dots, mixed
case, reserved words, unicode, `%`, and names of exactly 63 bytes (PostgreSQL's limit)."""

from __future__ import annotations

import csv
import io
import json

#: 63 bytes each: ASCII, and 2-byte UTF-8 characters.
LONG_COL = "long_column_name_" + "x" * (63 - len("long_column_name_"))
LONG_UNI = "Ü" * 31 + "x"
LONG_REL = "Order Lines " + "L" * (63 - len("Order Lines "))
assert len(LONG_COL.encode()) == len(LONG_UNI.encode()) == len(LONG_REL.encode()) == 63

#: parent column -> how its values are spelled (a unique key each)
KEYS = {
    "Customer ID": lambda i: str(i),
    "select": lambda i: str(100 + i),
    "ünïcödé_キー": lambda i: f"ключ-{i:03d}",
    LONG_COL: lambda i: f"L{i:04d}x",
    LONG_UNI: lambda i: f"U{i:04d}ü",
    "MixedCase": lambda i: str(5000 + i),
    "dot.ted": lambda i: f"d.{i:03d}.d",
    "it's": lambda i: f"it's #{i:03d}",
    "per%cent": lambda i: f"{i:03d}%p",
}
#: child columns (same names: the links to find), plus its own key
FKS = list(KEYS)
PARENT_ROWS = 40
CHILD_ROWS = 120
#: a column created outside dbt (dbt cannot create it: it does not escape quotes in names)
QUOTED_COL = 'say "hi"'
PARENT_ALIAS = "Parent Tablé.v1"
RESERVED_ALIAS = "group"
RAW_TABLE = "raw odd"


def _csv(header: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def _seed_name(column: str) -> str:
    """dbt-postgres loads seeds with psycopg2 parameters: a `%` in a seed's column name breaks
    dbt's own INSERT, so that column is renamed by the models instead."""
    return column.replace("%", "_")


def _select(columns: list[str]) -> str:
    return ", ".join(
        f'"{_seed_name(c)}" as "{c}"' if _seed_name(c) != c else f'"{c}"' for c in columns
    )


def _unique_yaml(model: str, columns: list[str]) -> str:
    """Each of ``columns`` declared unique: the parent's alternate keys, which the child's columns
    of the same names reference (an attribute merely both have is no reference)."""
    entries = "".join(f"      - name: {json.dumps(c)}\n        quote: true\n        data_tests: [unique]\n"
                      for c in columns)
    return f"version: 2\nmodels:\n  - name: {model}\n    columns:\n{entries}"


def files() -> dict[str, str]:
    parent_rows = [[f(i) for f in KEYS.values()] + [f"name {i}"] for i in range(1, PARENT_ROWS + 1)]
    child_rows = [[str(n)] + [KEYS[c]((n % PARENT_ROWS) + 1) for c in FKS] for n in range(1, CHILD_ROWS + 1)]
    parent_cols, child_cols = list(KEYS) + ["name"], ["line id"] + FKS
    return {
        "seeds/parent_seed.csv": _csv([_seed_name(c) for c in parent_cols], parent_rows),
        "seeds/child_seed.csv": _csv([_seed_name(c) for c in child_cols], child_rows),
        "models/parent.sql": f"{{{{ config(alias={PARENT_ALIAS!r}, materialized='table') }}}}\n"
                             f"select {_select(parent_cols)} from {{{{ ref('parent_seed') }}}}\n",
        "models/child.sql": f"{{{{ config(alias={LONG_REL!r}, materialized='table') }}}}\n"
                            f"select {_select(child_cols)} from {{{{ ref('child_seed') }}}}\n",
        "models/reserved.sql": f"{{{{ config(alias={RESERVED_ALIAS!r}, materialized='view') }}}}\n"
                               "select \"line id\", \"Customer ID\" from {{ ref('child') }}\n",
        "models/parent.yml": _unique_yaml("parent", list(KEYS)),
        "models/sources.yml": "version: 2\nsources:\n  - name: raw\n    schema: \"{{ target.schema }}\"\n"
                              f"    tables:\n      - name: odd_raw\n        identifier: {RAW_TABLE}\n",
    }


PROJECT_EXTRA = "seeds:\n  oddnames:\n    +quote_columns: true\n"


def raw_table_sql(schema_sql: str) -> list[str]:
    """Create the source table outside dbt (``schema_sql`` is the quoted schema)."""
    col = QUOTED_COL.replace('"', '""')
    values = ", ".join(f"({i}, {(i % PARENT_ROWS) + 1}, 'v{i}')" for i in range(1, 31))
    return [
        f'create table {schema_sql}."{RAW_TABLE}" (id integer, "{col}" integer, "Ünïcode Note" varchar(20))',
        f'insert into {schema_sql}."{RAW_TABLE}" values {values}',
    ]
