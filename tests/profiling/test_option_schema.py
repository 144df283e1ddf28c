"""One schema for the profiling options (issue 29): the macro's defaults and bounds are generated
from `OPTION_SCHEMA`, link_schemas.yml documents exactly its names, types, ranges and defaults,
and `ProfileOptions` takes its defaults and checks from it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.package_macros import generated_macros
from dbt_schema_link.profiling.options import (
    OPTION_SCHEMA,
    SAMPLING,
    SPECS,
    OptionKind,
    ProfileOptions,
    SamplingSettings,
)

MACROS = Path(__file__).resolve().parents[2] / "macros"


@pytest.mark.parametrize("name", sorted(generated_macros()))
def test_generated_macros_are_up_to_date(name):
    assert (MACROS / name).read_text(encoding="utf-8") == generated_macros()[name], (
        f"macros/{name} differs from the Python schema: run `python -m dbt_schema_link.package_macros`")


def test_link_schemas_yml_documents_the_schema():
    doc = yaml.safe_load((MACROS / "link_schemas.yml").read_text(encoding="utf-8"))
    macro = next(m for m in doc["macros"] if m["name"] == "link_schemas")
    documented = [(a["name"], a["type"], a["description"]) for a in macro["arguments"]]
    assert documented == [(s.name, s.yml_type, s.yml_description()) for s in OPTION_SCHEMA]


def test_link_schemas_takes_every_option_in_schema_order():
    text = (MACROS / "link_schemas.sql").read_text(encoding="utf-8")
    signature = re.search(r"\{%\s*macro link_schemas\((.*?)\)\s*%\}", text, re.S).group(1)
    assert [a.split("=")[0].strip() for a in signature.split(",")] == [s.name for s in OPTION_SCHEMA]


def test_resolve_options_takes_defaults_and_bounds_from_the_generated_schema():
    """No literal default or bound is left in the resolving macro: it reads the generated one."""
    text = (MACROS / "schema_link_resolve_options.sql").read_text(encoding="utf-8")
    body = text[text.index("macro default__schema_link_resolve_options"):]
    assert "dbt_schema_link.schema_link__option_schema()" in body
    for spec in OPTION_SCHEMA:
        assert f"'{spec.name}'" not in body, spec.name
    assert not re.findall(r"\b\d+\b", body)


def test_profile_options_defaults_and_ranges_are_the_schema():
    defaults = ProfileOptions()
    for name, value in defaults.macro_args().items():
        spec = SPECS[name]
        assert value == spec.default
        assert spec.kind in (OptionKind.INTEGER, OptionKind.NUMBER)
        ProfileOptions(**{name: spec.low})
        ProfileOptions(**{name: spec.high})
        below = spec.low - (1 if spec.kind is OptionKind.INTEGER else spec.low / 2 or 0.5)
        bounds = re.escape(f"[{_text(spec.low)}, {_text(spec.high)}]")
        with pytest.raises(SchemaLinkError, match=rf"profiling option {name}=.* {bounds}"):
            ProfileOptions(**{name: below})
        with pytest.raises(SchemaLinkError, match=name):
            ProfileOptions(**{name: spec.high + 1})


def _text(bound: float) -> str:
    return f"{bound:g}" if isinstance(bound, float) else str(bound)


def test_profile_options_reject_fractions_of_integers_and_booleans():
    with pytest.raises(SchemaLinkError, match="k=64.5"):
        ProfileOptions(k=64.5)
    with pytest.raises(SchemaLinkError, match="top_n=True"):
        ProfileOptions(top_n=True)


def test_envelope_doc_table_states_the_schema_ranges_and_defaults():
    text = (MACROS.parent / "docs" / "envelope.md").read_text(encoding="utf-8")
    rows = {name: (bounds.strip(), default.strip())
            for name, bounds, default in re.findall(r"^\| `(\w+)` \| ([^|]+) \| ([^|]+) \|", text, re.M)}
    assert set(rows) == set(SPECS)
    for spec in OPTION_SCHEMA:
        if spec.low is None:
            continue
        bounds, default = rows[spec.name]
        low, high = bounds.split("..")
        assert (float(low), float(high)) == (spec.low, spec.high), spec.name
        assert float(default.replace(",", "")) == spec.default, spec.name


def test_sampling_settings_are_checked_and_generated():
    """The recovery groups of a value sample live in SamplingSettings only: out of range is an
    error, and the macro reads the generated value."""
    assert SamplingSettings().recovery_groups == SAMPLING.recovery_groups
    for bad in (0, (1 << 24) + 1):
        with pytest.raises(SchemaLinkError, match="recovery_groups"):
            SamplingSettings(recovery_groups=bad)
    text = (MACROS / "schema_link_option_schema.sql").read_text(encoding="utf-8")
    assert f"'recovery_groups': {SAMPLING.recovery_groups}" in text


def test_the_generator_takes_an_existing_folder_only(tmp_path):
    # `--help` (or a typo) is answered with the usage, not made into a folder of macros
    res = subprocess.run([sys.executable, "-m", "dbt_schema_link.package_macros", "--help"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 1 and "usage:" in res.stderr
    assert list(tmp_path.iterdir()) == []
    res = subprocess.run([sys.executable, "-m", "dbt_schema_link.package_macros", str(tmp_path)],
                         capture_output=True, text=True)
    assert res.returncode == 0 and sorted(p.name for p in tmp_path.iterdir()) == sorted(generated_macros())
