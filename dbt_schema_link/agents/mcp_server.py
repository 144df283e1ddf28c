"""The agent tools as a Model Context Protocol server over stdio, on the official `mcp` SDK's
low-level server (explicit schemas: the tools' JSON schemas are ours, not inferred).

Only protocol frames reach stdout: while serving, the SDK points file descriptor 1 at stderr, so a
stray write from a library lands there; notices go to the `notice` callback. A tool's result is
its readable text plus the structured record; a `ToolError` or any other failure is a tool result
with `isError` and one line of text, never a traceback. Calls run one at a time in a worker thread
(the linker is not re-entrant; the event loop stays free to answer pings).
"""

from __future__ import annotations

from typing import Any, Callable

from dbt_schema_link.agents.tools import AgentTools
from dbt_schema_link.errors import SchemaLinkError

SERVER_NAME = "dbt-schema-link"
INSTRUCTIONS = (
    "Schema linking for a dbt project: call find_schema with the user's question to get the models, "
    "columns and join conditions its SQL needs; join_path for how two relations join; "
    "describe_relation for one relation's columns, values and links; list_links for all links."
)

Notice = Callable[[str], None]


def _import_sdk():
    try:
        import anyio
        import mcp_types
        from mcp.server.lowlevel import Server
        from mcp.server.stdio import stdio_server
    except ModuleNotFoundError as exc:
        raise SchemaLinkError(f"the MCP server needs the `mcp` package ({exc.name} is not installed): "
                              f"pip install 'dbt-schema-link[mcp]'") from None
    return anyio, mcp_types, Server, stdio_server


def require_sdk() -> None:
    """Fail early, with the install line, when the optional `mcp` package is missing."""
    _import_sdk()


def build_server(tools: AgentTools, version: str, notice: Notice):
    """The low-level SDK server answering tools/list and tools/call from `tools`."""
    anyio, types, Server, _ = _import_sdk()
    listed = [types.Tool(name=s.name.value, title=s.title, description=s.description, input_schema=s.input_schema,
                         output_schema=s.output_schema,
                         annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False))
              for s in tools.specs]
    lock = anyio.Lock()

    def error(message: str):
        return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)

    async def list_tools(ctx, params) -> Any:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params) -> Any:
        async with lock:
            try:
                result = await anyio.to_thread.run_sync(tools.call, params.name, params.arguments)
            except SchemaLinkError as exc:
                return error(f"error: {exc}")
            except Exception as exc:  # noqa: BLE001 - a bug must not end the session or leak a traceback
                message = f"internal error in {params.name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                notice(f"error: {message}")
                return error(message)
        return types.CallToolResult(content=[types.TextContent(text=result.text)], structured_content=result.data)

    return Server(SERVER_NAME, version=version, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def serve_stdio(tools: AgentTools, version: str, notice: Notice) -> None:
    """Serve `tools` on this process's stdin/stdout until the client closes stdin."""
    anyio, _, _, stdio_server = _import_sdk()
    server = build_server(tools, version, notice)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
