"""The persisted question-time index under `target/schema_link/index/`.

Layout (format `dbt_schema_link/index`, version 3):

    index.json          format, version, model, dimensions, grouping, input fingerprint, counts
    docs.json           relations, columns, groups, join edges, embedding-cache keys
    col_vectors.npy     float32 (columns × dim), L2-normalised (a generated description's blend a little shorter); memory-mapped on load
    rel_vectors.npy     float32 (relations × dim)
    lexical.npz         BM25 inverted indexes (columns, relations); vocabularies in docs.json
    values.npz          value postings (+ LSH bands for large value sets); values in docs.json

A rebuild reuses the vectors of every text whose cache key (a hash of model + text) is unchanged,
a document's own text or each part of a blended one, so editing a few descriptions or re-profiling
a few relations embeds only those texts again (a new shard of a relation family: nothing). The directory is
written beside the old one and swapped in, so a reader never sees a half-written index.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from dbt_schema_link import __version__
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.fileio import atomic_write_bytes, atomic_write_text
from dbt_schema_link.linker.documents import (
    DESCRIBING_VALUES,
    ColumnDoc,
    Corpus,
    EdgeDoc,
    EmbedParts,
    GroupDoc,
    ProjectInput,
    RelationDoc,
    build_corpus,
    text_key,
)
from dbt_schema_link.linker.embedder import Embedder
from dbt_schema_link.linker.families import DEFAULT_MIN_SHARDS
from dbt_schema_link.linker.graph import JoinGraph
from dbt_schema_link.linker.lexical import LexicalIndex
from dbt_schema_link.linker.text import split_identifier, stem, terms
from dbt_schema_link.linker.values import ValueIndex
from dbt_schema_link.links import Provenance

INDEX_FORMAT = "dbt_schema_link/index"
INDEX_VERSION = 4  # 2: edges carry provenance and the written confidence; 3: who wrote each description;
#   4: edges the data refutes ("named, contradicted by data") and composite keys' further pairs
#: Texts per `encode` call when indexing (the progress step).
EMBED_BATCH = 4096

Progress = Callable[[str], None]


class LinkIndexError(SchemaLinkError):
    """The index is missing, from another format version, or damaged."""


@dataclass
class BuildReport:
    index_dir: Path
    relations: int
    columns: int
    groups: int
    edges: int
    values: int
    embedded: int  # texts embedded in this build
    reused: int  # texts whose vectors came from the previous index
    seconds: float
    model: str | None
    up_to_date: bool = False
    notices: list[str] = field(default_factory=list)
    families: int = 0  # relation families (linker/families.py), each indexed as one relation

    def summary(self) -> str:
        if self.up_to_date:
            return f"index {self.index_dir} is up to date ({self.columns:,} columns)"
        dense = f"model {self.model}: embedded {self.embedded:,}, reused {self.reused:,}" if self.model else "lexical only"
        families = f" ({self.families:,} relation families)" if self.families else ""
        return (f"indexed {self.relations:,} relations{families}, {self.columns:,} columns in {self.groups:,} group(s), "
                f"{self.edges:,} join edges, {self.values:,} distinct values ({dense}) in {self.seconds:.1f}s → {self.index_dir}")


# ---------------------------------------------------------------------------------------------
# lexical documents


def column_terms(col: ColumnDoc, rel: RelationDoc) -> list[tuple[str, float]]:
    out = [(t, 2.0) for t in terms(col.name, drop_stop=False)]
    out += [(t, 0.5) for t in terms(rel.short_name, drop_stop=False)]
    out += [(t, col.description_weight) for t in terms(col.description)]
    out += [(t, 1.0) for tag in col.tags for t in terms(tag)]
    if len(col.values) <= DESCRIBING_VALUES:
        out += [(t, 0.5) for v in col.values[:20] for t in terms(v)]
    return out


def relation_terms(rel: RelationDoc, cols: Sequence[ColumnDoc]) -> list[tuple[str, float]]:
    out = [(t, 2.0) for t in terms(rel.short_name, drop_stop=False)]
    out += [(t, rel.description_weight) for t in terms(rel.description)]
    out += [(t, 1.0) for tag in rel.tags for t in terms(tag)]
    out += [(t, 0.25) for c in cols for t in terms(c.name, drop_stop=False)]
    return out


def _is_label(name: str) -> bool:
    """A display-name column: `name`, `title`, `*_name` (not first/last/middle parts)."""
    parts = name.lower().replace("-", "_").split("_")
    low = name.lower()
    if low in ("name", "title", "label") or (parts[-1] in ("name", "title") and parts[0] not in ("first", "last", "middle", "f", "l")):
        return True
    return low.endswith("name") and len(parts) == 1 and low not in ("fname", "lname", "firstname", "lastname")


_NAME_PARTS = frozenset({"first_name", "last_name", "firstname", "lastname", "fname", "lname",
                         "given_name", "family_name", "surname"})


def _labels(corpus: Corpus) -> np.ndarray:
    """Display-name columns per relation. The relation's own name column (`name`, `title`, or
    the relation's word + `name`: `product_name` in products) is its label; without one, the
    parts of a person's name (`first_name`, `last_name`: "our top customers" reads both); else
    any `*_name` column."""
    named = np.fromiter((_is_label(c.name) for c in corpus.columns), dtype=bool, count=len(corpus.columns))
    out = np.zeros(len(corpus.columns), dtype=bool)
    for rel in corpus.relations:
        cols = range(rel.col_start, rel.col_end)
        own = {stem(w) for w in split_identifier(rel.short_name)}
        tiers = (
            [c for c in cols if named[c] and (len(split_identifier(corpus.columns[c].name)) == 1
                                                or stem(split_identifier(corpus.columns[c].name)[0]) in own)],
            [c for c in cols if corpus.columns[c].name.lower() in _NAME_PARTS],
            [c for c in cols if named[c]],
        )
        for picked in tiers:
            if picked:
                out[picked] = True
                break
    return out


# ---------------------------------------------------------------------------------------------
# the index object


class LinkIndex:
    def __init__(self, meta: dict, corpus: Corpus, col_vectors: np.ndarray | None, rel_vectors: np.ndarray | None,
                 col_lex: LexicalIndex, rel_lex: LexicalIndex, values: ValueIndex,
                 col_keys: list[str], rel_keys: list[str]):
        self.meta = meta
        self.corpus = corpus
        self.col_vectors = col_vectors
        self.rel_vectors = rel_vectors
        self.col_lex = col_lex
        self.rel_lex = rel_lex
        self.values = values
        self.col_keys = col_keys
        self.rel_keys = rel_keys
        n = len(corpus.relations)
        self.col_relation = np.fromiter((c.relation for c in corpus.columns), dtype=np.int32, count=len(corpus.columns))
        self.rel_group = np.fromiter((r.group for r in corpus.relations), dtype=np.int32, count=n)
        self.graph = JoinGraph(corpus.edges, corpus.columns, n, self.rel_group, [r.layer for r in corpus.relations])
        self.rel_superseded = np.fromiter((r.superseded for r in corpus.relations), dtype=bool, count=n)
        self.col_group = self.rel_group[self.col_relation] if len(self.col_relation) else np.zeros(0, dtype=np.int32)
        self.rel_start = np.fromiter((r.col_start for r in corpus.relations), dtype=np.int64, count=n)
        self.rel_ncols = np.fromiter((r.col_end - r.col_start for r in corpus.relations), dtype=np.int64, count=n)
        self.col_is_pk = np.fromiter((c.is_pk for c in corpus.columns), dtype=bool, count=len(corpus.columns))
        keyed = np.zeros(len(corpus.columns), dtype=bool)
        for e in corpus.edges:
            if e.contradicted is None:  # a refuted pair's columns are no join keys
                for child, parent in e.column_pairs():
                    keyed[child] = keyed[parent] = True
        self.col_is_key = keyed | self.col_is_pk
        self.col_is_label = _labels(corpus)
        # a label in parts (first and last name) is shown whole: grounding adds the other parts
        self.col_is_name_part = self.col_is_label & np.fromiter(
            (c.name.lower() in _NAME_PARTS for c in corpus.columns), dtype=bool, count=len(corpus.columns))
        self.group_rel_count = np.bincount(self.rel_group, minlength=len(corpus.groups)) if n else np.zeros(0, int)

    @property
    def model(self) -> str | None:
        return self.meta.get("model")

    @property
    def has_vectors(self) -> bool:
        return self.col_vectors is not None and len(self.corpus.columns) > 0

    def group_index(self, name: str) -> list[int]:
        """Groups matching a `db` restriction: a group key, project, schema or database name."""
        wanted = name.strip().lower()
        out = []
        for i, g in enumerate(self.corpus.groups):
            names = {g.key.lower(), g.project.lower(), g.schema.lower(), g.database.lower(),
                     f"{g.database}.{g.schema}".lower(), *g.schema.lower().split("+")}
            if wanted in names:
                out.append(i)
        return out


# ---------------------------------------------------------------------------------------------
# build


def fingerprint(paths: Sequence[Path], settings: dict) -> str:
    """A digest of the input artifacts and the build settings: equal means nothing to rebuild."""
    h = hashlib.sha256(json.dumps({"settings": settings, "version": __version__, "format": INDEX_VERSION},
                                  sort_keys=True).encode())
    for path in paths:
        h.update(str(path).encode())
        if path.exists():
            with path.open("rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    h.update(chunk)
        else:
            h.update(b"<missing>")
    return h.hexdigest()[:32]


def _old_vectors(index_dir: Path, model: str | None) -> dict[str, np.ndarray]:
    """key → vector from the current index, when it was built with the same model (of any format
    version: a key is the hash of the model and the text, so its vector stays valid)."""
    try:
        meta = json.loads((index_dir / "index.json").read_text(encoding="utf-8"))
        if meta.get("format") != INDEX_FORMAT or meta.get("model") != model:
            return {}
        docs = json.loads((index_dir / "docs.json").read_text(encoding="utf-8"))
        out: dict[str, np.ndarray] = {}
        for keys_name, file in (("col_keys", "col_vectors.npy"), ("rel_keys", "rel_vectors.npy")):
            vecs = np.load(index_dir / file, mmap_mode="r")
            for i, key in enumerate(docs.get(keys_name, [])):
                if i < len(vecs):
                    out[key] = vecs[i]
        return out
    except (OSError, ValueError, KeyError):
        return {}


def _embed(docs: list[EmbedParts], keys: list[str], embedder: Embedder, cache: dict[str, np.ndarray],
           progress: Progress | None, what: str) -> tuple[np.ndarray, int]:
    """Vectors of the documents (weighted sums of their parts' vectors), reusing cached ones: a
    document's own key (its blend) first, then each part text's key (a part's key is the key of a
    one-text document), so only texts never embedded under this model are encoded."""
    vecs = np.zeros((len(docs), embedder.dim), dtype=np.float32)
    todo: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        hit = cache.get(key)
        if hit is not None and len(hit) == embedder.dim:
            vecs[i] = hit
        else:
            todo.setdefault(key, []).append(i)
    texts: dict[str, np.ndarray | None] = {}
    for key, rows in todo.items():
        for t, _ in docs[rows[0]]:
            if t not in texts:
                hit = cache.get(text_key(embedder.name, t))
                texts[t] = hit if hit is not None and len(hit) == embedder.dim else None
    missing = [t for t, v in texts.items() if v is None]
    for start in range(0, len(missing), EMBED_BATCH):
        # one call per large chunk: the model sorts a call's texts by length, so batches pad little
        chunk = missing[start:start + EMBED_BATCH]
        for t, v in zip(chunk, embedder.encode(chunk, batch_size=64)):
            texts[t] = v
            cache[text_key(embedder.name, t)] = v
        if progress and len(missing) > EMBED_BATCH:
            progress(f"embedded {min(start + EMBED_BATCH, len(missing)):,}/{len(missing):,} {what} texts")
    fresh = set(missing)
    embedded = 0
    for key, rows in todo.items():
        vecs[rows] = sum(w * texts[t] for t, w in docs[rows[0]])
        cache[key] = vecs[rows[0]]
        embedded += len(rows) if any(t in fresh for t, _ in docs[rows[0]]) else 0
    return vecs, embedded


def build_index(inputs: Sequence[ProjectInput], index_dir: Path, embedder: Embedder | None,
                group_by: str = "auto", input_fingerprint: str | None = None, force: bool = False,
                progress: Progress | None = None, projects_meta: Sequence[dict] = (),
                min_shards: int = DEFAULT_MIN_SHARDS) -> BuildReport:
    """Build (or refresh) the index at `index_dir` from project inputs (`min_shards`: relation
    families, linker/families.py)."""
    start = time.perf_counter()
    model = embedder.name if embedder is not None else None
    if input_fingerprint and not force:
        current = read_meta(index_dir)
        if current and current.get("fingerprint") == input_fingerprint:
            model = current.get("model")
            counts = current.get("counts", {})
            return BuildReport(index_dir, counts.get("relations", 0), counts.get("columns", 0), counts.get("groups", 0),
                               counts.get("edges", 0), counts.get("values", 0), 0, 0,
                               time.perf_counter() - start, model, up_to_date=True,
                               families=counts.get("families", 0))
    corpus = build_corpus(list(inputs), group_by, min_shards)
    if progress:
        progress(f"{len(corpus.relations):,} relations, {len(corpus.columns):,} columns, {len(corpus.edges):,} join edges")
    col_texts, rel_texts = corpus.column_parts(), corpus.relation_parts()
    col_keys = [text_key(model or "", t) for t in col_texts]
    rel_keys = [text_key(model or "", t) for t in rel_texts]
    col_vectors = rel_vectors = None
    embedded = reused = 0
    if embedder is not None:
        cache = _old_vectors(index_dir, model)
        if progress and cache:
            progress(f"reusing the vectors of {len(cache):,} unchanged texts")
        col_vectors, n1 = _embed(col_texts, col_keys, embedder, cache, progress, "column")
        rel_vectors, n2 = _embed(rel_texts, rel_keys, embedder, cache, progress, "relation")
        embedded = n1 + n2
        reused = len(col_texts) + len(rel_texts) - embedded
    rels = corpus.relations
    n_families = sum(1 for r in rels if r.shards)
    col_lex = LexicalIndex.build((column_terms(c, rels[c.relation]) for c in corpus.columns), len(corpus.columns))
    rel_lex = LexicalIndex.build((relation_terms(r, corpus.columns[r.col_start:r.col_end]) for r in rels), len(rels))
    values = ValueIndex.build([c.values for c in corpus.columns])
    meta = {
        "format": INDEX_FORMAT,
        "format_version": INDEX_VERSION,
        "package_version": __version__,
        "model": model,
        "dim": int(col_vectors.shape[1]) if col_vectors is not None else 0,
        "group_by": group_by,
        "min_shards": min_shards,
        "fingerprint": input_fingerprint,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "projects": list(projects_meta),
        "counts": {"relations": len(rels), "columns": len(corpus.columns), "groups": len(corpus.groups),
                   "edges": len(corpus.edges), "values": len(values), "families": n_families},
    }
    index = LinkIndex(meta, corpus, col_vectors, rel_vectors, col_lex, rel_lex, values, col_keys, rel_keys)
    save_index(index, index_dir)
    return BuildReport(index_dir, len(rels), len(corpus.columns), len(corpus.groups), len(corpus.edges), len(values),
                       embedded, reused, time.perf_counter() - start, model, families=n_families)


# ---------------------------------------------------------------------------------------------
# save / load


def save_index(index: LinkIndex, index_dir: Path) -> None:
    index_dir = Path(index_dir)
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = index_dir.with_name(f".{index_dir.name}.tmp-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    c = index.corpus
    docs = {
        "relations": [asdict(r) for r in c.relations],
        "columns": [[col.relation, col.name, col.data_type, col.description, col.tags, col.values, col.is_pk,
                     col.origin.value] for col in c.columns],
        "groups": [asdict(g) for g in c.groups],
        "edges": [[e.child, e.parent, e.provenance.value, e.confidence, e.written_confidence, e.contradicted,
                   [list(x) for x in e.extra]] for e in c.edges],
        "col_keys": index.col_keys,
        "rel_keys": index.rel_keys,
        "col_vocab": index.col_lex.vocab_list(),
        "rel_vocab": index.rel_lex.vocab_list(),
        "values": index.values.values,
    }
    atomic_write_text(tmp / "docs.json", json.dumps(docs, separators=(",", ":"), ensure_ascii=False))
    dim = index.meta.get("dim", 0)
    col_vecs = index.col_vectors if index.col_vectors is not None else np.zeros((0, dim), np.float32)
    rel_vecs = index.rel_vectors if index.rel_vectors is not None else np.zeros((0, dim), np.float32)
    np.save(tmp / "col_vectors.npy", np.ascontiguousarray(col_vecs, dtype=np.float32))
    np.save(tmp / "rel_vectors.npy", np.ascontiguousarray(rel_vecs, dtype=np.float32))
    np.savez(tmp / "lexical.npz", **index.col_lex.arrays("col_"), **index.rel_lex.arrays("rel_"))
    np.savez(tmp / "values.npz", **index.values.arrays())
    atomic_write_bytes(tmp / "index.json", (json.dumps(index.meta, indent=1) + "\n").encode("utf-8"))
    old = index_dir.with_name(f".{index_dir.name}.old-{os.getpid()}")
    if index_dir.exists():
        os.replace(index_dir, old)
    os.replace(tmp, index_dir)
    if old.exists():
        shutil.rmtree(old, ignore_errors=True)


def read_meta(index_dir: Path) -> dict | None:
    try:
        meta = json.loads((Path(index_dir) / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def load_index(index_dir: Path) -> LinkIndex:
    index_dir = Path(index_dir)
    meta = read_meta(index_dir)
    if meta is None:
        raise LinkIndexError(f"no question index at {index_dir}: run `dbt-schema-link index` first")
    if meta.get("format") != INDEX_FORMAT or meta.get("format_version") != INDEX_VERSION:
        raise LinkIndexError(f"{index_dir} holds index format {meta.get('format')!r} v{meta.get('format_version')}, "
                          f"this version reads v{INDEX_VERSION}: run `dbt-schema-link index` again")
    try:
        docs = json.loads((index_dir / "docs.json").read_text(encoding="utf-8"))
        relations = [RelationDoc(**r) for r in docs["relations"]]
        columns = [ColumnDoc(relation=c[0], name=c[1], data_type=c[2], description=c[3], tags=c[4], values=c[5],
                             is_pk=c[6], origin=c[7]) for c in docs["columns"]]
        groups = [GroupDoc(**g) for g in docs["groups"]]
        edges = [EdgeDoc(e[0], e[1], Provenance(e[2]), e[3], e[4], e[5], tuple((a, b) for a, b in e[6]))
                 for e in docs["edges"]]
        corpus = Corpus(relations, columns, groups, edges)
        col_vectors = rel_vectors = None
        if meta.get("model"):
            col_vectors = np.load(index_dir / "col_vectors.npy", mmap_mode="r")
            rel_vectors = np.load(index_dir / "rel_vectors.npy", mmap_mode="r")
        lex = np.load(index_dir / "lexical.npz")
        col_lex = LexicalIndex.from_arrays(docs["col_vocab"], lex, "col_")
        rel_lex = LexicalIndex.from_arrays(docs["rel_vocab"], lex, "rel_")
        values = ValueIndex.from_arrays(docs["values"], dict(np.load(index_dir / "values.npz")))
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise LinkIndexError(f"the index at {index_dir} is damaged ({type(exc).__name__}: {str(exc)[:120]}): "
                          f"run `dbt-schema-link index --force`") from None
    return LinkIndex(meta, corpus, col_vectors, rel_vectors, col_lex, rel_lex, values,
                     docs.get("col_keys", []), docs.get("rel_keys", []))
