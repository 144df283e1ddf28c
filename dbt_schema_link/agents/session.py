"""The opened index an agent's calls share, refreshed when the project's artifacts change.

Each call first compares the watched artifacts with the stats taken before the index was loaded;
when one changed, the session reopens (the index is rebuilt incrementally: only changed texts are
embedded again) and says so through `notice`. A refresh that fails (a manifest half-written by a
running dbt) is reported and the loaded index keeps answering; the next call tries again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from dbt_schema_link.agents.evidence import LinkEvidence
from dbt_schema_link.agents.freshness import Snapshot
from dbt_schema_link.agents.names import RelationNames
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.linker.service import LinkSession

Notice = Callable[[str], None]


@dataclass
class Loaded:
    """One load of the index, with what the tools derive from it."""

    link: LinkSession
    names: RelationNames
    evidence: LinkEvidence
    snapshot: Snapshot
    generation: int  # 1 for the first load, +1 per refresh


class AgentSession:
    """`open_link_session` opens (refreshing first) the index; `watched` are the artifacts it is
    built from; `links_files` the links.json files whose evidence join hops quote."""

    def __init__(self, open_link_session: Callable[[], LinkSession], watched: Sequence[Path],
                 links_files: Sequence[Path], notice: Notice):
        self._open = open_link_session
        self._watched = list(watched)
        self._links_files = list(links_files)
        self._notice = notice
        self._loaded = self._load(1)

    def _load(self, generation: int) -> Loaded:
        snapshot = Snapshot.take(self._watched)  # before loading: a change during the load is seen next call
        link = self._open()
        evidence = LinkEvidence.read(self._links_files)
        for message in evidence.notices:
            self._notice(message)
        return Loaded(link, RelationNames(link.index.corpus.relations), evidence, snapshot, generation)

    def current(self) -> Loaded:
        """The loaded index, reopened first when a watched artifact changed."""
        changed = self._loaded.snapshot.changed()
        if not changed:
            return self._loaded
        names = ", ".join(str(p) for p in changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        self._notice(f"notice: {names} changed since the index was loaded: refreshing the index")
        try:
            self._loaded = self._load(self._loaded.generation + 1)
        except SchemaLinkError as exc:
            self._notice(f"notice: the index could not be refreshed ({exc}); answering from the index as loaded")
        return self._loaded
