"""Drives order_desk with the official Python MCP SDK (PyPI `mcp`, 2.x,
legacy initialize handshake) over stdio and over streamable HTTP, on each
tool surface (--tools windows, both, dispatcher).

    python python_client.py PATH/TO/order_desk

Checks the reference scenario end to end — operableWindowIds, the tool
list hand-off (or, on the dispatcher surface, a list that never changes),
error codes, masking — and that the notifications each surface promises
(resources/updated after a subscription, tools/list_changed except on
dispatcher) arrive, and that the client ends each HTTP session without a
complaint (its DELETE is answered 204). Prints one line per run and a
closing "N passed, N failed" line; exits non-zero on any failure.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import os
import sys
import traceback
import warnings

from desk_http import serving
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
    actions = ["edit_field", "set_password", "set_details", "focus"] + (["submit"] if submit else [])
    return [f"{window}__{a}" for a in actions]


REPORT = ["w2__load_rows", "w2__refresh", "w2__close"]
APP = ["app__lock", "app__new_report"]
DISPATCHER = ["app__act", "app__read_windows"]


class Surface:
    """What tools/list holds, and how a call is made, on one tool surface."""

    def __init__(self, name: str) -> None:
        self.name = name

    def expect(self, *parts: list[str], app: bool = True) -> list[str]:
        if self.name == "dispatcher":
            return sorted(DISPATCHER)
        names = [name for part in parts for name in part] + (APP if app else [])
        if self.name == "both":
            names += DISPATCHER
        return sorted(names)

    async def call(self, client: Client, tool: str, arguments: dict | None = None):
        """Calls `tool`, through app__act on the dispatcher surface."""
        if self.name != "dispatcher":
            return await call(client, tool, arguments)
        window, action = tool.split("__", 1)
        args = dict(arguments or {})
        act = {"window": window, "action": action, "arguments": args}
        if "expectedVersion" in args:
            act["expectedVersion"] = args.pop("expectedVersion")
        return await call(client, "app__act", act)

    async def list_changed(self, notes: "Notes") -> None:
        """The tool list changed: announced everywhere but on dispatcher."""
        if self.name != "dispatcher":
            await notes.wait_for("notifications/tools/list_changed")



def name_of(signature: str) -> str:
    """The action a signature such as `load_rows(offset: integer(>=0))` names."""
    return signature.split("(", 1)[0]


def arguments_from(signature: str) -> dict:
    """Arguments for the required integer parameters of a signature, each
    two above its lower bound: what a model makes of `offset: integer(>=0)`."""
    inside = signature[signature.index("(") + 1 : signature.rindex(")")]
    arguments = {}
    for part in re.findall(r"(\w+): integer(?:\(>=(\d+)\))?", inside):
        name, low = part
        arguments[name] = int(low or 0) + 2
    assert arguments, signature
    return arguments

async def scenario(target, label: str, surface: Surface) -> None:
    notes = Notes()
    expect, act = surface.expect, surface.call
    async with Client(target, mode="legacy", message_handler=notes, cache=None) as client:
        assert client.server_capabilities.resources.subscribe is True
        assert client.server_capabilities.tools.list_changed is True
        assert "app://windows" in (client.instructions or "")

        snapshot = await read(client)
        assert snapshot["operableWindowIds"] == ["w1", "w2"], snapshot["operableWindowIds"]
        assert await tool_names(client) == expect(editor_tools("w1"), REPORT)
        await client.subscribe_resource(WINDOWS)

        # Per-field validation.
        is_error, error, _ = await act(client, "w1__set_details", {"recipient": "", "amount": 0})
        assert is_error and error["code"] == "validation_failed", error
        assert sorted(f["field"] for f in error["fields"]) == ["amount", "recipient"], error

        # An edit: the subscribed session hears resources/updated, and submit
        # appearing is a tools/list_changed.
        version = next(w for w in snapshot["windows"] if w["id"] == "w1")["version"]
        is_error, ok, _ = await act(
            client, "w1__edit_field", {"field": "recipient", "value": "Ada", "expectedVersion": version}
        )
        assert not is_error, ok
        await notes.wait_for("notifications/resources/updated")
        await surface.list_changed(notes)
        assert await tool_names(client) == expect(editor_tools("w1", submit=True), REPORT)
        is_error, stale, _ = await act(client, "w1__focus", {"expectedVersion": version})
        assert is_error and stale["code"] == "stale_state" and stale["currentVersion"] == version + 1, stale

        # The modal hand-off.
        is_error, submitted, _ = await act(client, "w1__submit")
        assert not is_error and submitted["openedWindowIds"] == ["w3"], submitted
        await surface.list_changed(notes)
        snapshot = await read(client)
        assert snapshot["operableWindowIds"] == ["w3", "w2"], snapshot["operableWindowIds"]
        assert await tool_names(client) == expect(["w3__cancel", "w3__confirm", "w3__show_terms"], REPORT)
        is_error, blocked, _ = await act(client, "w1__edit_field", {"field": "recipient", "value": "x"})
        assert is_error and blocked["code"] == "blocked_by_modal" and blocked["blockedBy"] == "w3", blocked
        await act(client, "w3__cancel")
        assert (await read(client))["operableWindowIds"] == ["w1", "w2"]

        # Large data through a tool.
        is_error, page, _ = await act(client, "w2__load_rows", {"offset": 0, "limit": 3})
        assert not is_error and page["result"]["total"] == 10000 and len(page["result"]["rows"]) == 3, page

        # App-level modal and a sensitive argument.
        is_error, locked, _ = await act(client, "app__lock")
        assert not is_error and locked["openedWindowIds"] == ["w4"], locked
        assert await tool_names(client) == expect(["w4__unlock"], app=False)
        is_error, wrong, text = await act(client, "w4__unlock", {"pin": "9999"})
        assert is_error and wrong["code"] == "validation_failed" and wrong["fields"][0]["field"] == "pin", wrong
        assert "9999" not in text
        is_error, _, _ = await act(client, "w4__unlock", {"pin": "1234"})
        assert not is_error
        final = await read(client)
        assert final["operableWindowIds"] == ["w1", "w2"], final
        assert "hunter2" not in json.dumps(final)
        if surface.name != "windows":
            # The snapshot agents without resources read, plus actions.
            is_error, view, _ = await call(client, "app__read_windows")
            assert not is_error and view["windows"] == final["windows"], view
            assert [name_of(s) for s in view["actions"]["w2"]] == ["load_rows", "refresh", "close"], view
            assert "inputSchema" not in json.dumps(view), "full schemas only on request"
            # Act from the read alone: arguments made from the signature text.
            signature = next(s for s in view["actions"]["w2"] if name_of(s) == "load_rows")
            arguments = arguments_from(signature)
            is_error, page, _ = await call(
                client, "app__act", {"window": "w2", "action": "load_rows", "arguments": arguments}
            )
            assert not is_error, page
            assert len(page["result"]["rows"]) == arguments["limit"], (signature, arguments, page)
            is_error, wrong, _ = await call(
                client, "app__act", {"window": "w2", "action": "load_rows", "arguments": {"offset": "x"}}
            )
            assert is_error and wrong["signature"] == signature, wrong
            assert {f["field"] for f in wrong["fields"]} == {"offset", "limit"}, wrong
        if surface.name == "dispatcher":
            assert "notifications/tools/list_changed" not in notes.methods, notes.methods
    print(f"python-sdk {label}: ok")


class Complaints(logging.Handler):
    """What the SDK's HTTP client logs at warning level or above."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


async def over_http(binary: str, surface: Surface) -> None:
    complaints = Complaints()
    client_log = logging.getLogger("mcp.client.streamable_http")
    client_log.addHandler(complaints)
    try:
        with serving(binary, ["--tools", surface.name], SERVER_ENV) as url:
            await scenario(url, f"streamable HTTP, --tools {surface.name}", surface)
    finally:
        client_log.removeHandler(complaints)
    # The client ends its session with DELETE when it closes; it accepts
    # only 200 or 204 as an answer, and logs anything else as a failure.
    ended = [m for m in complaints.messages if "termination" in m]
    assert not ended, ended


async def main(binary: str) -> int:
    def stdio(surface: Surface):
        params = StdioServerParameters(command=binary, args=["--tools", surface.name], env=SERVER_ENV)
        return scenario(params, f"stdio, --tools {surface.name}", surface)

    runs = []
    for name in ["windows", "both", "dispatcher"]:
        surface = Surface(name)
        runs.append((f"stdio, --tools {name}", lambda s=surface: stdio(s)))
        runs.append((f"streamable HTTP, --tools {name}", lambda s=surface: over_http(binary, s)))
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
