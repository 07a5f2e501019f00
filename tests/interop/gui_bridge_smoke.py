"""Happy-path smoke test of gui_bridge_server.py, driven by the official
Python MCP SDK client (`mcp.ClientSession` + `mcp.client.stdio.stdio_client`).

    python gui_bridge_smoke.py                        # expect: ok, exit 0
    python gui_bridge_smoke.py --defect list-blocked  # expect: FAIL at tools/list, exit 1

Prints `ok` and exits 0 when every check holds; otherwise prints the first
failed check and what it saw, and exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import warnings
from pathlib import Path

from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning

SERVER = Path(__file__).with_name("gui_bridge_server.py")
WINDOWS = "app://windows"
# The legacy handshake is what GUI Bridge v0.1.0 builds on (resources/subscribe).
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)


class CheckFailed(Exception):
    pass


def check(ok: bool, what: str, saw: object) -> None:
    if not ok:
        raise CheckFailed(f"{what}; saw {saw!r}")


class Notes:
    """Notifications received, by method, in arrival order."""

    def __init__(self) -> None:
        self.methods: list[str] = []
        self.arrived = asyncio.Event()

    async def __call__(self, message) -> None:
        if not isinstance(message, Exception):
            self.methods.append(message.method)
            self.arrived.set()

    async def wait_for(self, method: str, timeout: float = 3.0) -> None:
        async def seen() -> None:
            while method not in self.methods:
                self.arrived.clear()
                await self.arrived.wait()

        try:
            await asyncio.wait_for(seen(), timeout)
        except asyncio.TimeoutError:
            raise CheckFailed(f"no {method} within {timeout}s; saw {self.methods!r}") from None
        self.methods.remove(method)


async def snapshot(session: ClientSession) -> dict:
    result = await session.read_resource(WINDOWS)
    check(len(result.contents) == 1, "read returns one content", result.contents)
    content = result.contents[0]
    check(content.mime_type == "application/json", "content is application/json", content.mime_type)
    return json.loads(content.text)


def window(snap: dict, wid: str) -> dict:
    return next(w for w in snap["windows"] if w["id"] == wid)


async def tool_names(session: ClientSession) -> list[str]:
    return sorted(t.name for t in (await session.list_tools()).tools)


async def call(session: ClientSession, name: str, args: dict | None = None) -> tuple[bool, dict]:
    result = await session.call_tool(name, args or {})
    return result.is_error, result.structured_content or {}


async def scenario(session: ClientSession, notes: Notes) -> None:
    init = await session.initialize()
    caps = init.capabilities
    check(caps.resources is not None and caps.resources.subscribe is True, "resources.subscribe", caps)
    check(caps.tools is not None and caps.tools.list_changed is True, "tools.listChanged", caps)
    check(WINDOWS in (init.instructions or ""), "instructions mention app://windows", init.instructions)

    resources = (await session.list_resources()).resources
    check([r.uri for r in resources] == [WINDOWS], "exactly one resource", resources)
    snap = await snapshot(session)
    check(snap["operableWindowIds"] == ["w1"], "w1 operable at start", snap["operableWindowIds"])
    w1 = window(snap, "w1")
    check(w1["version"] == 1 and w1["ownerId"] is None and not w1["modal"], "w1 starts plain at v1", w1)
    check(any(b["type"] == "notice" for b in w1["blocks"]), "a notice while untitled", w1["blocks"])

    editor = ["app__reset", "w1__delete", "w1__set_code", "w1__set_title"]
    tools = (await session.list_tools()).tools
    check(sorted(t.name for t in tools) == editor, "initial tools/list", sorted(t.name for t in tools))
    for t in tools:
        check(bool(t.title and t.description and t.output_schema and t.annotations), f"{t.name} is described", t)
    code_schema = next(t for t in tools if t.name == "w1__set_code").input_schema
    check(code_schema["properties"]["code"].get("writeOnly") is True, "code is writeOnly", code_schema)
    await session.subscribe_resource(WINDOWS)

    # set_title: version moves, resources/updated arrives, the notice goes away.
    # Re-read as soon as the notification arrives, without waiting for the call's
    # response: the change must already be visible (§6, §8.3).
    pending = asyncio.create_task(call(session, "w1__set_title", {"title": "Shopping", "expectedVersion": 1}))
    await notes.wait_for("notifications/resources/updated")
    w1 = window(await snapshot(session), "w1")
    is_error, ok = await pending
    check(not is_error and isinstance(ok.get("message"), str), "set_title succeeds", ok)
    check(w1["version"] == 2 and w1["blocks"][0]["items"][0]["value"] == "Shopping", "title set at v2", w1)
    check(not any(b["type"] == "notice" for b in w1["blocks"]), "notice gone", w1["blocks"])

    # Same title again: nothing changed, so no version bump and no notification.
    await call(session, "w1__set_title", {"title": "Shopping"})
    await asyncio.sleep(0.3)
    w1 = window(await snapshot(session), "w1")
    check(w1["version"] == 2, "an unchanged title keeps the version", w1["version"])
    check("notifications/resources/updated" not in notes.methods, "no update for a no-op", notes.methods)

    # A secret is stored but only ever shown masked.
    is_error, ok = await call(session, "w1__set_code", {"code": "hunter2"})
    check(not is_error, "set_code succeeds", ok)
    await notes.wait_for("notifications/resources/updated")
    snap = await snapshot(session)
    code_item = window(snap, "w1")["blocks"][0]["items"][1]
    check(code_item == {"label": "Access code", "value": "••••••", "sensitive": True}, "code masked", code_item)
    check("hunter2" not in json.dumps(snap), "no plaintext anywhere in the snapshot", snap)

    # stale_state and validation_failed.
    is_error, err = await call(session, "w1__set_title", {"title": "X", "expectedVersion": 1})
    check(is_error and err.get("code") == "stale_state" and err.get("currentVersion") == 3, "stale_state", err)
    try:
        is_error, err = await call(session, "w1__set_title", {"title": "", "color": "red"})
    except MCPError as e:
        raise CheckFailed(f"validation_failed must be a tool error; got JSON-RPC error {e.code}: {e.message}")
    fields = sorted(f["field"] for f in err.get("fields", []))
    check(is_error and err.get("code") == "validation_failed" and fields == ["color", "title"], "validation", err)

    # delete opens the w2 modal: tools/list hands over to w2, list_changed arrives.
    notes.methods.clear()
    is_error, ok = await call(session, "w1__delete")
    check(not is_error and ok.get("openedWindowIds") == ["w2"], "delete opens w2", ok)
    await notes.wait_for("notifications/tools/list_changed")
    await notes.wait_for("notifications/resources/updated")
    snap = await snapshot(session)
    check(snap["operableWindowIds"] == ["w2"], "only w2 operable", snap["operableWindowIds"])
    w2 = window(snap, "w2")
    check(w2["modal"] is True and w2["ownerId"] == "w1" and w2["version"] == 1, "w2 is w1's modal", w2)
    names = await tool_names(session)
    check(names == ["app__reset", "w2__cancel", "w2__confirm"], "tools/list while w2 is open", names)
    is_error, err = await call(session, "w1__set_title", {"title": "Blocked"})
    check(is_error and err.get("code") == "blocked_by_modal", "blocked_by_modal", err)

    # cancel closes w2 and hands the tools back; w2 is gone for good.
    is_error, ok = await call(session, "w2__cancel")
    check(not is_error, "cancel succeeds", ok)
    await notes.wait_for("notifications/tools/list_changed")
    snap = await snapshot(session)
    check(snap["operableWindowIds"] == ["w1"] and len(snap["windows"]) == 1, "w2 closed", snap)
    check(await tool_names(session) == editor, "tools handed back to w1", await tool_names(session))
    is_error, err = await call(session, "w2__cancel")
    check(is_error and err.get("code") == "window_not_found", "closed w2 is window_not_found", err)

    # A second delete gets a fresh id; confirm clears the note.
    is_error, ok = await call(session, "w1__delete")
    check(not is_error and ok.get("openedWindowIds") == ["w3"], "ids are not reused", ok)
    # Listing first also primes the client's outputSchema cache: it validates a
    # result after the call, when w3 (and its tool) is already gone.
    check("w3__confirm" in await tool_names(session), "w3__confirm listed", await tool_names(session))
    is_error, ok = await call(session, "w3__confirm")
    check(not is_error, "confirm succeeds", ok)
    w1 = window(await snapshot(session), "w1")
    check(w1["blocks"][0]["items"][0]["value"] == "" and w1["version"] == 4, "note cleared at v4", w1)


async def main(defect: str | None) -> int:
    args = [str(SERVER)] + (["--defect", defect] if defect else [])
    notes = Notes()
    failure = None
    with tempfile.TemporaryFile("w+") as server_log:
        try:
            params = StdioServerParameters(command=sys.executable, args=args)
            async with stdio_client(params, errlog=server_log) as (read, write):
                async with ClientSession(read, write, message_handler=notes) as session:
                    # Caught in here: past the SDK's task groups it would be an ExceptionGroup.
                    try:
                        await asyncio.wait_for(scenario(session, notes), 30)
                    except CheckFailed as e:
                        failure = str(e)
        except Exception as e:  # a crash is a failure too; show the server's side
            while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
                e = e.exceptions[0]
            server_log.seek(0)
            failure = f"{type(e).__name__}: {e}\n--- server stderr ---\n{server_log.read()}"
    print(f"FAIL{' (defect ' + defect + ')' if defect else ''}: {failure}" if failure else "ok")
    return 1 if failure else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--defect", help="start the server with this planted defect")
    sys.exit(asyncio.run(main(parser.parse_args().defect)))
