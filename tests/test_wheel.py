"""The wheel is the product (issue 64): `python -m build` makes a wheel and an sdist that carry the
dbt package; the wheel installed with only the `duckdb` extra into a fresh virtual environment
runs the README's "Use it on your project" on a project built here: `init` (packages.yml points
at the installed copy; dbt deps fetches nothing), `link --build-artifacts`, `write`,
`dbt test -s tag:schema_link`, `index` and `ask`. After the install every command runs with
HTTP(S) proxies that refuse, so anything fetched over the network would fail.

Real build, real pip from the package registry, real dbt on real DuckDB; about 1-2 min.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

pytestmark = [pytest.mark.slow, pytest.mark.dbt]

#: Where the wheel keeps the dbt package (setup.py, project_setup.BUNDLED_PACKAGE).
BUNDLED = "dbt_schema_link/dbt_package/"
#: Refusing proxies: after the install, nothing may be fetched.
OFFLINE = {key: "http://127.0.0.1:9" for key in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")}

SEEDS = {
    "seeds/raw_customers.csv": "customer_id,name,segment\n" + "".join(
        f"{i},Customer {i},{('retail', 'wholesale')[i % 2]}\n" for i in range(1, 41)),
    "seeds/raw_orders.csv": "order_id,customer_id,status\n" + "".join(
        f"{i},{1 + i % 40},{('placed', 'shipped', 'returned')[i % 3]}\n" for i in range(1, 301)),
}
PROFILES = "shop:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: shop.duckdb\n      threads: 1\n"


def _env(venv: Path, **extra: str) -> dict[str, str]:
    """The fresh environment's tools first on PATH; nothing of this checkout on the import path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBT_", "PYTHON", "VIRTUAL_ENV"))
           and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    env.update({"PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", "VIRTUAL_ENV": str(venv),
                "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1", "GIT_TERMINAL_PROMPT": "0"})
    env.update(extra)
    return env


def _run(cmd: list[str], env: dict[str, str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)
    assert res.returncode == 0, f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stdout[-4000:]}\n{res.stderr[-4000:]}"
    return res


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], _env(Path(sys.prefix)), REPO)
    return out


def _dbt_package_files() -> set[str]:
    """What the dbt package is in this checkout: dbt_project.yml and its macro files."""
    return {"dbt_project.yml"} | {str(p.relative_to(REPO)) for p in (REPO / "macros").rglob("*")
                                  if p.is_file() and p.suffix in (".sql", ".yml", ".md")}


def test_wheel_and_sdist_carry_the_dbt_package(dist):
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    names = zipfile.ZipFile(wheel).namelist()
    bundled = {n[len(BUNDLED):] for n in names if n.startswith(BUNDLED)}
    assert bundled == _dbt_package_files(), sorted(bundled ^ _dbt_package_files())
    # every folder dbt_project.yml names is in the wheel (the others are empty lists there)
    project = yaml.safe_load((REPO / "dbt_project.yml").read_text())
    for key, paths in project.items():
        if key.endswith("-paths") and key != "clean-targets":
            for path in paths:
                assert any(b.startswith(f"{path}/") for b in bundled), (key, path)
    assert zipfile.ZipFile(wheel).read(BUNDLED + "dbt_project.yml") == (REPO / "dbt_project.yml").read_bytes()
    root = sdist.name[: -len(".tar.gz")]
    members = {m[len(root) + 1:] for m in tarfile.open(sdist).getnames()}
    assert _dbt_package_files() | {"setup.py", "MANIFEST.in", "pyproject.toml"} <= members


def test_fresh_venv_runs_the_readme_on_a_new_project(dist, tmp_path):
    (wheel,) = dist.glob("*.whl")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], _env(venv), tmp_path)
    started = time.perf_counter()
    _run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", f"{wheel}[duckdb]"], _env(venv), tmp_path)
    install_s = time.perf_counter() - started
    print(f"fresh-venv install of {wheel.name}[duckdb]: {install_s:.0f} s")  # shown with -s / in the durations

    env = _env(venv, **OFFLINE)
    site = Path(_run([str(venv / "bin/python"), "-c", "import dbt_schema_link, pathlib; "
                      "print(pathlib.Path(dbt_schema_link.__file__).parent)"], env, tmp_path).stdout.strip())
    assert site.is_relative_to(venv) and (site / "dbt_package/macros/link_schemas.sql").is_file(), site

    p = tmp_path / "shop"
    (p / "models").mkdir(parents=True)
    (p / "dbt_project.yml").write_text("name: shop\nversion: '1.0'\nprofile: shop\nconfig-version: 2\n")
    (p / "profiles.yml").write_text(PROFILES)
    for rel, body in SEEDS.items():
        (p / rel).parent.mkdir(parents=True, exist_ok=True)
        (p / rel).write_text(body)
    (p / "target-base").symlink_to(tmp_path / "gone", target_is_directory=True)  # a leftover link

    def tool(*args: str) -> subprocess.CompletedProcess:
        return _run([str(venv / "bin/dbt-schema-link"), *args], env, p)

    def dbt(*args: str) -> subprocess.CompletedProcess:
        return _run([str(venv / "bin/dbt"), *args, "--project-dir", str(p), "--profiles-dir", str(p)], env, p)

    # init: local: to the installed copy, installed by dbt deps without the network
    init = tool("init")
    assert "added `local: " in init.stdout and "ran `dbt deps`" in init.stdout, init.stdout
    (entry,) = yaml.safe_load((p / "packages.yml").read_text())["packages"]
    assert (p / entry["local"]).resolve() == (site / "dbt_package").resolve(), entry
    assert (p / "dbt_packages/dbt_schema_link/dbt_project.yml").is_file()
    assert tool("init", "--check").stdout.startswith("✓ dbt_schema_link ")

    dbt("seed")
    link = tool("link", "--build-artifacts")
    assert "raw_orders.customer_id" in link.stdout and "raw_customers.customer_id" in link.stdout, link.stdout
    wrote = tool("write")
    assert re.search(r"wrote [1-9]\d* file", wrote.stderr), (wrote.stdout, wrote.stderr)
    tested = dbt("test", "-s", "tag:schema_link")
    assert re.search(r"PASS=[1-9]", tested.stdout) and "ERROR=0" in tested.stdout, tested.stdout[-3000:]

    # index and ask without the embeddings extra: lexical, with a notice naming the extra
    index = tool("index")
    notices = [line for line in index.stderr.splitlines() if line.startswith("notice: dense retrieval is off")]
    assert len(notices) == 1 and "dbt-schema-link[embeddings]" in notices[0] and "None" not in notices[0], index.stderr
    asked = tool("ask", "how many orders does each customer segment have", "--quiet")
    assert "raw_orders" in asked.stdout and "raw_customers" in asked.stdout and "segment" in asked.stdout, asked.stdout
    assert "customer_id" in asked.stdout, asked.stdout
