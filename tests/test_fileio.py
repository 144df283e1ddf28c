"""Atomic writes: replace in one step; temp files left by a killed write are cleaned up."""

import os

from dbt_schema_link.fileio import STALE_TEMP_SECONDS, atomic_write_text


def test_replaces_content_and_keeps_mode(tmp_path):
    target = tmp_path / "schema.yml"
    target.write_text("old\n")
    target.chmod(0o640)
    atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["schema.yml"]


def test_stale_temp_files_of_a_killed_write_are_removed(tmp_path):
    stale = tmp_path / ".schema.yml.abc123.tmp"
    fresh = tmp_path / ".schema.yml.def456.tmp"  # maybe another writer's, still in progress
    other = tmp_path / ".other.yml.abc.tmp"
    for p in (stale, fresh, other):
        p.write_text("partial")
    old = os.path.getmtime(stale) - STALE_TEMP_SECONDS - 5
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    atomic_write_text(tmp_path / "schema.yml", "x\n")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [".other.yml.abc.tmp", ".schema.yml.def456.tmp", "schema.yml"]
