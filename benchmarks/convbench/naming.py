"""Naming conventions: every relation and column name of a database rewritten one way.

A name is split into lower-case words (`snake_case`, `CamelCase`, `UPPER`, spaces, digits:
`CustomerID` → customer, id), then each convention builds the new name from the words and from
what the column is (primary key, FK child, declared type). Choices that vary (which abbreviation
rule a word gets, which language, the opaque numbering) come from a seeded hash or a seeded
`random.Random`, never from run-time state, so the same seed gives the same names.

Every convention keeps the names of a relation's columns unique case-insensitively (DuckDB and
the truth compare names without case) by suffixing `_2`, `_3`, ... where two names collide.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from enum import Enum

from fkbench.duckdb_load import sqlite_affinity

from .schema import Schema, Table

DEFAULT_SEED = 13


class Convention(str, Enum):
    ORIGINAL = "original"  # names as the database has them
    TABLE_PREFIXED = "table_prefixed"  # orders.o_customer_id: a prefix abbreviating the table
    GLUED = "glued"  # customerid, orderitems: separators removed
    CAMEL = "camel"  # CustomerID, OrderItems
    UPPER_SNAKE = "upper_snake"  # CUSTOMER_ID, ORDER_ITEMS
    ABBREVIATED = "abbreviated"  # cust_addr_id: column words shortened, tables kept
    KIMBALL = "kimball"  # customer_sk / customer_key, dim_ / fact_ tables
    HUNGARIAN = "hungarian"  # tbl_orders.fk_customer_id, pk_id, int_qty, str_name
    NON_ENGLISH = "non_english"  # German (kunde_nr) or Spanish (id_cliente) words
    OPAQUE = "opaque"  # t_3.col_17: no name says anything
    TPCH = "tpch"  # o_custkey: table prefix + abbreviated words glued + `key` (TPC-H style)
    ROLES = "roles"  # a foreign key named for its role (head, follower_id), not for what it references


#: What `conventions.py` runs unless told otherwise (TPCH combines three of them; opt-in; ROLES
#: renames foreign keys only, so it is run on its own, as the dirt benchmark's variants are).
DEFAULT_CONVENTIONS: tuple[Convention, ...] = tuple(c for c in Convention if c not in (Convention.TPCH,
                                                                                      Convention.ROLES))

_TOKEN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def words(name: str) -> list[str]:
    """`Order Details` → [order, details]; `CustomerID` → [customer, id]; `18_49_Rating` →
    [18, 49, rating]. A name with no letters or digits becomes [x]."""
    return [t.lower() for t in _TOKEN.findall(name)] or ["x"]


def singular(word: str) -> str:
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


#: Role names a foreign key may have instead of its parent's name (`department.head ->
#: physician.employee_id`, `follows.follower -> users.uid`, `flights.origin -> airports.code`):
#: real schemas' words for what the row is to the one it references, by what it references (a
#: row of its own table, a person, anything else). Not the product's lists: some of these it
#: knows as roles, most it does not.
SELF_ROLE_NAMES = ("parent", "supervisor", "lead", "predecessor", "successor", "original")
PERSON_ROLE_NAMES = ("head", "owner", "holder", "sponsor", "handler", "provider", "recipient", "sender",
                     "follower", "followee", "reviewer", "approver", "creator", "author", "assignee", "contact",
                     "host", "guest", "member", "primary")
OTHER_ROLE_NAMES = ("source", "target", "origin", "destination", "home", "primary", "secondary", "subject",
                    "main", "current", "previous", "preferred", "default", "partner")
ROLE_NAMES = frozenset(SELF_ROLE_NAMES + PERSON_ROLE_NAMES + OTHER_ROLE_NAMES)
#: Words of a table of people (the benchmark's own: a person role is drawn for a key to one).
PEOPLE_NOUNS = frozenset({
    "person", "people", "user", "employee", "staff", "student", "customer", "member", "owner", "player",
    "singer", "artist", "visitor", "physician", "doctor", "nurse", "professional", "teacher", "driver",
    "pilot", "manager", "author", "editor", "client", "patient", "musician", "actor", "director", "writer",
    "voter", "candidate", "friend", "highschooler", "poker", "professor", "instructor", "faculty", "host",
})


def role_name(schema_name: str, table: str, column: str, parent_table: str, seed: int = DEFAULT_SEED) -> str:
    """The role a foreign key column is named for, drawn from a seeded hash of the column among the
    words for what it references (its own table, a table of people, anything else), bare or
    with `_id` (`head`, `origin_id`)."""
    h = _hash(seed, "role", schema_name, table, column)
    if parent_table.lower() == table.lower():
        pool = SELF_ROLE_NAMES
    elif any(singular(w) in PEOPLE_NOUNS for w in words(parent_table)):
        pool = PERSON_ROLE_NAMES
    else:
        pool = OTHER_ROLE_NAMES
    word = pool[h % len(pool)]
    return word if (h >> 16) % 2 else f"{word}_id"


def _hash(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


# --- abbreviations by general rules ------------------------------------------------------------
_VOWELS = set("aeiou")


def abbreviate(word: str, seed: int = DEFAULT_SEED) -> str:
    """A word of 5+ letters shortened by one of three common rules, the same rule for the same
    word everywhere: truncation to 4 (customer → cust, address → addr), truncation to 3
    (employee → emp), or first letter + consonant skeleton (number → nmbr)."""
    if len(word) <= 4 or not word.isalpha():
        return word
    rule = _hash(seed, "abbrev", word) % 3
    if rule == 0:
        return word[:4]
    if rule == 1:
        return word[:3]
    skeleton = word[0]
    for ch in word[1:]:
        if ch not in _VOWELS and ch != skeleton[-1]:
            skeleton += ch
    return skeleton[:4] if len(skeleton) >= 3 else word[:4]


# --- another language's words ------------------------------------------------------------------
# Common words of business and catalogue schemas. A word not listed stays as it is (a real
# schema mixes languages the same way). Plurals are formed by the language's suffix below.
GERMAN = {
    "id": "nr", "name": "name", "code": "kode", "date": "datum", "type": "typ", "country": "land",
    "description": "beschreibung", "address": "adresse", "city": "stadt", "course": "kurs",
    "student": "student", "customer": "kunde", "ship": "schiff", "property": "objekt",
    "state": "bundesland", "employee": "mitarbeiter", "year": "jahr", "phone": "telefon", "age": "alter",
    "number": "nummer", "first": "vor", "last": "nach", "title": "titel", "region": "region",
    "singer": "saenger", "price": "preis", "postal": "post", "invoice": "rechnung", "concert": "konzert",
    "birth": "geburt", "email": "email", "company": "firma", "pet": "haustier", "line": "zeile",
    "degree": "abschluss", "billing": "abrechnung", "track": "titelstueck", "unit": "einheit",
    "order": "bestellung", "colour": "farbe", "color": "farbe", "model": "modell", "weight": "gewicht",
    "song": "lied", "document": "dokument", "gender": "geschlecht", "home": "heim", "airport": "flughafen",
    "department": "abteilung", "semester": "semester", "contact": "kontakt", "hero": "held",
    "location": "ort", "full": "voll", "continent": "kontinent", "teacher": "lehrer", "breed": "rasse",
    "charge": "gebuehr", "size": "groesse", "shop": "laden", "museum": "museum", "conductor": "dirigent",
    "performance": "auffuehrung", "rank": "rang", "show": "sendung", "people": "personen", "section": "abschnitt",
    "channel": "kanal", "area": "gebiet", "album": "album", "artist": "kuenstler", "genre": "genre",
    "quantity": "menge", "category": "kategorie", "territory": "gebiet", "product": "produkt",
    "power": "kraft", "publisher": "verlag", "battle": "schlacht", "result": "ergebnis", "car": "auto",
    "maker": "hersteller", "grade": "note", "dog": "hund", "owner": "besitzer", "street": "strasse",
    "airline": "fluggesellschaft", "visitor": "besucher", "total": "gesamt", "level": "stufe",
    "friend": "freund", "player": "spieler", "program": "programm", "language": "sprache",
    "rating": "bewertung", "population": "bevoelkerung", "supplier": "lieferant", "death": "tod",
    "note": "notiz", "amount": "betrag", "cost": "kosten", "manager": "leiter", "flight": "flug",
    "staff": "personal", "visit": "besuch", "ticket": "karte", "start": "beginn", "time": "zeit",
    "sales": "umsatz", "position": "stelle", "vote": "stimme", "head": "leiter", "capital": "hauptstadt",
    "value": "wert", "discount": "rabatt", "freight": "fracht", "stock": "lager", "source": "quelle",
    "count": "anzahl", "role": "rolle", "text": "text", "version": "version", "template": "vorlage",
    "paragraph": "absatz", "feature": "merkmal", "other": "sonstige", "details": "details",
    "attribute": "eigenschaft", "treatment": "behandlung", "episode": "folge", "series": "serie",
    "playlist": "wiedergabeliste", "media": "medien", "employees": "mitarbeiter", "of": "von",
}
SPANISH = {
    "id": "id", "name": "nombre", "code": "codigo", "date": "fecha", "type": "tipo", "country": "pais",
    "description": "descripcion", "address": "direccion", "city": "ciudad", "course": "curso",
    "student": "estudiante", "customer": "cliente", "ship": "barco", "property": "propiedad",
    "state": "estado", "employee": "empleado", "year": "anio", "phone": "telefono", "age": "edad",
    "number": "numero", "first": "primer", "last": "ultimo", "title": "titulo", "region": "region",
    "singer": "cantante", "price": "precio", "postal": "postal", "invoice": "factura", "concert": "concierto",
    "birth": "nacimiento", "email": "correo", "company": "empresa", "pet": "mascota", "line": "linea",
    "degree": "titulacion", "billing": "facturacion", "track": "pista", "unit": "unidad",
    "order": "pedido", "colour": "color", "color": "color", "model": "modelo", "weight": "peso",
    "song": "cancion", "document": "documento", "gender": "genero", "home": "casa", "airport": "aeropuerto",
    "department": "departamento", "semester": "semestre", "contact": "contacto", "hero": "heroe",
    "location": "ubicacion", "full": "completo", "continent": "continente", "teacher": "profesor",
    "breed": "raza", "charge": "cargo", "size": "tamano", "shop": "tienda", "museum": "museo",
    "conductor": "director", "performance": "actuacion", "rank": "rango", "show": "programa",
    "people": "personas", "section": "seccion", "channel": "canal", "area": "zona", "album": "album",
    "artist": "artista", "genre": "estilo", "quantity": "cantidad", "category": "categoria",
    "territory": "territorio", "product": "producto", "power": "poder", "publisher": "editorial",
    "battle": "batalla", "result": "resultado", "car": "coche", "maker": "fabricante", "grade": "nota",
    "dog": "perro", "owner": "dueno", "street": "calle", "airline": "aerolinea", "visitor": "visitante",
    "total": "total", "level": "nivel", "friend": "amigo", "player": "jugador", "program": "plan",
    "language": "idioma", "rating": "valoracion", "population": "poblacion", "supplier": "proveedor",
    "death": "muerte", "note": "nota", "amount": "importe", "cost": "coste", "manager": "gerente",
    "flight": "vuelo", "staff": "personal", "visit": "visita", "ticket": "entrada", "start": "inicio",
    "time": "hora", "sales": "ventas", "position": "puesto", "vote": "voto", "head": "jefe",
    "capital": "capital", "value": "valor", "discount": "descuento", "freight": "flete",
    "stock": "existencias", "source": "origen", "count": "cuenta", "role": "rol", "text": "texto",
    "version": "version", "template": "plantilla", "paragraph": "parrafo", "feature": "caracteristica",
    "other": "otro", "details": "detalles", "attribute": "atributo", "treatment": "tratamiento",
    "episode": "episodio", "series": "serie", "playlist": "lista", "media": "medio", "of": "de",
}
LANGUAGES = {"de": GERMAN, "es": SPANISH}


def translate(word: str, language: str) -> str:
    table = LANGUAGES[language]
    if word in table:
        return table[word]
    base = singular(word)
    if base != word and base in table:  # a plural: the translated word, pluralised
        out = table[base]
        if language == "es":
            return out + ("s" if out[-1] in "aeiou" else "es")
        return out if out.endswith(("er", "en", "el")) else out + ("n" if out.endswith("e") else "en")
    return word


def language_of(db_name: str, seed: int = DEFAULT_SEED) -> str:
    return sorted(LANGUAGES)[_hash(seed, "language", db_name) % len(LANGUAGES)]


# --- the renaming ------------------------------------------------------------------------------
@dataclass
class Renaming:
    """Original names → new names for one database under one convention."""

    convention: Convention
    tables: dict[str, str] = field(default_factory=dict)  # original table → new table
    columns: dict[tuple[str, str], str] = field(default_factory=dict)  # (original table, column) → new column
    notes: dict[str, str] = field(default_factory=dict)  # e.g. {"language": "de"}

    def column(self, table: str, column: str) -> tuple[str, str]:
        """(new table, new column) of an original column."""
        return self.tables[table], self.columns[(table, column)]

    def to_dict(self) -> dict:
        return {"convention": self.convention.value, "notes": self.notes, "tables": self.tables,
                "columns": [[t, c, self.tables[t], new] for (t, c), new in self.columns.items()]}


def _snake(ws: list[str]) -> str:
    return "_".join(ws)


def _pascal(ws: list[str]) -> str:
    return "".join(w.upper() if w == "id" else w.capitalize() for w in ws)


def _dedupe(names: list[str], separator: str) -> list[str]:
    """Suffix 2, 3, ... to later names that equal an earlier one case-insensitively."""
    seen: set[str] = set()
    out = []
    for name in names:
        candidate, n = name or "x", 1
        while candidate.lower() in seen:
            n += 1
            candidate = f"{name}{separator}{n}"
        seen.add(candidate.lower())
        out.append(candidate)
    return out


def table_prefixes(schema: Schema) -> dict[str, str]:
    """A short prefix per table that abbreviates its name (initials, then more letters of the
    last word until it is unique in the database): orders → o, order_items → oi, course → co
    beside concert → c."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for table in sorted(schema.tables, key=lambda t: t.name.lower()):
        ws = [w for w in words(table.name) if w.isalpha()] or ["t"]
        initials = "".join(w[0] for w in ws)
        candidates = [initials] + [initials[:-1] + ws[-1][:k] for k in range(2, len(ws[-1]) + 1)]
        prefix = next((c for c in candidates if c not in taken), None)
        n = 2
        while prefix is None or prefix in taken:
            prefix, n = f"{initials}{n}", n + 1
        taken.add(prefix)
        out[table.name] = prefix
    return out


def _key_words(ws: list[str], table: Table, suffix: str) -> list[str]:
    """Kimball-style key words: a trailing `id` becomes `suffix`; a bare `id` is named after
    its table (customers.id → customer_sk)."""
    if ws == ["id"]:
        return [singular(w) for w in words(table.name)][-2:] + [suffix]
    if len(ws) > 1 and ws[-1] == "id":
        return ws[:-1] + [suffix]
    return ws


def _type_prefix(declared: str) -> str:
    affinity = sqlite_affinity(declared)
    if affinity != "text":
        return {"integer": "int", "real": "dbl"}[affinity]
    t = declared.upper()
    return "dt" if "DATE" in t or "TIME" in t else "str"


def rename(schema: Schema, convention: Convention, seed: int = DEFAULT_SEED) -> Renaming:
    """The new name of every relation and column of `schema` under `convention`."""
    r = Renaming(convention)
    conv = convention
    prefixes = table_prefixes(schema) if conv in (Convention.TABLE_PREFIXED, Convention.TPCH) else {}
    fk_children = schema.fk_children()
    fk_parents = {(fk.child_table, c): fk.parent_table for fk in schema.foreign_keys for c in fk.child_columns}
    facts = schema.tables_with_fks()
    kimball_suffix = ("sk", "key")[_hash(seed, "kimball", schema.name) % 2]
    language = language_of(schema.name, seed)
    if conv is Convention.KIMBALL:
        r.notes["key_suffix"] = kimball_suffix
    if conv is Convention.NON_ENGLISH:
        r.notes["language"] = language
    rng = random.Random(f"{seed}:{schema.name}:opaque")
    table_numbers = list(range(1, len(schema.tables) + 1))
    column_numbers = list(range(1, sum(len(t.columns) for t in schema.tables) + 1))
    rng.shuffle(table_numbers)
    rng.shuffle(column_numbers)
    next_column = iter(column_numbers)

    def table_name(table: Table, number: int) -> str:
        ws = words(table.name)
        if conv in (Convention.ORIGINAL, Convention.TABLE_PREFIXED, Convention.ABBREVIATED, Convention.TPCH,
                    Convention.ROLES):
            return table.name
        if conv is Convention.GLUED:
            return "".join(ws)
        if conv is Convention.CAMEL:
            return _pascal(ws)
        if conv is Convention.UPPER_SNAKE:
            return _snake(ws).upper()
        if conv is Convention.KIMBALL:
            return ("fact_" if table.name in facts else "dim_") + _snake(ws)
        if conv is Convention.HUNGARIAN:
            return "tbl_" + _snake(ws)
        if conv is Convention.NON_ENGLISH:
            return _translated(ws, language)
        if conv is Convention.OPAQUE:
            return f"t_{number}"
        raise ValueError(conv)

    def column_name(table: Table, column) -> str:
        ws = words(column.name)
        if conv is Convention.ORIGINAL:
            return column.name
        if conv is Convention.TABLE_PREFIXED:
            return f"{prefixes[table.name]}_{_snake(ws)}"
        if conv is Convention.GLUED:
            return "".join(ws)
        if conv is Convention.CAMEL:
            return _pascal(ws)
        if conv is Convention.UPPER_SNAKE:
            return _snake(ws).upper()
        if conv is Convention.ABBREVIATED:
            return _snake([abbreviate(w, seed) for w in ws])
        if conv is Convention.KIMBALL:
            return _snake(_key_words(ws, table, kimball_suffix))
        if conv is Convention.HUNGARIAN:
            role = ("fk" if (table.name, column.name) in fk_children
                    else "pk" if column.pk_position else _type_prefix(column.declared_type))
            return f"{role}_{_snake(ws)}"
        if conv is Convention.NON_ENGLISH:
            return _translated(ws, language)
        if conv is Convention.OPAQUE:
            return f"col_{next(next_column)}"
        if conv is Convention.TPCH:
            return f"{prefixes[table.name]}_" + "".join(abbreviate(w, seed) for w in _key_words(ws, table, "key"))
        if conv is Convention.ROLES:
            parent = fk_parents.get((table.name, column.name))
            return column.name if parent is None else role_name(schema.name, table.name, column.name, parent, seed)
        raise ValueError(conv)

    new_tables = _dedupe([table_name(t, n) for t, n in zip(schema.tables, table_numbers)],
                         "" if conv in (Convention.GLUED, Convention.CAMEL) else "_")
    for table, new_table in zip(schema.tables, new_tables):
        r.tables[table.name] = new_table
        new_columns = _dedupe([column_name(table, c) for c in table.columns],
                              "" if conv in (Convention.GLUED, Convention.CAMEL) else "_")
        for column, new in zip(table.columns, new_columns):
            r.columns[(table.name, column.name)] = new
    return r


def _translated(ws: list[str], language: str) -> str:
    out = [translate(w, language) for w in ws]
    if language == "es" and len(out) > 1:  # Spanish puts the head word first: id_cliente
        out = out[::-1]
    return _snake(out)
