"""The order_desk editor as a Python developer would write it with the
official SDK's high-level server (MCPServer, formerly FastMCP): the same
app://windows read and the same edit_field call with an expectedVersion
check, for a same-work comparison with Purview.

    python order_desk_server.py      # MCP on stdio
"""

import json
import logging

from mcp.server import MCPServer

logging.disable(logging.WARNING)

server = MCPServer("order_desk_python")
state = {"version": 1, "recipient": "", "amount": "$100.00"}


def snapshot() -> str:
    missing = 1 if not state["recipient"] else 0
    blocks = [
        {"type": "text", "id": "heading", "text": "Order #12345"},
        {
            "type": "fields",
            "id": "fields",
            "items": [
                {"label": "Recipient", "value": state["recipient"]},
                {"label": "Amount", "value": state["amount"]},
                {"label": "Payment password", "value": "••••••", "sensitive": True},
            ],
        },
        {"type": "table", "id": "items", "columns": ["Product", "Quantity"], "rows": [["A", 2], ["B", 1]]},
    ]
    if not state["recipient"]:
        blocks.append({"type": "notice", "id": "recipient_error", "severity": "error", "text": "Recipient cannot be empty"})
    window = {
        "id": "w1",
        "title": "Order Editor",
        "modal": False,
        "ownerId": None,
        "version": state["version"],
        "summary": f"Editing order #12345; {missing} field(s) still to fill in",
        "blocks": blocks,
    }
    return json.dumps({"operableWindowIds": ["w1"], "windows": [window]})


@server.resource("app://windows", mime_type="application/json")
def windows() -> str:
    return snapshot()


@server.tool(name="w1__edit_field")
def edit_field(field: str, value: str, expectedVersion: int | None = None) -> dict:
    if expectedVersion is not None and expectedVersion != state["version"]:
        return {"code": "stale_state", "message": "stale", "currentVersion": state["version"]}
    before = snapshot()
    state[field] = value
    if snapshot() != before:
        state["version"] += 1
    return {"message": "Completed `edit_field`."}


if __name__ == "__main__":
    server.run("stdio")
