"""The names the MCP server serves, known without importing the mcp package
(the CLI's help and ``--print-config`` use them)."""

from __future__ import annotations

#: every tool of ``uac serve mcp``, in the order the server registers them
TOOLS = (
    "search_memory",
    "ask",
    "run_python",
    "read_manifest",
    "read_domain",
    "add_session",
    "compile",
    "correct_memory",
    "memory_changes",
)
#: its resource templates
RESOURCES = ("uac://{project}/manifest",)
