"""Business questions on the example dbt project (staging and marts), through `ask` and the MCP
server's `find_schema`, scored against gold columns.

The example `examples/shop` is copied into `--work`, its seeds generated (`--scale`, default 0.1),
then built as a user builds it: `dbt deps`, `dbt build`, `dbt docs generate`, `dbt-schema-link
link` and `index`. Each question names the columns a correct SQL answer reads, on the layer a
person would query (marts where they hold the column, staging where no mart does). Both routes
answer from the same index:

- ask: `open_session(...).ask(question)` (what the CLI's `ask` calls);
- mcp: `dbt-schema-link mcp` over stdio (the official SDK's client), `find_schema` per question.

Printed per route: strict recall (every gold column in the answer), recall, precision, mean
columns, and the questions missed with the gold columns they lack.

    python benchmarks/example_questions.py --work /tmp/example_questions
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from dbt_schema_link.linker import open_session, service  # noqa: E402
from dbt_schema_link.evaluation.harness import dbt_executable  # noqa: E402

EXAMPLE = REPO / "examples" / "shop"

#: (question, gold columns as "model.column")
QUESTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("How many support tickets did each customer open?", ("fct_support_tickets.ticket_id", "fct_support_tickets.customer_id")),
    ("How many orders did each store take per month?", ("fct_orders.order_id", "fct_orders.store_id", "fct_orders.ordered_at")),
    ("Which products have the best average review rating?", ("dim_products.product_name", "dim_products.avg_rating")),
    ("How many active customers are there per country?", ("dim_customers.customer_id", "dim_customers.is_active", "dim_customers.country_name")),
    ("What is the net amount of each order after discounts?", ("fct_orders.order_id", "fct_orders.net_amount")),
    ("Who are our top customers by lifetime gross amount?", ("dim_customers.first_name", "dim_customers.last_name", "dim_customers.lifetime_gross_amount")),
    ("How many units of each product were sold?", ("dim_products.product_name", "dim_products.units_sold")),
    ("What is the average time to close a support ticket per channel?", ("fct_support_tickets.hours_to_close", "fct_support_tickets.channel")),
    ("How many support tickets are still open per priority?", ("fct_support_tickets.ticket_id", "fct_support_tickets.status", "fct_support_tickets.priority")),
    ("Which orders have not shipped yet?", ("fct_orders.order_id", "fct_orders.first_shipped_at")),
    ("How many orders were placed each month?", ("fct_orders.order_id", "fct_orders.ordered_at")),
    ("What is the lifetime gross amount per loyalty tier?", ("dim_customers.loyalty_tier", "dim_customers.lifetime_gross_amount")),
    ("List discontinued products and their unit price", ("dim_products.product_name", "dim_products.is_discontinued", "dim_products.unit_price")),
    ("How many employees work in each department?", ("stg_employees.employee_id", "stg_employees.department")),
    ("Which store types take the most orders?", ("stg_stores.store_type", "stg_stores.store_id", "fct_orders.store_id", "fct_orders.order_id")),
    ("What quantity of each product was ordered per day?", ("fct_order_items.product_id", "fct_order_items.quantity", "fct_order_items.ordered_at")),
    ("List the email of customers who signed up in 2023", ("dim_customers.email", "dim_customers.signup_date")),
    ("How many promotions offer a discount over 20 percent?", ("stg_promotions.promo_id", "stg_promotions.discount_pct")),
    ("Which promotion codes were used on orders?", ("stg_promotions.promo_code", "stg_promotions.promo_id", "fct_orders.promo_id")),
    ("How many shipments did each order need?", ("fct_orders.order_id", "fct_orders.shipment_count")),
    ("Which country has the most stores?", ("stg_stores.store_id", "stg_stores.country_code", "stg_countries.country_code", "stg_countries.country_name")),
    ("When was each order delivered?", ("fct_orders.order_id", "fct_orders.delivered_at")),
    ("What is the gross revenue of each product?", ("dim_products.product_name", "dim_products.gross_revenue")),
)


@dataclass
class Score:
    route: str
    strict: int = 0
    gold: int = 0
    found: int = 0
    predicted: int = 0
    questions: int = 0

    def add(self, gold: set[str], predicted: set[str]) -> set[str]:
        missed = gold - predicted
        self.questions += 1
        self.strict += not missed
        self.gold += len(gold)
        self.found += len(gold & predicted)
        self.predicted += len(predicted)
        return missed

    def line(self) -> str:
        q = max(1, self.questions)
        return (f"{self.route:<6} {self.questions:>3} questions  strict {self.strict / q:.3f}  recall "
                f"{self.found / max(1, self.gold):.3f}  precision {self.found / max(1, self.predicted):.3f}  "
                f"columns {self.predicted / q:.1f}")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    env.update({"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1", "PYTHONPATH": str(REPO)})
    return env


def _run(cmd: list[str], cwd: Path) -> None:
    res = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} failed:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")


def build(work: Path, scale: float, force: bool) -> Path:
    project = work / "shop"
    if not force and (project / "target" / "schema_link" / "links.json").exists():
        return project
    if project.exists():
        shutil.rmtree(project)
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb"))
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n", encoding="utf-8")
    _run([sys.executable, str(project / "generate_seeds.py"), "--out", str(project / "seeds"), "--scale", str(scale),
          "--quiet"], project)
    dbt = dbt_executable()
    for args in (["deps"], ["build"], ["docs", "generate"]):
        log(f"dbt {' '.join(args)}")
        _run([dbt, *args, "--profiles-dir", "."], project)
    log("dbt-schema-link link")
    _run([sys.executable, "-m", "dbt_schema_link", "link", "--project-dir", ".", "--profiles-dir", ".", "--quiet"], project)
    return project


def _columns(answer: dict) -> set[str]:
    return {f"{r['name']}.{c['name']}" for r in answer["relations"] for c in r["columns"]}


def mcp_answers(project: Path, budget: int) -> list[dict]:
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, env=_env(), cwd=str(project),
                                   args=["-m", "dbt_schema_link", "mcp", "--quiet", "--project-dir", ".",
                                         "--profiles-dir", "."])

    async def run() -> list[dict]:
        out = []
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    for question, _ in QUESTIONS:
                        result = await session.call_tool("find_schema", {"question": question, "budget": budget})
                        if result.is_error:
                            raise SystemExit(f"find_schema failed: {result.content[0].text}")
                        out.append(result.structured_content)
        return out

    return anyio.run(run)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", default="/tmp/schema_link_example_questions")
    p.add_argument("--scale", type=float, default=0.1, help="seed size (generate_seeds.py --scale)")
    p.add_argument("--budget", type=int, default=2048)
    p.add_argument("--force", action="store_true", help="build the project again")
    p.add_argument("--no-mcp", action="store_true", help="the ask route only")
    args = p.parse_args(argv)
    project = build(Path(args.work), args.scale, args.force)
    log(service.index([project], notice=log).summary())
    session = open_session([project], budget=args.budget, refresh=False, notice=log)
    known = {f"{r.name}.{c.name}" for r in session.linker.index.corpus.relations
             for c in session.linker.index.corpus.columns[r.col_start:r.col_end]}
    unknown = sorted({g for _, gold in QUESTIONS for g in gold} - known)
    if unknown:
        raise SystemExit(f"gold columns not in the built project: {', '.join(unknown)}")
    routes = [("ask", [session.ask(q).to_dict() for q, _ in QUESTIONS])]
    if not args.no_mcp:
        routes.append(("mcp", mcp_answers(project, args.budget)))
    for route, answers in routes:
        score = Score(route)
        for (question, gold), answer in zip(QUESTIONS, answers):
            missed = score.add(set(gold), _columns(answer))
            if missed:
                print(f"  {route} miss: {question} -- lacks {', '.join(sorted(missed))}")
        print(score.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
