"""Serving a workspace of user projects over the network: HTTP and MCP.

Both servers are thin adapters over :class:`uac.UserMemory`: they resolve a
project under a root directory, check the caller's bearer token, call one
library method and translate its result (or its :class:`~uac.errors.UacError`)
into the protocol's shape.  FastAPI/uvicorn (``user-as-code[server]``) and the ``mcp``
package (``user-as-code[mcp]``) are imported only when a server is built.
"""
