"""Tools for coding agents, served over the Model Context Protocol (``codequorum mcp``):
check a function against its stored versions, compare versions the agent holds, sample more
versions from the user's endpoint."""
