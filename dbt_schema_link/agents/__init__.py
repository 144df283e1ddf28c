"""The linker served to agents: tools a text-to-SQL agent calls (find_schema, join_path,
describe_relation, list_links) and their Model Context Protocol server (`dbt-schema-link mcp`).

    tools.py        the four tools over one opened index: argument checks, answers as readable
                    text plus a JSON record (pure: no protocol, no terminal)
    schemas.py      each tool's name, description and input/output JSON schemas
    names.py        relation lookup by model or table name; the closest names when unknown
    evidence.py     links.json entries by column pair, for join hops and list_links
    freshness.py    which input artifacts changed since the index was loaded
    session.py      the opened index, refreshed when the project's artifacts change
    mcp_server.py   the protocol glue on the official `mcp` SDK (stdio); the only module here
                    that imports it

`dbt_schema_link.api.serve_mcp` wires them; the CLI only parses `dbt-schema-link mcp`'s flags.
"""

from dbt_schema_link.agents.schemas import TOOL_SPECS, ToolName, ToolSpec
from dbt_schema_link.agents.session import AgentSession
from dbt_schema_link.agents.tools import AgentTools, ToolError, ToolResult

__all__ = ["AgentSession", "AgentTools", "TOOL_SPECS", "ToolError", "ToolName", "ToolResult", "ToolSpec"]
