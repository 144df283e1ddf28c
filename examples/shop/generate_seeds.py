#!/usr/bin/env python3
"""Generate the CSV seeds of the `shop` example warehouse.

    python examples/shop/generate_seeds.py [--out DIR] [--scale FLOAT]

Standard library only and fully deterministic: one ``random.Random(42)`` drives
everything, so the same arguments always give byte-identical files. ``--scale``
multiplies the size of the growing tables (customers, products, orders and what
hangs off them); the reference tables (countries, stores, employees, categories,
promotions) have a fixed size. Default scale 1.0 gives ~20k orders and ~50k order
items (about 5 MB of CSV); ``--scale 0.1`` is the small fixture used by fast tests.

The data plants the joins and traps that ``expected_links.json`` and README.md
describe; change the generator and those two files together.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent

START = dt.datetime(2022, 1, 1)  # first order
END = dt.datetime(2024, 6, 30, 23, 59, 59)  # data extract time
WINDOW_S = int((END - START).total_seconds())

ORDER_ID_BASE = 100000  # order numbers are 100001, 100002, ...
EMPLOYEE_ID_BASE = 9000  # employee ids are 9001 .. 9060

# --------------------------------------------------------------------------- helpers


def ts(value: dt.datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


def day(value: dt.date | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d")


def flag(value: bool) -> str:
    return "true" if value else "false"


def money(value: float) -> str:
    return f"{value:.2f}"


def opt(value) -> str:
    return "" if value is None else str(value)


class Picker:
    """Weighted choice with precomputed cumulative weights (deterministic)."""

    def __init__(self, rng: random.Random, items, weights):
        self.rng = rng
        self.items = list(items)
        self.cum = []
        total = 0.0
        for w in weights:
            total += w
            self.cum.append(total)

    def __call__(self):
        return self.rng.choices(self.items, cum_weights=self.cum)[0]


def zipf_weights(n: int, a: float, offset: int = 0) -> list[float]:
    """Zipf-Mandelbrot weights: rank i gets 1 / (i + 1 + offset) ** a."""
    return [1.0 / (i + 1 + offset) ** a for i in range(n)]


def shuffled(rng: random.Random, items) -> list:
    items = list(items)
    rng.shuffle(items)
    return items


def at_least(n: int, minimum: int) -> int:
    return max(minimum, n)


# --------------------------------------------------------------------------- vocabularies

COUNTRIES = [
    # code, name, continent, currency, customer weight (0 = no customers)
    ("US", "United States", "North America", "USD", 35),
    ("CA", "Canada", "North America", "CAD", 7),
    ("MX", "Mexico", "North America", "MXN", 0),
    ("BR", "Brazil", "South America", "BRL", 0),
    ("GB", "United Kingdom", "Europe", "GBP", 12),
    ("IE", "Ireland", "Europe", "EUR", 2),
    ("DE", "Germany", "Europe", "EUR", 15),
    ("FR", "France", "Europe", "EUR", 8),
    ("ES", "Spain", "Europe", "EUR", 5),
    ("IT", "Italy", "Europe", "EUR", 4),
    ("NL", "Netherlands", "Europe", "EUR", 5),
    ("SE", "Sweden", "Europe", "SEK", 3),
    ("PL", "Poland", "Europe", "PLN", 3),
    ("JP", "Japan", "Asia", "JPY", 0),
    ("AU", "Australia", "Oceania", "AUD", 1),
]

# store_id is the position + 1. region_code is a plain integer 1..8 (sales region
# numbering of the finance team, no table of its own).
STORES = [
    # name, city, country, type, region_code, opened_on
    ("Brooklyn Flagship", "New York", "US", "retail", 1, dt.date(2019, 3, 1)),
    ("Austin Domain", "Austin", "US", "retail", 2, dt.date(2020, 6, 15)),
    ("Seattle Pike", "Seattle", "US", "retail", 3, dt.date(2021, 4, 9)),
    ("Toronto Queen St", "Toronto", "CA", "retail", 3, dt.date(2021, 9, 1)),
    ("London Soho", "London", "GB", "retail", 4, dt.date(2020, 2, 20)),
    ("Berlin Mitte", "Berlin", "DE", "retail", 5, dt.date(2019, 11, 2)),
    ("Munich Outlet", "Munich", "DE", "outlet", 5, dt.date(2022, 5, 5)),
    ("Paris Marais", "Paris", "FR", "retail", 6, dt.date(2021, 10, 10)),
    ("Amsterdam Jordaan", "Amsterdam", "NL", "retail", 7, dt.date(2022, 3, 3)),
    ("Madrid Salamanca", "Madrid", "ES", "retail", 8, dt.date(2024, 9, 1)),  # not open yet
    ("Web Store US", "Online", "US", "online", 1, dt.date(2018, 1, 1)),
    ("Web Store EU", "Online", "IE", "online", 4, dt.date(2019, 1, 1)),
]
ONLINE_STORES = [11, 12]
STAFFED_STORES = list(range(1, 10))  # store 10 is not open yet: no staff, no orders

CATEGORIES = {
    # top level: children
    "Electronics": ["Headphones", "Chargers & Cables", "Smart Home", "Cameras"],
    "Home & Kitchen": ["Cookware", "Coffee & Tea", "Bedding", "Storage"],
    "Outdoors": ["Camping", "Cycling", "Garden", "Running"],
    "Fashion": ["Shoes", "Bags", "Jackets", "Accessories"],
    "Toys & Games": ["Board Games", "Puzzles", "Building Sets", "Plush"],
    "Beauty": ["Skincare", "Hair Care", "Fragrance", "Bath"],
}
# leaf categories that exist in the catalogue tree but hold no product (yet)
EMPTY_CATEGORIES = {"Plush", "Fragrance", "Cameras"}

PRODUCT_NOUNS = {
    "Headphones": ["Earbuds", "Headphones", "Headset", "Earphones"],
    "Chargers & Cables": ["USB-C Cable", "Wall Charger", "Power Bank", "Charging Pad"],
    "Smart Home": ["Smart Plug", "Smart Bulb", "Door Sensor", "Thermostat"],
    "Cookware": ["Skillet", "Saucepan", "Dutch Oven", "Wok"],
    "Coffee & Tea": ["French Press", "Pour-Over Kettle", "Grinder", "Tea Tin"],
    "Bedding": ["Duvet", "Pillow", "Sheet Set", "Throw Blanket"],
    "Storage": ["Storage Box", "Jar Set", "Shelf Basket", "Drawer Organizer"],
    "Camping": ["Tent", "Sleeping Bag", "Camp Stove", "Lantern"],
    "Cycling": ["Bike Light", "Bike Lock", "Saddle Bag", "Helmet"],
    "Garden": ["Trowel", "Watering Can", "Planter", "Pruning Shears"],
    "Running": ["Running Vest", "Water Bottle", "Armband", "Running Cap"],
    "Shoes": ["Sneakers", "Boots", "Sandals", "Loafers"],
    "Bags": ["Backpack", "Tote Bag", "Duffel", "Crossbody Bag"],
    "Jackets": ["Rain Jacket", "Puffer Jacket", "Fleece", "Windbreaker"],
    "Accessories": ["Scarf", "Beanie", "Wallet", "Sunglasses"],
    "Board Games": ["Strategy Game", "Party Game", "Card Game", "Trivia Game"],
    "Puzzles": ["Jigsaw Puzzle", "Puzzle Cube", "Brain Teaser", "3D Puzzle"],
    "Building Sets": ["Brick Set", "Marble Run", "Robot Kit", "Train Set"],
    "Skincare": ["Face Cream", "Serum", "Cleanser", "Sunscreen"],
    "Hair Care": ["Shampoo", "Conditioner", "Hair Oil", "Hair Brush"],
    "Bath": ["Bath Salts", "Body Wash", "Bath Towel", "Bath Bomb Set"],
}
PRODUCT_ADJECTIVES = [
    "Classic", "Nordic", "Urban", "Trail", "Everyday", "Compact", "Deluxe", "Eco",
    "Pro", "Vintage", "Coastal", "Alpine", "Studio", "Wild", "Soft", "Rapid",
    "Summit", "Harbor", "Cedar", "Lunar", "Copper", "Velvet", "Granite", "Meadow",
]
PRODUCT_VARIANTS = ["", "", "", " Mini", " XL", " 2.0", " Plus", " Lite", " Duo"]

FIRST_NAMES = [
    "Emma", "Liam", "Olivia", "Noah", "Ava", "Elijah", "Sophia", "Lucas", "Mia", "Mateo",
    "Amelia", "Leon", "Hannah", "Finn", "Lena", "Jonas", "Chloe", "Hugo", "Alice", "Louis",
    "Lucia", "Pablo", "Giulia", "Marco", "Freja", "Oskar", "Zofia", "Jakub", "Aoife", "Sean",
    "Grace", "Jack", "Isla", "Harry", "Chen", "Priya", "Arjun", "Fatima", "Omar", "Yuki",
    "Sara", "David", "Laura", "Daniel", "Julia", "Samuel", "Nora", "Adam", "Ella", "Max",
]
LAST_NAMES = [
    "Smith", "Johnson", "Brown", "Garcia", "Miller", "Davis", "Martinez", "Wilson", "Taylor",
    "Anderson", "Thomas", "Moore", "Martin", "Jackson", "White", "Harris", "Clark", "Lewis",
    "Mueller", "Schmidt", "Schneider", "Fischer", "Weber", "Wagner", "Becker", "Dubois",
    "Lefebvre", "Moreau", "Rossi", "Russo", "Ferrari", "Lopez", "Gonzalez", "Fernandez",
    "de Vries", "Jansen", "Bakker", "Andersson", "Johansson", "Nowak", "Kowalski", "Murphy",
    "Kelly", "O'Brien", "Walsh", "Patel", "Singh", "Nguyen", "Kim", "Tanaka",
]
EMAIL_DOMAINS = ["example.com", "mail.example", "inbox.example", "post.example"]

# Short complaint phrases. Every one of them is used verbatim as a one-line review (about 5%
# of reviews) and the support-ticket subjects are drawn from them: the "free text" trap
# (all subject values occur in the near-unique review_text column, yet there is no join).
SHORT_PHRASES = [
    "Arrived damaged", "Wrong size", "Wrong colour", "Missing parts", "Stopped working",
    "Late delivery", "Package never arrived", "Not as described", "Broke after a week",
    "Charged twice", "Cannot log in", "Refund not received", "Item missing from box",
    "Poor quality", "Too small", "Too big", "Battery drains fast", "Smells strange",
    "Instructions missing", "Damaged packaging", "Scratched on arrival", "Leaks",
    "Does not fit", "Wrong item sent", "Colour faded", "Zip broke", "Loud noise",
    "Discount code not applied", "Cancel my order", "Change delivery address",
    "Invoice request", "Return label needed", "Warranty question", "Size exchange",
    "Gift wrap missing", "Order stuck in processing", "Tracking not updating",
    "Duplicate order", "Account email change", "Newsletter unsubscribe",
]
REVIEW_OPENERS_GOOD = [
    "Really happy with this purchase.", "Exactly what I needed.", "Solid value for the money.",
    "Better than expected.", "Love it!", "Bought this as a gift.", "Second time buying this.",
    "Works as advertised.", "Five stars from me.", "Surprisingly good quality.",
    "My kids love it.", "Great design.", "Perfect for daily use.",
]
REVIEW_OPENERS_MEH = [
    "Not bad, not great.", "A bit disappointed.", "Mixed feelings about this one.",
    "Would not recommend.", "Decent but overpriced.", "Took a while to arrive.", "Feels cheap.",
]
REVIEW_MIDDLES = [
    "The {n} feels sturdy", "Setup took five minutes", "The colour is slightly off",
    "It survived a week of heavy use", "The packaging was excessive",
    "Instructions were clear", "It is lighter than it looks", "The finish scratches easily",
    "Size runs small", "Size runs large", "The {n} looks premium",
    "Customer service helped quickly", "It replaced my old {n}", "Battery life is fine",
    "It is quieter than my last one", "The material is soft", "Cleaning is easy",
    "It wobbles a little", "Delivery was fast", "The {n} arrived well packed",
    "Fits perfectly", "Much smaller than the photos", "Smells like plastic at first",
    "It does the job", "It already shows wear",
]
REVIEW_CLOSERS = [
    "Would buy again.", "Returning it.", "Recommended.", "Gave one to my sister too.",
    "Happy overall.", "Not worth the price.", "Keeping it.", "Will update after a month.",
    "Good enough.", "Best purchase this year.", "", "",
]
CARRIERS = [("UPS", 30), ("DHL", 25), ("FedEx", 15), ("USPS", 20), ("GLS", 10)]
PROMO_NAMES = [
    ("WELCOME10", "Welcome discount", 10), ("SPRING22", "Spring sale 2022", 15),
    ("SUMMER22", "Summer sale 2022", 20), ("BTS22", "Back to school 2022", 10),
    ("BF22", "Black Friday 2022", 30), ("XMAS22", "Holiday 2022", 15),
    ("NY23", "New year 2023", 10), ("SPRING23", "Spring sale 2023", 15),
    ("MOM23", "Mother's day 2023", 10), ("SUMMER23", "Summer sale 2023", 20),
    ("BTS23", "Back to school 2023", 10), ("HALLO23", "Halloween 2023", 12),
    ("BF23", "Black Friday 2023", 30), ("XMAS23", "Holiday 2023", 15),
    ("NY24", "New year 2024", 10), ("SPRING24", "Spring sale 2024", 15),
    ("SUMMER24", "Summer sale 2024", 20), ("BTS24", "Back to school 2024", 10),
    ("BF24", "Black Friday 2024", 30), ("XMAS24", "Holiday 2024", 15),
]
PROMO_WINDOWS = [  # (start, days) per promo; promo 1 is open-ended (no end date)
    (dt.date(2022, 1, 1), None), (dt.date(2022, 3, 20), 21), (dt.date(2022, 6, 21), 30),
    (dt.date(2022, 8, 15), 21), (dt.date(2022, 11, 25), 4), (dt.date(2022, 12, 1), 24),
    (dt.date(2023, 1, 1), 10), (dt.date(2023, 3, 20), 21), (dt.date(2023, 5, 1), 14),
    (dt.date(2023, 6, 21), 30), (dt.date(2023, 8, 15), 21), (dt.date(2023, 10, 20), 11),
    (dt.date(2023, 11, 24), 4), (dt.date(2023, 12, 1), 24), (dt.date(2024, 1, 1), 10),
    (dt.date(2024, 3, 20), 21),
    # the last four start after the extract date: no order uses them
    (dt.date(2024, 7, 1), 30), (dt.date(2024, 8, 15), 21), (dt.date(2024, 11, 29), 4),
    (dt.date(2024, 12, 1), 24),
]

# --------------------------------------------------------------------------- tables


def rand_time(rng: random.Random, lo: dt.datetime, hi: dt.datetime, growth: bool = False):
    """Uniform (or linearly growing density when ``growth``) timestamp in [lo, hi]."""
    span = max(0, int((hi - lo).total_seconds()))
    u = rng.random()
    if growth:
        u = u ** 0.5
    return lo + dt.timedelta(seconds=int(u * span))


def postal_code(rng: random.Random, country: str) -> str:
    if country in ("US", "DE", "FR", "ES", "IT", "MX"):
        return f"{rng.randrange(1000, 99999):05d}"  # leading zeros happen
    if country in ("GB", "IE"):
        letters = "ABCDEFGHJKLMNPRSTUWXY"
        return (
            f"{rng.choice(letters)}{rng.choice(letters)}{rng.randrange(1, 20)} "
            f"{rng.randrange(1, 10)}{rng.choice(letters)}{rng.choice(letters)}"
        )
    if country == "CA":
        return f"M{rng.randrange(1, 10)}{rng.choice('ABCEGHJ')} {rng.randrange(1, 10)}A{rng.randrange(1, 10)}"
    if country == "NL":
        return f"{rng.randrange(1000, 9999)} {rng.choice('ABCDEFGH')}{rng.choice('JKLMNPRS')}"
    if country in ("SE", "PL"):
        return f"{rng.randrange(10, 99)}-{rng.randrange(100, 999)}"
    return f"{rng.randrange(1000, 9999):04d}"


def generate(scale: float) -> dict[str, tuple[list[str], list[list[str]]]]:
    rng = random.Random(42)
    tables: dict[str, tuple[list[str], list[list[str]]]] = {}

    n_customers = at_least(round(5000 * scale), 60)
    n_products = at_least(round(800 * scale), 40)
    n_orders = at_least(round(20000 * scale), 300)
    n_reviews = at_least(round(8000 * scale), 2 * len(SHORT_PHRASES))
    n_tickets = at_least(round(3000 * scale), 100)

    # ---- countries (text natural key) --------------------------------------------------
    tables["raw_countries"] = (
        ["country_code", "country_name", "continent", "currency_code"],
        [[c, n, cont, cur] for c, n, cont, cur, _ in COUNTRIES],
    )

    # ---- stores -----------------------------------------------------------------------
    tables["raw_stores"] = (
        ["store_id", "store_name", "city", "country_code", "store_type", "region_code", "opened_on"],
        [
            [str(i + 1), name, city, country, kind, str(region), day(opened)]
            for i, (name, city, country, kind, region, opened) in enumerate(STORES)
        ],
    )

    # ---- employees (self-referencing manager_id) --------------------------------------
    employees = []  # (id, first, last, department, title, manager_id, store_id, hired_on)
    next_emp = iter(range(EMPLOYEE_ID_BASE + 1, EMPLOYEE_ID_BASE + 1000))

    def hire(dept, title, manager, store, earliest):
        emp_id = next(next_emp)
        hired = earliest + dt.timedelta(days=rng.randrange(0, 700))
        employees.append(
            (emp_id, rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES), dept, title, manager, store, hired)
        )
        return emp_id

    ceo = hire("management", "Chief Executive Officer", None, None, dt.date(2017, 1, 1))
    head_sales = hire("sales", "Head of Retail", ceo, None, dt.date(2017, 6, 1))
    head_support = hire("support", "Head of Customer Care", ceo, None, dt.date(2018, 1, 1))
    head_ops = hire("operations", "Head of Operations", ceo, None, dt.date(2018, 1, 1))
    store_staff: dict[int, list[int]] = {}
    for store_id in STAFFED_STORES:
        opened = STORES[store_id - 1][5]
        mgr = hire("sales", "Store Manager", head_sales, store_id, opened - dt.timedelta(days=200))
        store_staff[store_id] = [mgr]
        for _ in range(3):
            store_staff[store_id].append(hire("sales", "Sales Associate", mgr, store_id, opened))
    support_agents = [
        hire("support", "Support Agent", head_support, None, dt.date(2019, 1, 1)) for _ in range(14)
    ]
    for _ in range(6):
        hire("operations", "Warehouse Associate", head_ops, None, dt.date(2019, 1, 1))
    tables["raw_employees"] = (
        ["employee_id", "first_name", "last_name", "department", "job_title", "manager_id", "store_id", "hired_on"],
        [
            [str(e), f, l, d, t, opt(m), opt(s), day(h)]
            for e, f, l, d, t, m, s, h in employees
        ],
    )

    # ---- customers ----------------------------------------------------------------------
    country_pick = Picker(rng, [c[0] for c in COUNTRIES], [c[4] for c in COUNTRIES])
    tier_pick = Picker(rng, ["bronze", "silver", "gold", "platinum"], [62, 25, 10, 3])
    customers = []  # (id, first, last, email, postal, country, signup, active)
    customer_rows = []
    for cid in range(1, n_customers + 1):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        country = country_pick()
        signup = dt.date(2021, 1, 1) + dt.timedelta(days=int(rng.random() ** 0.8 * 1260))
        local = f"{first}.{last}".lower().replace(" ", "").replace("'", "")
        email = f"{local}{cid}@{rng.choice(EMAIL_DOMAINS)}"
        active = rng.random() < 0.85
        customers.append((cid, signup))
        customer_rows.append(
            [str(cid), first, last, email, postal_code(rng, country), country, day(signup), flag(active), tier_pick()]
        )
    tables["raw_customers"] = (
        ["id", "first_name", "last_name", "email", "postal_code", "country_code", "signup_date", "is_active", "loyalty_tier"],
        customer_rows,
    )

    # ---- categories (self-referencing parent_category_id) -----------------------------
    category_rows = []
    leaf_ids: dict[str, int] = {}
    cid = 0
    parents = {}
    for top in CATEGORIES:
        cid += 1
        parents[top] = cid
        category_rows.append([str(cid), top, "", "1"])
    for top, children in CATEGORIES.items():
        for child in children:
            cid += 1
            leaf_ids[child] = cid
            category_rows.append([str(cid), child, str(parents[top]), "2"])
    tables["raw_categories"] = (["category_id", "category_name", "parent_category_id", "depth"], category_rows)

    # ---- products + bridge product_categories -----------------------------------------
    usable_leaves = [c for c in leaf_ids if c not in EMPTY_CATEGORIES]
    leaf_pick = Picker(rng, usable_leaves, zipf_weights(len(usable_leaves), 0.5))
    n_cats_pick = Picker(rng, [1, 2, 3], [60, 30, 10])
    product_rows, bridge_rows = [], []
    product_price: dict[int, float] = {}
    discontinued: set[int] = set()
    seen_names: set[str] = set()
    for pid in range(1, n_products + 1):
        main_leaf = leaf_pick()
        for _attempt in range(20):  # prefer unused names; duplicates are allowed after that
            name = (
                f"{rng.choice(PRODUCT_ADJECTIVES)} {rng.choice(PRODUCT_NOUNS[main_leaf])}"
                f"{rng.choice(PRODUCT_VARIANTS)}"
            )
            if name not in seen_names:
                break
        seen_names.add(name)
        price = round(min(400.0, 4.0 + rng.random() ** 2.2 * 260 + rng.random() * 6), 2)
        price = float(int(price)) + rng.choice([0.99, 0.49, 0.0, 0.95])
        is_disc = rng.random() < 0.12
        if is_disc:
            discontinued.add(pid)
        product_price[pid] = price
        created = START - dt.timedelta(days=200) + dt.timedelta(days=rng.randrange(0, 850))
        product_rows.append(
            [str(pid), name, f"SKU-{pid * 7 + 10000:06d}", money(price), flag(is_disc), day(created)]
        )
        cats = [leaf_ids[main_leaf]]
        for _ in range(n_cats_pick() - 1):
            extra = leaf_ids[leaf_pick()]
            if extra not in cats:
                cats.append(extra)
        for c in cats:
            bridge_rows.append([str(pid), str(c)])
    tables["raw_products"] = (
        ["id", "product_name", "sku", "unit_price", "is_discontinued", "created_on"],
        product_rows,
    )
    tables["raw_product_categories"] = (["product_id", "category_id"], bridge_rows)

    # ---- promotions ---------------------------------------------------------------------
    promo_rows = []
    for i, ((code, name, pct), (start, days)) in enumerate(zip(PROMO_NAMES, PROMO_WINDOWS)):
        promo_rows.append(
            [
                str(i + 1), code, name, str(pct), day(start),
                day(None if days is None else start + dt.timedelta(days=days - 1)),
            ]
        )
    tables["raw_promotions"] = (
        ["promo_id", "promo_code", "promo_name", "discount_pct", "starts_on", "ends_on"],
        promo_rows,
    )

    # ---- orders -------------------------------------------------------------------------
    # ~72% of customers ever order; order frequency is heavily skewed.
    buyers = shuffled(rng, [c for c in customers])[: int(len(customers) * 0.72)]
    buyer_pick = Picker(rng, buyers, zipf_weights(len(buyers), 1.0, offset=50))
    physical = [s for s in STAFFED_STORES]
    store_pick = Picker(
        rng, ONLINE_STORES + physical, [34, 22] + [w * 44 for w in normalise(zipf_weights(len(physical), 0.9))]
    )
    raw_orders = []  # (ordered_at, customer_id, store_id, assigned_to, promo_id, status)
    recent = END - dt.timedelta(days=30)
    for _ in range(n_orders):
        cust_id, signup = buyer_pick()
        store_id = store_pick()
        lo = max(START, dt.datetime.combine(signup, dt.time()), _store_open(store_id))
        if lo >= END:
            lo = END - dt.timedelta(days=1)
        ordered_at = rand_time(rng, lo, END, growth=True)
        if store_id in ONLINE_STORES:
            staff = support_agents
        else:
            staff = store_staff[store_id]
        assigned = None if rng.random() < 0.05 else rng.choice(staff)
        promo = None
        if rng.random() < 0.15:
            active = [
                i + 1
                for i, (start, days) in enumerate(PROMO_WINDOWS)
                if start <= ordered_at.date() and (days is None or ordered_at.date() < start + dt.timedelta(days=days))
            ]
            seasonal = [p for p in active if p != 1]
            promo = rng.choice(seasonal) if seasonal and rng.random() < 0.7 else 1
        if ordered_at >= recent:
            status = pick_once(rng, ["pending", "open", "shipped", "cancelled"], [20, 30, 44, 6])
        else:
            status = pick_once(rng, ["closed", "cancelled", "shipped"], [90, 9, 1])
        raw_orders.append((ordered_at, cust_id, store_id, assigned, promo, status))
    raw_orders.sort(key=lambda o: (o[0], o[1]))
    order_rows = []
    orders = []  # (order_id, ordered_at, customer_id, status)
    for i, (ordered_at, cust_id, store_id, assigned, promo, status) in enumerate(raw_orders):
        oid = ORDER_ID_BASE + i + 1
        orders.append((oid, ordered_at, cust_id, status, promo))
        order_rows.append(
            [str(oid), str(cust_id), str(store_id), opt(assigned), opt(promo), ts(ordered_at), status]
        )
    tables["raw_orders"] = (
        ["id", "customer_id", "store_id", "assigned_to", "promo_id", "ordered_at", "status"],
        order_rows,
    )

    # ---- order items ----------------------------------------------------------------------
    # ~8% of products are never sold; popularity is Zipf-like.
    sellable = shuffled(rng, range(1, n_products + 1))[: int(n_products * 0.92)]
    product_pick = Picker(rng, sellable, zipf_weights(len(sellable), 0.8, offset=10))
    n_items_pick = Picker(rng, [1, 2, 3, 4, 5, 6], [30, 28, 18, 12, 7, 5])
    qty_pick = Picker(rng, [1, 2, 3, 4, 5], [70, 18, 7, 3, 2])
    item_rows = []
    items_by_order: dict[int, list[int]] = {}
    for oid, ordered_at, cust_id, status, promo in orders:
        chosen: list[int] = []
        for _ in range(n_items_pick()):
            pid = product_pick()
            if pid not in chosen:
                chosen.append(pid)
        items_by_order[oid] = chosen
        for pid in chosen:
            price = product_price[pid]
            if rng.random() < 0.06:  # marked down at the till
                price = round(price * 0.8, 2)
            item_rows.append([str(len(item_rows) + 1), str(oid), str(pid), str(qty_pick()), money(price)])
    tables["raw_order_items"] = (
        ["order_item_id", "order_id", "product_id", "quantity", "unit_price"],
        item_rows,
    )

    # ---- shipments (order_ref is text) ------------------------------------------------------
    carrier_pick = Picker(rng, [c for c, _ in CARRIERS], [w for _, w in CARRIERS])
    shipments = []
    for oid, ordered_at, cust_id, status, promo in orders:
        if status not in ("shipped", "closed"):
            continue
        parts = 2 if rng.random() < 0.07 and len(items_by_order[oid]) > 1 else 1
        for _ in range(parts):
            shipped = ordered_at + dt.timedelta(hours=rng.randrange(4, 96))
            if shipped > END:
                shipped = END - dt.timedelta(minutes=rng.randrange(1, 600))
            delivered = None
            if status == "closed":
                delivered = shipped + dt.timedelta(hours=rng.randrange(18, 240))
                if delivered > END:
                    delivered = None
            carrier = carrier_pick()
            shipments.append((shipped, oid, carrier, delivered))
    shipments.sort(key=lambda s: (s[0], s[1]))
    shipment_rows = []
    for i, (shipped, oid, carrier, delivered) in enumerate(shipments):
        shipment_rows.append(
            [str(i + 1), str(oid), carrier, tracking(rng, carrier), ts(shipped), ts(delivered)]
        )
    tables["raw_shipments"] = (
        ["shipment_id", "order_ref", "carrier", "tracking_number", "shipped_at", "delivered_at"],
        shipment_rows,
    )

    # ---- reviews (near-unique free text) ----------------------------------------------------
    reviewable = [(oid, at, cust) for oid, at, cust, status, _ in orders if status == "closed"]
    rating_pick = Picker(rng, [5, 4, 3, 2, 1], [45, 25, 12, 8, 10])
    n_short = max(len(SHORT_PHRASES), round(n_reviews * 0.05))
    short_slots = set(shuffled(rng, range(n_reviews))[:n_short])
    phrase_cycle = iter(shuffled(rng, SHORT_PHRASES))
    review_rows = []
    reviewed: set[tuple[int, int]] = set()
    for rid in range(1, n_reviews + 1):
        while True:
            oid, at, cust = rng.choice(reviewable)
            pid = rng.choice(items_by_order[oid])
            if (cust, pid) not in reviewed:
                break
        reviewed.add((cust, pid))
        rating = rating_pick()
        if rid - 1 in short_slots:
            text = next(phrase_cycle, None) or rng.choice(SHORT_PHRASES)
            rating = min(rating, 2)
        else:
            noun = PRODUCT_NOUNS_FLAT[pid % len(PRODUCT_NOUNS_FLAT)].lower()
            text = " ".join(
                part
                for part in (
                    rng.choice(REVIEW_OPENERS_GOOD if rating >= 4 else REVIEW_OPENERS_MEH),
                    rng.choice(REVIEW_MIDDLES).format(n=noun) + ".",
                    rng.choice(REVIEW_MIDDLES).format(n=noun) + ".",
                    rng.choice(REVIEW_CLOSERS),
                )
                if part
            )
        created = min(END, at + dt.timedelta(days=rng.randrange(3, 45), minutes=rng.randrange(0, 1440)))
        review_rows.append([str(rid), str(pid), str(cust), str(rating), text, ts(created)])
    tables["raw_reviews"] = (
        ["review_id", "product_id", "customer_id", "rating", "review_text", "created_at"],
        review_rows,
    )

    # ---- support tickets (opened_by = customer id) ----------------------------------------
    channel_pick = Picker(rng, ["email", "chat", "phone"], [50, 35, 15])
    priority_pick = Picker(rng, ["low", "normal", "high"], [25, 60, 15])
    subject_pick = Picker(rng, SHORT_PHRASES, zipf_weights(len(SHORT_PHRASES), 0.6))
    ticket_rows = []
    tickets = []
    for _ in range(n_tickets):
        if rng.random() < 0.65:
            oid, at, cust, status, _ = rng.choice(orders)
            opened = min(END, at + dt.timedelta(hours=rng.randrange(1, 24 * 40)))
            order_ref = oid
        else:  # account questions: any customer, also ones who never ordered
            cust, signup = rng.choice(customers)
            opened = rand_time(rng, max(START, dt.datetime.combine(signup, dt.time())), END)
            order_ref = None
        subject = subject_pick()
        tickets.append((opened, cust, order_ref, subject))
    tickets.sort(key=lambda t: (t[0], t[1]))
    for i, (opened, cust, order_ref, subject) in enumerate(tickets):
        if opened >= END - dt.timedelta(days=10):
            status = pick_once(rng, ["open", "pending", "closed"], [50, 30, 20])
        else:
            status = pick_once(rng, ["closed", "pending", "open"], [94, 4, 2])
        closed = None
        if status == "closed":
            closed = min(END, opened + dt.timedelta(minutes=rng.randrange(10, 60 * 24 * 6)))
        ticket_rows.append(
            [
                str(i + 1), str(cust), opt(order_ref), subject, channel_pick(), priority_pick(),
                status, ts(opened), ts(closed),
            ]
        )
    tables["raw_support_tickets"] = (
        ["ticket_id", "opened_by", "order_id", "subject", "channel", "priority", "status", "opened_at", "closed_at"],
        ticket_rows,
    )
    return tables


PRODUCT_NOUNS_FLAT = [n for nouns in PRODUCT_NOUNS.values() for n in nouns]


def normalise(weights: list[float]) -> list[float]:
    total = sum(weights)
    return [w / total for w in weights]


def pick_once(rng: random.Random, items, weights):
    """One weighted choice (weights differ per call site)."""
    return rng.choices(items, weights=weights)[0]


def _store_open(store_id: int) -> dt.datetime:
    return dt.datetime.combine(STORES[store_id - 1][5], dt.time())


def tracking(rng: random.Random, carrier: str) -> str:
    digits = "".join(str(rng.randrange(10)) for _ in range(12))
    if carrier == "UPS":
        return "1Z" + digits[:6] + "A" + digits[6:]
    if carrier == "USPS":
        return "9400" + digits + digits[:6]  # long pure-digit string: must stay text
    if carrier == "DHL":
        return "JD" + digits[:10]
    if carrier == "GLS":
        return digits[:11]
    return digits


# --------------------------------------------------------------------------- output


def write_tables(tables, out: Path) -> list[tuple[str, int, int]]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in sorted(tables):
        header, rows = tables[name]
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        data = buf.getvalue().encode("utf-8")
        (out / f"{name}.csv").write_bytes(data)
        written.append((name, len(rows), len(data)))
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "seeds", help="output folder (default: seeds/ next to this script)")
    parser.add_argument("--scale", type=float, default=1.0, help="size multiplier (default 1.0; 0.1 for fast tests)")
    parser.add_argument("--quiet", action="store_true", help="do not print the table summary")
    args = parser.parse_args(argv)
    if args.scale <= 0:
        parser.error("--scale must be > 0")
    written = write_tables(generate(args.scale), args.out)
    if not args.quiet:
        total = 0
        for name, n, size in written:
            total += size
            print(f"{name:<24} {n:>7} rows {size:>9} bytes")
        print(f"{'total':<24} {sum(n for _, n, _ in written):>7} rows {total:>9} bytes -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
