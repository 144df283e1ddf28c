"""Build step that puts the dbt package into the wheel (everything else is in pyproject.toml).

The repository root is the dbt package (dbt_project.yml, macros/). A wheel carries it as package
data, `dbt_schema_link/dbt_package/`, copied here at build time so the repository keeps one copy;
`dbt-schema-link init` then points packages.yml at that installed copy (`local:`), and the dbt
package and the Python package cannot differ in version. An editable install skips the copy:
from a checkout `init` points at the checkout itself. MANIFEST.in puts the same files into the
sdist, so a wheel built from the sdist has them too. tests/test_wheel.py checks the wheel.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: What dbt reads of the package: its dbt_project.yml and its macro-paths (the other *-paths are
#: empty there). tests/test_wheel.py fails when dbt_project.yml names a path this leaves out.
DBT_PACKAGE_FILES = ("dbt_project.yml",)
DBT_PACKAGE_DIRS = ("macros",)
DBT_PACKAGE_SUFFIXES = (".sql", ".yml", ".md")
#: Where the copy goes inside the Python package (project_setup.BUNDLED_PACKAGE reads it there).
TARGET = Path("dbt_schema_link", "dbt_package")


class BuildPyWithDbtPackage(build_py):
    """build_py, then the dbt package copied into the build tree (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        dest = Path(self.build_lib) / TARGET
        if dest.exists():
            shutil.rmtree(dest)
        for name in DBT_PACKAGE_FILES:
            self._copy(ROOT / name, dest / name)
        for folder in DBT_PACKAGE_DIRS:
            files = sorted(p for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix in DBT_PACKAGE_SUFFIXES)
            if not files:
                raise SystemExit(f"setup.py: no dbt package files under {ROOT / folder}")
            for path in files:
                self._copy(path, dest / path.relative_to(ROOT))

    def _copy(self, src: Path, dest: Path) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(src), str(dest), preserve_mode=False)


setup(cmdclass={"build_py": BuildPyWithDbtPackage})
