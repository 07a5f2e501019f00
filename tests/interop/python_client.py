"""Drives order_desk with the official Python MCP SDK (PyPI `mcp`, 2.x,
legacy initialize handshake) over stdio and over streamable HTTP.

    python python_client.py PATH/TO/order_desk

Checks the reference scenario end to end — operableWindowIds, the tool
list hand-off, error codes, masking — and that both notifications
(resources/updated after a subscription, tools/list_changed) arrive.
Prints one line per transport and a closing "N passed, N failed" line;
exits non-zero on any failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import traceback
import warnings

from mcp import Client, StdioServerParameters

WINDOWS = "app://windows"

# This script speaks the legacy (2025-11-25) generation on purpose, where
# resources/subscribe is how a client asks for resources/updated.
warnings.filterwarnings("ignore", message="resources/subscribe is removed")

# The server's own logs (stderr) stay quiet unless asked for.
SERVER_ENV = {"RUST_LOG": os.environ.get("RUST_LOG", "warn")}


class Notes:
    """Notifications received, by method."""

    def __init__(self) -> None:
        self.methods: list[str] = []
        self.arrived = asyncio.Event()

    async def __call__(self, message) -> None:
        if isinstance(message, Exception):
            return
        method = getattr(message, "method", None)
        if method:
            self.methods.append(method)
            self.arrived.set()

    async def wait_for(self, method: str, timeout: float = 5.0) -> None:
        async def seen() -> None:
            while method not in self.methods:
                self.arrived.clear()
                await self.arrived.wait()

        await asyncio.wait_for(seen(), timeout)
        self.methods.remove(method)


async def read(client: Client) -> dict:
    result = await client.read_resource(WINDOWS)
    assert len(result.contents) == 1, result
    content = result.contents[0]
    assert str(content.uri) == WINDOWS and content.mime_type == "application/json", content
    return json.loads(content.text)


async def tool_names(client: Client) -> list[str]:
    return sorted(tool.name for tool in (await client.list_tools()).tools)


async def call(client: Client, name: str, arguments: dict | None = None) -> tuple[bool, dict, str]:
    result = await client.call_tool(name, arguments or {})
    text = "".join(getattr(block, "text", "") for block in result.content)
    return bool(result.is_error), result.structured_content or {}, text


def editor_tools(window: str, submit: bool = False) -> list[str]:
    actions = ["edit_field", "set_details", "focus"] + (["submit"] if submit else [])
    return [f"{window}__{a}" for a in actions]


REPORT = ["w2__load_rows", "w2__refresh", "w2__close"]
APP = ["app__lock", "app__new_report"]


def expect(*parts: list[str]) -> list[str]:
    return sorted([name for part in parts for name in part] + APP)


async def scenario(target, label: str) -> None:
    notes = Notes()
    async with Client(target, mode="legacy", message_handler=notes, cache=None) as client:
        assert client.server_capabilities.resources.subscribe is True
        assert client.server_capabilities.tools.list_changed is True
        assert "app://windows" in (client.instructions or "")

        snapshot = await read(client)
        assert snapshot["operableWindowIds"] == ["w1", "w2"], snapshot["operableWindowIds"]
        assert await tool_names(client) == expect(editor_tools("w1"), REPORT)
        await client.subscribe_resource(WINDOWS)

        # Per-field validation.
        is_error, error, _ = await call(client, "w1__set_details", {"recipient": "", "amount": 0})
        assert is_error and error["code"] == "validation_failed", error
        assert sorted(f["field"] for f in error["fields"]) == ["amount", "recipient"], error

        # An edit: the subscribed session hears resources/updated, and submit
        # appearing is a tools/list_changed.
        version = next(w for w in snapshot["windows"] if w["id"] == "w1")["version"]
        is_error, ok, _ = await call(
            client, "w1__edit_field", {"field": "recipient", "value": "Ada", "expectedVersion": version}
        )
        assert not is_error, ok
        await notes.wait_for("notifications/resources/updated")
        await notes.wait_for("notifications/tools/list_changed")
        assert await tool_names(client) == expect(editor_tools("w1", submit=True), REPORT)
        is_error, stale, _ = await call(client, "w1__focus", {"expectedVersion": version})
        assert is_error and stale["code"] == "stale_state" and stale["currentVersion"] == version + 1, stale

        # The modal hand-off.
        is_error, submitted, _ = await call(client, "w1__submit")
        assert not is_error and submitted["openedWindowIds"] == ["w3"], submitted
        await notes.wait_for("notifications/tools/list_changed")
        snapshot = await read(client)
        assert snapshot["operableWindowIds"] == ["w3", "w2"], snapshot["operableWindowIds"]
        assert await tool_names(client) == expect(["w3__cancel", "w3__confirm", "w3__show_terms"], REPORT)
        is_error, blocked, _ = await call(client, "w1__edit_field", {"field": "recipient", "value": "x"})
        assert is_error and blocked["code"] == "blocked_by_modal" and blocked["blockedBy"] == "w3", blocked
        await call(client, "w3__cancel")
        assert (await read(client))["operableWindowIds"] == ["w1", "w2"]

        # Large data through a tool.
        is_error, page, _ = await call(client, "w2__load_rows", {"offset": 0, "limit": 3})
        assert not is_error and page["result"]["total"] == 10000 and len(page["result"]["rows"]) == 3, page

        # App-level modal and a sensitive argument.
        is_error, locked, _ = await call(client, "app__lock")
        assert not is_error and locked["openedWindowIds"] == ["w4"], locked
        assert await tool_names(client) == ["w4__unlock"]
        is_error, wrong, text = await call(client, "w4__unlock", {"pin": "9999"})
        assert is_error and wrong["code"] == "validation_failed" and wrong["fields"][0]["field"] == "pin", wrong
        assert "9999" not in text
        is_error, _, _ = await call(client, "w4__unlock", {"pin": "1234"})
        assert not is_error
        final = await read(client)
        assert final["operableWindowIds"] == ["w1", "w2"], final
        assert "hunter2" not in json.dumps(final)
    print(f"python-sdk {label}: ok")


async def over_http(binary: str) -> None:
    process = subprocess.Popen(
        [binary, "--http", "127.0.0.1:0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **SERVER_ENV},
    )
    try:
        url = None
        for line in process.stderr:
            if "MCP endpoint " in line:
                url = line.split("MCP endpoint ", 1)[1].strip()
                break
        assert url, "order_desk did not print its endpoint"
        await scenario(url, "streamable HTTP")
    finally:
        process.terminate()
        process.wait(timeout=10)


async def main(binary: str) -> int:
    runs = [
        ("stdio", lambda: scenario(StdioServerParameters(command=binary, args=[], env=SERVER_ENV), "stdio")),
        ("streamable HTTP", lambda: over_http(binary)),
    ]
    passed = failed = 0
    for label, run in runs:
        try:
            await asyncio.wait_for(run(), 120)
            passed += 1
        except Exception:  # report every transport, then fail
            failed += 1
            print(f"python-sdk {label}: FAILED", file=sys.stderr)
            traceback.print_exc()
    print(f"python-sdk interop: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
