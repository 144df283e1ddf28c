"""A seeded, deterministic description of a synthetic warehouse with planted joins and traps.

The same `Warehouse` drives both outputs: real data generated inside DuckDB (sizes S and M, see
`duck.py`) and metadata-only artifacts with cached profiles (size L, see `metadata.py`).

Relations:
* entities (sources): an integer key `id` or `<entity>_id`, or a text key `<entity>_code`
  (`AB3-000017`), a name, sometimes a reference to another entity, attributes;
* one people table, `employees` (with `manager_id -> employees.id`), target of role names;
* facts (sources): a key, 1–4 references to entities, sometimes a role column, attributes;
* bridges (sources): two references (`<a>_id`, `<b>_id`), no key of their own;
* staging models `stg_<table>`: copies of a source's columns (keys renamed `id as <entity>_id`):
  lineage, not joins;
* a few mart models joining a staged fact to a staged entity in SQL.

Planted joins (the ground truth, on sources) by kind: `name_pattern` (`customer_id -> customers.id`),
`name_exact` (`customer_id -> customers.customer_id`), `code` (text keys, same name), `nameless`
(a name that says nothing, e.g. `counterparty -> ledger_accounts.ledger_account_code`: values only),
`role` (`created_by -> employees.id`), `text_int` (a VARCHAR column of digits -> an integer key),
`bridge` (both sides of a bridge table), `hierarchy` (`employees.manager_id -> employees.id`).
Traps: flags, shared status/type enums, small integers inside every dense id range, free text,
measures, dates.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field
from enum import Enum


class Kind(str, Enum):
    SERIAL = "serial"        # 1..rows: the relation's integer key
    CODE = "code"            # '<prefix>-000001'..: the relation's text key
    REF = "ref"              # integer reference, values in 1..n (n = parent rows); VARCHAR when text_int
    CODE_REF = "code_ref"    # text reference into a CODE key
    ENUM = "enum"            # shared small vocabulary (trap)
    FLAG = "flag"            # boolean or 0/1 (trap)
    SMALL_INT = "small_int"  # 1..n, n small: inside every dense id range (trap)
    MEASURE = "measure"      # decimal amounts (trap)
    TEXT = "text"            # near-unique free text (trap)
    DATE = "date"
    LABEL = "label"          # names: many distinct values


ENUMS = {
    "status": ("active", "pending", "closed", "cancelled"),
    "type": ("standard", "express", "priority"),
    "channel": ("web", "store", "phone", "partner", "mobile"),
}


@dataclass(frozen=True)
class Col:
    name: str
    kind: Kind
    sql_type: str          # DuckDB type: BIGINT, VARCHAR, DOUBLE, DATE, BOOLEAN, INTEGER
    n: int = 0             # SERIAL/CODE: rows; REF/CODE_REF: parent rows; SMALL_INT: max value
    prefix: str = ""       # CODE/CODE_REF: the key prefix
    enum: str = ""         # ENUM: key of ENUMS
    salt: int = 0
    null_pct: int = 0


@dataclass
class Rel:
    name: str              # identifier (source table name or model name)
    schema: str            # source schema (sources) or "" (models)
    role: str              # entity | people | fact | bridge | staging | mart
    rows: int
    cols: list[Col] = field(default_factory=list)
    source: str = ""       # staging: the source table it selects from; mart: the staged fact
    select: list[tuple[str, str]] = field(default_factory=list)  # models: (upstream column, output name)
    join: tuple[str, str, str, str] | None = None  # mart: (fact stg, fk col, entity stg, key col)

    @property
    def is_model(self) -> bool:
        return self.role in ("staging", "mart")

    def col(self, name: str) -> Col:
        for c in self.cols:
            if c.name == name:
                return c
        raise KeyError(f"{self.name}.{name}")


@dataclass(frozen=True)
class Planted:
    child: tuple[str, str]   # (source table, column)
    parent: tuple[str, str]
    kind: str


@dataclass(frozen=True)
class Size:
    name: str
    relations: int
    columns_per_relation: int
    max_rows: int
    data: bool  # False: metadata only (L)


SIZES = {
    "tiny": Size("tiny", 40, 8, 2_000, True),
    "S": Size("S", 200, 20, 1_000_000, True),
    "M": Size("M", 1_000, 20, 10_000_000, True),
    "L": Size("L", 5_000, 20, 1_000_000, False),
    "XL": Size("XL", 50_000, 20, 1_000_000, False),  # 1,000,000 columns (issue #35)
}

NOUNS = (
    "customer product store supplier vendor warehouse shipment invoice payment account campaign device "
    "ticket contract project task asset vehicle driver route carrier region district branch team "
    "department course student teacher patient doctor clinic policy claim partner program venue booking "
    "flight airport hotel room recipe ingredient album track artist playlist book publisher loan sensor "
    "meter plant machine part component order cart coupon promotion brand license server cluster "
    "repository release pipeline dataset report dashboard survey lesson badge game tournament stadium "
    "club league season farm crop herd tank well mine site zone lane dock port vessel container pallet "
    "kiosk terminal wallet card merchant ledger journal voucher grant fund donor pledge"
).split()
QUALIFIERS = (
    "retail online partner internal legacy regional global field fleet core premium trial archive pilot "
    "local central north south east west spare backup shared public private mobile remote primary "
    "secondary export"
).split()
FACT_WORDS = "event log transaction movement snapshot record line item change request alert audit".split()
NAMELESS = ("counterparty", "origin", "destination", "holder", "beneficiary", "payer", "issuer",
            "consignee", "custodian", "settlement", "target", "source_ref")
ROLES = ("owner_id", "approver_id", "created_by", "assigned_to", "reviewer_id")
ATTRS = (  # (name, kind, sql type, n or enum)
    ("status", Kind.ENUM, "VARCHAR", "status"),
    ("kind_type", Kind.ENUM, "VARCHAR", "type"),
    ("sales_channel", Kind.ENUM, "VARCHAR", "channel"),
    ("is_active", Kind.FLAG, "BOOLEAN", 0),
    ("is_deleted", Kind.FLAG, "INTEGER", 0),
    ("has_discount", Kind.FLAG, "BOOLEAN", 0),
    ("priority", Kind.SMALL_INT, "INTEGER", 5),
    ("quantity", Kind.SMALL_INT, "INTEGER", 50),
    ("tier", Kind.SMALL_INT, "INTEGER", 10),
    ("attempts", Kind.SMALL_INT, "INTEGER", 8),
    ("amount", Kind.MEASURE, "DOUBLE", 0),
    ("unit_price", Kind.MEASURE, "DOUBLE", 0),
    ("weight_kg", Kind.MEASURE, "DOUBLE", 0),
    ("notes", Kind.TEXT, "VARCHAR", 0),
    ("comment_text", Kind.TEXT, "VARCHAR", 0),
    ("created_at", Kind.DATE, "DATE", 0),
    ("updated_at", Kind.DATE, "DATE", 0),
    ("valid_from", Kind.DATE, "DATE", 0),
    ("city", Kind.LABEL, "VARCHAR", 0),
    ("label", Kind.LABEL, "VARCHAR", 0),
)
PEOPLE_ROWS = 500


@dataclass
class Warehouse:
    size: Size
    seed: int
    relations: list[Rel]
    planted: list[Planted]
    copies: dict[tuple[str, str], tuple[str, str]]  # (model, column) -> (upstream relation, column)

    def rel(self, name: str) -> Rel:
        return self._by_name[name]

    def __post_init__(self) -> None:
        self._by_name = {r.name: r for r in self.relations}

    @property
    def columns(self) -> int:
        return sum(len(r.cols) for r in self.relations)

    def root(self, rel: str, col: str) -> tuple[str, str]:
        """The source column a (model) column copies, following lineage; itself otherwise."""
        seen = 0
        while (rel, col) in self.copies and seen < 10:
            rel, col = self.copies[(rel, col)]
            seen += 1
        return rel, col

    def truth_json(self) -> dict:
        return {
            "size": self.size.name, "seed": self.seed, "relations": len(self.relations),
            "columns": self.columns,
            "planted": [{"child": list(p.child), "parent": list(p.parent), "kind": p.kind} for p in self.planted],
            "copies": [{"column": list(k), "source": list(v)} for k, v in sorted(self.copies.items())],
            "traps": sorted([r.name, c.name, c.kind.value] for r in self.relations if not r.is_model
                            for c in r.cols if c.kind in (Kind.ENUM, Kind.FLAG, Kind.SMALL_INT, Kind.TEXT)),
        }

    def spec_json(self) -> dict:
        return {"size": asdict(self.size), "seed": self.seed,
                "relations": [{**asdict(r), "cols": [{**asdict(c), "kind": c.kind.value} for c in r.cols]}
                              for r in self.relations]}


def plural(noun: str) -> str:
    return noun + "s"


def _log_uniform(rng: random.Random, lo: int, hi: int, skew: float = 1.0) -> int:
    if hi <= lo:
        return lo
    u = rng.random() ** skew
    return int(round(math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))))


def build(size: Size | str, seed: int = 7) -> Warehouse:
    """The warehouse of one size; the same (size, seed) always gives the same warehouse."""
    size = SIZES[size] if isinstance(size, str) else size
    rng = random.Random(seed)
    n = size.relations
    n_stg = max(2, round(0.12 * n))
    n_mart = max(1, round(0.03 * n))
    n_src = n - n_stg - n_mart
    n_bridge = max(1, round(0.08 * n_src))
    n_ent = max(3, round(0.38 * n_src)) - 1  # + employees
    n_fact = n_src - n_bridge - n_ent - 1
    n_schema = max(1, n_src // 50)
    schemas = [f"src_{i:02d}" for i in range(n_schema)]
    salt = iter(range(1, 10_000_000))

    ent_names = [q + "_" + w if q else w for q in [""] + QUALIFIERS for w in NOUNS]
    ent_names = ent_names[:len(NOUNS)] + rng.sample(ent_names[len(NOUNS):], len(ent_names) - len(NOUNS))
    if n_ent > len(ent_names):  # XL: two qualifiers (`north_retail_customer`); smaller sizes keep theirs
        pairs = [f"{a}_{b}_{w}" for a in QUALIFIERS for b in QUALIFIERS if a != b for w in NOUNS]
        ent_names += rng.sample(pairs, min(len(pairs), n_ent - len(ent_names)))
    if n_ent > len(ent_names):
        raise ValueError(f"size {size.name}: {n_ent} entities, only {len(ent_names)} names")
    max_ent_rows = max(60, min(50_000, size.max_rows // 20))
    relations: list[Rel] = []
    planted: list[Planted] = []
    keys: dict[str, Col] = {}   # entity table -> its key column
    entity_of: dict[str, str] = {}  # entity table -> entity singular

    people = Rel("employees", schemas[0], "people", PEOPLE_ROWS)
    people.cols = [Col("id", Kind.SERIAL, "BIGINT", PEOPLE_ROWS, salt=next(salt)),
                   Col("full_name", Kind.LABEL, "VARCHAR", salt=next(salt)),
                   Col("manager_id", Kind.REF, "BIGINT", PEOPLE_ROWS // 10, salt=next(salt), null_pct=10)]
    planted.append(Planted(("employees", "manager_id"), ("employees", "id"), "hierarchy"))
    relations.append(people)
    keys["employees"] = people.cols[0]

    for i in range(n_ent):
        ent = ent_names[i]
        table = plural(ent)
        rows = _log_uniform(rng, 50, max_ent_rows, skew=1.5)
        r = rng.random()
        if r < 0.5:
            key = Col("id", Kind.SERIAL, "BIGINT", rows, salt=next(salt))
        elif r < 0.85:
            key = Col(f"{ent}_id", Kind.SERIAL, "BIGINT", rows, salt=next(salt))
        else:
            prefix = "".join(w[0] for w in ent.split("_")).upper() + str(i)
            key = Col(f"{ent}_code", Kind.CODE, "VARCHAR", rows, prefix=prefix, salt=next(salt))
        rel = Rel(table, schemas[i % n_schema], "entity", rows, [key, Col(f"{ent}_name", Kind.LABEL, "VARCHAR",
                                                                           salt=next(salt))])
        if i >= 5 and rng.random() < 0.35:  # an entity referencing an earlier one (store -> region)
            _add_ref(rng, rel, relations[1 + rng.randrange(i)], keys, entity_of, planted, salt, allow_nameless=False)
        relations.append(rel)
        keys[table] = key
        entity_of[table] = ent

    entities = [r for r in relations if r.role == "entity"]
    int_entities = [r for r in entities if keys[r.name].kind is Kind.SERIAL]
    code_entities = [r for r in entities if keys[r.name].kind is Kind.CODE]
    fact_names: set[str] = set()
    for i in range(n_fact):
        while True:
            base = rng.choice(ent_names[: max(n_ent, 10)])
            name = f"{base}_{rng.choice(FACT_WORDS)}s"
            if name not in fact_names and name not in entity_of:
                fact_names.add(name)
                break
        rows = size.max_rows if i == 0 else _log_uniform(rng, 1_000, size.max_rows, skew=2.0)
        single = name[:-1]
        key = Col("id" if rng.random() < 0.6 else f"{single}_id", Kind.SERIAL, "BIGINT", rows, salt=next(salt))
        rel = Rel(name, schemas[i % n_schema], "fact", rows, [key])
        used: set[str] = set()
        for _ in range(rng.choice((1, 2, 2, 3, 3, 4))):
            pool = code_entities if (code_entities and rng.random() < 0.2) else int_entities
            parent = rng.choice(pool)
            if parent.name not in used:
                used.add(parent.name)
                _add_ref(rng, rel, parent, keys, entity_of, planted, salt, allow_nameless=True)
        if rng.random() < 0.3:
            role = rng.choice(ROLES)
            rel.cols.append(Col(role, Kind.REF, "BIGINT", PEOPLE_ROWS, salt=next(salt), null_pct=5))
            planted.append(Planted((name, role), ("employees", "id"), "role"))
        relations.append(rel)

    taken = {r.name for r in relations}  # names in use (a set: XL has 50,000 relations)
    for i in range(n_bridge):
        a, b = rng.sample(int_entities, 2)
        name = f"{entity_of[a.name]}_{entity_of[b.name]}_links"
        if name in taken:
            continue
        taken.add(name)
        rows = _log_uniform(rng, 200, max(300, size.max_rows // 10), skew=2.0)
        rel = Rel(name, schemas[i % n_schema], "bridge", rows)
        for parent in (a, b):
            col = f"{entity_of[parent.name]}_id"
            rel.cols.append(Col(col, Kind.REF, "BIGINT", parent.rows, salt=next(salt)))
            planted.append(Planted((name, col), (parent.name, keys[parent.name].name), "bridge"))
        relations.append(rel)

    # attributes: fill the column budget over entities, facts and bridges
    sources = [r for r in relations]
    reserved = n_stg * 5 + n_mart * 4
    budget = size.relations * size.columns_per_relation - sum(len(r.cols) for r in sources) - reserved
    weights = [3.0 if r.role in ("entity", "fact") else 0.5 for r in sources]
    total_w = sum(weights)
    for r, w in zip(sources, weights):
        extra = max(0, int(round(budget * w / total_w * rng.uniform(0.6, 1.4))))
        names = {c.name for c in r.cols}
        for _ in range(extra):
            name, kind, sql_type, arg = rng.choice(ATTRS)
            base, k = name, 2
            while name in names:
                name, k = f"{base}_{k}", k + 1
            names.add(name)
            r.cols.append(Col(name, kind, sql_type, n=arg if isinstance(arg, int) else 0,
                              enum=arg if isinstance(arg, str) else "", salt=next(salt),
                              null_pct=rng.choice((0, 0, 0, 5, 20))))

    # staging models: copies of sources (keys renamed); marts join a staged fact to a staged entity
    copies: dict[tuple[str, str], tuple[str, str]] = {}
    referenced = [r for r in relations if r.role in ("entity", "fact")]
    staged = rng.sample(referenced, min(n_stg, len(referenced)))
    stg_of: dict[str, Rel] = {}
    for src in sorted(staged, key=lambda r: r.name):
        model = Rel(f"stg_{src.name}", "", "staging", src.rows, source=src.name)
        key = src.cols[0]
        refs = [c for c in src.cols[1:] if c.kind in (Kind.REF, Kind.CODE_REF)]
        attrs = [c for c in src.cols[1:] if c.kind not in (Kind.REF, Kind.CODE_REF)][:2]
        for c in [key] + refs + attrs:
            out = c.name
            if c is key and c.name == "id":
                out = f"{entity_of.get(src.name, src.name[:-1])}_id"
            model.select.append((c.name, out))
            model.cols.append(Col(out, c.kind, c.sql_type, c.n, c.prefix, c.enum, c.salt, c.null_pct))
            copies[(model.name, out)] = (src.name, c.name)
        stg_of[src.name] = model
    relations.extend(stg_of[k] for k in sorted(stg_of))
    marts = 0
    by_name = {r.name: r for r in relations}
    planted_from: dict[str, list[Planted]] = {}  # child relation -> its planted joins, in order
    for p in planted:
        planted_from.setdefault(p.child[0], []).append(p)
    for stg in [stg_of[k] for k in sorted(stg_of)]:
        src = by_name[stg.source]
        if src.role != "fact" or marts >= n_mart:
            continue
        for p in planted_from.get(src.name, ()):
            if p.parent[0] not in stg_of or p.kind == "text_int":
                continue  # (a text column = an integer key does not compile on PostgreSQL)
            ent_stg = stg_of[p.parent[0]]
            fk_out = next(o for u, o in stg.select if u == p.child[1])
            key_out = next(o for u, o in ent_stg.select if u == p.parent[1])
            name_col = next((o for u, o in ent_stg.select if o.endswith("_name")), None)
            mart = Rel(f"{src.name}_enriched", "", "mart", src.rows, source=stg.name,
                       join=(stg.name, fk_out, ent_stg.name, key_out))
            key_col = stg.cols[0]
            mart.select = [(key_col.name, key_col.name), (fk_out, fk_out)]
            mart.cols = [key_col, stg.col(fk_out)]
            copies[(mart.name, key_col.name)] = (stg.name, key_col.name)
            copies[(mart.name, fk_out)] = (stg.name, fk_out)
            if name_col:
                mart.select.append((f"e.{name_col}", name_col))
                mart.cols.append(ent_stg.col(name_col))
                copies[(mart.name, name_col)] = (ent_stg.name, name_col)
            relations.append(mart)
            marts += 1
            break
    return Warehouse(size, seed, relations, planted, copies)


def _add_ref(rng: random.Random, rel: Rel, parent: Rel, keys: dict, entity_of: dict, planted: list,
             salt, allow_nameless: bool) -> None:
    key = keys[parent.name]
    ent = entity_of[parent.name]
    names = {c.name for c in rel.cols}
    null_pct = rng.choice((0, 0, 0, 2, 10))
    if key.kind is Kind.CODE:
        if allow_nameless and rng.random() < 0.5:
            name, kind = rng.choice(NAMELESS), "nameless"
        else:
            name, kind = key.name, "code"
        if name in names:
            return
        rel.cols.append(Col(name, Kind.CODE_REF, "VARCHAR", parent.rows, prefix=key.prefix, salt=next(salt),
                            null_pct=null_pct))
    else:
        name = f"{ent}_id"
        if name in names:
            return
        text = rng.random() < 0.12
        kind = "text_int" if text else ("name_exact" if key.name == name else "name_pattern")
        rel.cols.append(Col(name, Kind.REF, "VARCHAR" if text else "BIGINT", parent.rows, salt=next(salt),
                            null_pct=null_pct))
    planted.append(Planted((rel.name, name), (parent.name, key.name), kind))
