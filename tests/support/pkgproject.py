"""A root dbt project that installs a local package of its own (for issue 34's tests).

The root project holds seeds (a small GitHub-like warehouse, generated here; one of them,
`team_repositories`, read by no package) and configuration; the installed package `ghpkg` declares
sources over the other seeds (each `identifier` set by a var, as SaaS connector packages do),
staging views and two documented marts.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

ROOT_NAME = "pkgroot"
PACKAGE_NAME = "ghpkg"

_ROOT_PROJECT = """\
name: pkgroot
version: "1.0.0"
config-version: 2
profile: pkgroot
seed-paths: ["seeds"]
model-paths: ["models"]
test-paths: ["tests"]
target-path: target
flags:
  send_anonymous_usage_stats: false
vars:
  gh_schema: main
  gh_repository_identifier: gh_repository_data
  gh_user_identifier: gh_user_data
  gh_issue_identifier: gh_issue_data
  gh_pull_request_identifier: gh_pull_request_data
seeds:
  pkgroot:
    +quote_columns: false
"""

_PROFILES = """\
pkgroot:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: "{{ env_var('PKG_DUCKDB_PATH', 'target/pkg.duckdb') }}"
      threads: 1
"""

_PACKAGE_PROJECT = """\
name: ghpkg
version: "1.0.0"
config-version: 2
model-paths: ["models"]
models:
  ghpkg:
    staging:
      +materialized: view
    marts:
      +materialized: table
"""

_SOURCES = """\
version: 2
sources:
  - name: github
    schema: "{{ var('gh_schema', 'github') }}"
    tables:
      - name: repository
        identifier: "{{ var('gh_repository_identifier', 'repository') }}"
      - name: user
        identifier: "{{ var('gh_user_identifier', 'user') }}"
      - name: issue
        identifier: "{{ var('gh_issue_identifier', 'issue') }}"
      - name: pull_request
        identifier: "{{ var('gh_pull_request_identifier', 'pull_request') }}"
"""

_MODELS = {
    "staging/stg_gh__repository.sql":
        "select id as repository_id, full_name, owner_user_id from {{ source('github', 'repository') }}\n",
    "staging/stg_gh__user.sql":
        "select id as user_id, login from {{ source('github', 'user') }}\n",
    "staging/stg_gh__issue.sql":
        "select id as issue_id, repository_id, user_id, title, is_pull_request from {{ source('github', 'issue') }}\n",
    "staging/stg_gh__pull_request.sql":
        "select id as pull_request_id, issue_id, merged as is_merged from {{ source('github', 'pull_request') }}\n",
    "marts/gh__issues.sql": (
        "select i.issue_id, i.repository_id, r.full_name as repository_name, u.login as author_login, i.title\n"
        "from {{ ref('stg_gh__issue') }} i\n"
        "join {{ ref('stg_gh__repository') }} r on r.repository_id = i.repository_id\n"
        "join {{ ref('stg_gh__user') }} u on u.user_id = i.user_id\n"
        "where not i.is_pull_request\n"),
    "marts/gh__pull_requests.sql": (
        "select p.pull_request_id, i.repository_id, r.full_name as repository_name, p.is_merged\n"
        "from {{ ref('stg_gh__pull_request') }} p\n"
        "join {{ ref('stg_gh__issue') }} i on i.issue_id = p.issue_id\n"
        "join {{ ref('stg_gh__repository') }} r on r.repository_id = i.repository_id\n"),
}

#: The package's people-written documentation of its marts (two models, nine columns).
_MARTS_YML = """\
version: 2
models:
  - name: gh__issues
    description: One row per issue that is not a pull request.
    columns:
      - name: issue_id
        description: The issue's id.
      - name: repository_id
        description: The repository the issue was opened in.
      - name: repository_name
        description: Full name of that repository (owner/name).
      - name: author_login
        description: Login of the user who opened the issue.
      - name: title
        description: The issue's title.
  - name: gh__pull_requests
    description: One row per pull request.
    columns:
      - name: pull_request_id
        description: The pull request's id.
      - name: repository_id
        description: The repository the pull request targets.
      - name: repository_name
        description: Full name of that repository (owner/name).
      - name: is_merged
        description: Whether the pull request was merged.
"""

DOCUMENTED_PACKAGE_MODELS = ("gh__issues", "gh__pull_requests")


def _seeds(out: Path, seed: int = 34) -> None:
    rng = random.Random(seed)
    users = list(range(1, 41))
    repos = list(range(101, 113))
    rows = {
        "gh_user_data": [("id", "login")] + [(u, f"user{u:03d}") for u in users],
        "gh_repository_data": [("id", "full_name", "owner_user_id")]
        + [(r, f"org/repo{r}", rng.choice(users)) for r in repos],
    }
    issues = [("id", "repository_id", "user_id", "title", "is_pull_request")]
    pulls = [("id", "issue_id", "merged")]
    for i in range(5001, 5401):
        is_pr = rng.random() < 0.4
        issues.append((i, rng.choice(repos[:-1]), rng.choice(users[:-3]), f"issue {i}", "true" if is_pr else "false"))
        if is_pr:
            pulls.append((len(pulls) + 9000, i, "true" if rng.random() < 0.7 else "false"))
    rows["gh_issue_data"] = issues
    rows["gh_pull_request_data"] = pulls
    # the root project's own table, read by no package: its join to the package's repositories
    # is one `write` can write (a test in the root project's YAML)
    rows["team_repositories"] = [("team", "repository_id")] + [
        (f"team{t}", r) for t in range(1, 6) for r in rng.sample(repos[:8], 3)]
    out.mkdir(parents=True, exist_ok=True)
    for name, table in rows.items():
        with (out / f"{name}.csv").open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(table)


def write_package_project(dest: Path, schema_link_repo: Path) -> Path:
    """Write <dest>/ghpkg (the package) and <dest>/pkgroot (the root project installing it and
    this repository's dbt package); returns the root project's directory."""
    package, root = dest / PACKAGE_NAME, dest / ROOT_NAME
    (package / "models" / "staging").mkdir(parents=True)
    (package / "models" / "marts").mkdir(parents=True)
    (package / "dbt_project.yml").write_text(_PACKAGE_PROJECT)
    (package / "models" / "staging" / "src_github.yml").write_text(_SOURCES)
    (package / "models" / "marts" / "marts.yml").write_text(_MARTS_YML)
    for path, sql in _MODELS.items():
        (package / "models" / path).write_text(sql)
    root.mkdir(parents=True)
    (root / "dbt_project.yml").write_text(_ROOT_PROJECT)
    (root / "profiles.yml").write_text(_PROFILES)
    (root / "packages.yml").write_text(f"packages:\n  - local: {schema_link_repo}\n  - local: ../{PACKAGE_NAME}\n")
    _seeds(root / "seeds")
    return root
