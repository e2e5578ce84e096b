"""The gateway's deadline for one `tools/call`, the outer of the two limits on a call (docs/calls.md,
"Deadlines"); the inner one, the API's upstream `timeout`, is `config.DEFAULT_TIMEOUT`.

Here, in the ground, so `specbridge serve` can show it without loading the gateway and the MCP SDK.
"""

DEFAULT_DEADLINE = 60.0  # seconds
