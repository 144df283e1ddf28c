"""Turn a model's code into plain SQL for parsing: the compiled SQL when dbt compiled it,
otherwise the raw SQL rendered with sqlfluff's Jinja templater and its dbt builtins (``ref('x')``
renders as ``x``, ``source('s', 't')`` as ``s_t``, unknown macros as nothing), and as a last resort a
regular-expression pass that replaces refs/sources by names and every other ``{{ }}`` by NULL.

Each attempt says which path produced it (:class:`SqlPath`), so the evidence can tell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from dbt_schema_link.artifacts.records import Relation


class SqlPath(str, Enum):
    COMPILED = "compiled"  # dbt's compiled SQL (manifest compiled_code)
    RAW_SQLFLUFF = "raw_sqlfluff"  # raw code rendered by sqlfluff's Jinja templater
    RAW_REGEX = "raw_regex"  # raw code with refs/sources substituted by regex, other Jinja dropped


@dataclass(frozen=True)
class RenderedSql:
    sql: str
    path: SqlPath


_COMMENT = re.compile(r"\{#.*?#\}", re.S)
_STATEMENT = re.compile(r"\{%-?.*?-?%\}", re.S)
_EXPRESSION = re.compile(r"\{\{-?(.*?)-?\}\}", re.S)
_REF = re.compile(r"^\s*ref\s*\((.*)\)\s*$", re.S)
_SOURCE = re.compile(r"^\s*source\s*\((.*)\)\s*$", re.S)
_STRING = re.compile(r"""['"]([^'"]+)['"]""")
_CONFIG = re.compile(r"^\s*config\s*\(", re.S)


def regex_render(raw: str) -> str:
    """Cheap Jinja removal: ``{{ ref('x') }}`` -> ``x``, ``{{ source('s','t') }}`` -> ``s_t``,
    ``{{ config(...) }}`` -> nothing, any other ``{{ ... }}`` -> ``NULL``; ``{% %}`` and ``{# #}``
    dropped (so both branches of an ``if`` stay)."""
    text = _COMMENT.sub(" ", raw)

    def expr(match: re.Match[str]) -> str:
        body = match.group(1)
        m = _REF.match(body)
        if m:
            args = [a for a in _STRING.findall(m.group(1))]
            return args[-1] if args else "NULL"
        m = _SOURCE.match(body)
        if m:
            args = _STRING.findall(m.group(1))
            return f"{args[0]}_{args[1]}" if len(args) >= 2 else "NULL"
        if _CONFIG.match(body):
            return " "
        if body.strip() == "this":
            return "this_model"
        return "NULL"

    text = _EXPRESSION.sub(expr, text)
    return _STATEMENT.sub(" ", text)


class SqlRenderer:
    """Renders model code; holds the (lazily built) sqlfluff templater for the whole run."""

    def __init__(self) -> None:
        self._templater: Any = None
        self._config: Any = None
        self._sqlfluff_failed = False

    def attempts(self, rel: Relation) -> list[RenderedSql]:
        """The SQL texts to try, best first."""
        out: list[RenderedSql] = []
        if rel.compiled_sql and rel.compiled_sql.strip():
            out.append(RenderedSql(rel.compiled_sql, SqlPath.COMPILED))
            return out
        raw = rel.raw_sql
        if not raw or not raw.strip():
            return out
        if "{" not in raw:
            return [RenderedSql(raw, SqlPath.RAW_REGEX)]
        rendered = self._sqlfluff(raw)
        if rendered is not None:
            out.append(RenderedSql(rendered, SqlPath.RAW_SQLFLUFF))
        out.append(RenderedSql(regex_render(raw), SqlPath.RAW_REGEX))
        return out

    def _sqlfluff(self, raw: str) -> str | None:
        if self._sqlfluff_failed:
            return None
        try:
            if self._templater is None:
                from sqlfluff.core import FluffConfig
                from sqlfluff.core.templaters import JinjaTemplater

                self._config = FluffConfig(
                    overrides={"dialect": "ansi", "templater": "jinja"},
                    configs={"templater": {"jinja": {"apply_dbt_builtins": True}}},
                )
                self._templater = JinjaTemplater()
            templated, _errors = self._templater.process(in_str=raw, fname="model.sql", config=self._config)
        except ImportError:
            self._sqlfluff_failed = True
            return None
        except Exception:  # noqa: BLE001 - any templating failure falls back to the regex path
            return None
        if templated is None:
            return None
        return templated.templated_str
