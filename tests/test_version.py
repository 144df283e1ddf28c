"""The dbt package and the Python package share one version number."""

import tomllib
from pathlib import Path

import yaml

import dbt_schema_link

REPO = Path(__file__).resolve().parents[1]


def test_dbt_package_version_matches_python_package():
    project = yaml.safe_load((REPO / "dbt_project.yml").read_text())
    assert project["name"] == "dbt_schema_link"
    assert str(project["version"]) == dbt_schema_link.__version__


def test_pyproject_takes_version_from_package():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"]["attr"] == "dbt_schema_link.__version__"



def test_macros_report_the_python_package_version():
    """The envelope header's package_version comes from one macro; it must match."""
    import re

    text = (REPO / "macros" / "schema_link_package_version.sql").read_text()
    versions = set(re.findall(r"""['"](\d+\.\d+\.\d+)['"]""", text))
    assert versions == {dbt_schema_link.__version__}


def test_macro_signatures_constant_matches_the_macros():
    """MACRO_SIGNATURES is what `package_status` compares an installed package's macros with: a
    macro renamed, added or given other arguments needs the constant updated with it."""
    from dbt_schema_link.project_setup import MACRO_SIGNATURES, macro_signatures

    assert macro_signatures(REPO / "macros") == MACRO_SIGNATURES
