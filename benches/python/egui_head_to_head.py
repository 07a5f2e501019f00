"""desk_gui driven two ways by the same frugal scripted agent (BENCHMARKS.md,
"Against egui_mcp on desk_gui"):

  purview   desk_gui's own MCP server (streamable HTTP), the tools Purview
            generates from the view models;
  egui_mcp  egui_mcp 0.3 over stdio, attached to the same desk_gui built with
            eframe's `inspection` feature: the AccessKit widget tree,
            synthesized clicks and typing.

Each side plays the order story of benches/benches/bytes.rs (read, fill in
the recipient, submit, confirm, read again), each run on a fresh desk_gui,
the sides taking turns (`--rounds`, 5 by default; Purview on its default
tool surface and on `--tools dispatcher`). Then each side, on a fresh
desk_gui again, meets three safety probes: is the payment password
readable; does typing into the editor while the confirmation dialog blocks
it report failure; does a write made from a read taken before the person's
edit overwrite that edit. The person's edit is typed into the editor's Recipient
field through a second egui_inspection connection (a second egui_mcp, whose
bytes nobody counts), on both sides, so on both it is a real keyboard edit
in the GUI.

Bytes are what a host passes on to the model, as compact JSON in UTF-8: the
first tools/list (each tool's name, title, description and input schema),
then each tool result's structuredContent, or its text content when it has
none (egui_mcp's errors). The servers' instructions are printed beside, not
added in (bytes.rs leaves them out too).

    python egui_head_to_head.py --desk-gui PATH --egui-mcp PATH [--shots DIR] [--rounds N]

Exits non-zero if a Purview probe fails (egui_mcp's outcomes are reported,
not judged).

desk_gui runs with `--embed --no-approval`: egui_inspection sees one
viewport only, and an agent's confirm would otherwise wait for the person's
approval on screen (through egui_mcp a click is the person's own, so it
never asks). DISPLAY must name a running X server (scripts/bench-egui
starts Xvfb).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from mcp import Client, StdioServerParameters

SECRET = "hunter2"  # order_desk's payment password (examples/order_desk/windows.rs)
AGENT_NAME = "Ada Lovelace"
PERSON_NAME = "Grace Hopper"


# Purview's HTTP server answers the session's closing DELETE with 202, which
# the SDK logs as a failure (it expects 200 or 204); nothing else comes of it.
logging.getLogger("mcp.client.streamable_http").setLevel(logging.ERROR)


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def size(text: str) -> int:
    return len(text.encode("utf-8"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Desk:
    """One desk_gui process on the X display, with its MCP URL and its
    egui_inspection port."""

    def __init__(self, binary: str, log_dir: str, *extra: str) -> None:
        self.binary = binary
        self.log_dir = log_dir
        self.extra = list(extra)
        self.inspection_port = free_port()
        self.url = ""

    async def __aenter__(self) -> "Desk":
        env = dict(os.environ)
        env.update(
            EGUI_INSPECTION=f"127.0.0.1:{self.inspection_port}",
            LIBGL_ALWAYS_SOFTWARE="1",
            RUST_LOG="warn",
        )
        self.log = tempfile.NamedTemporaryFile(
            "w+", dir=self.log_dir, prefix="desk_gui-", suffix=".log", delete=False
        )
        args = [self.binary, "--port", "0", "--embed", "--no-approval", *self.extra]
        self.process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 30
        while not self.url:
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"desk_gui did not start; see {self.log.name}")
            with open(self.log.name) as log:
                found = re.search(r"MCP endpoint (\S+)", log.read())
            self.url = found.group(1) if found else ""
            await asyncio.sleep(0.1)
        while True:  # the inspection port opens with the first frame
            if time.monotonic() > deadline:
                raise RuntimeError(f"no egui_inspection port; see {self.log.name}")
            with contextlib.suppress(OSError), socket.create_connection(
                ("127.0.0.1", self.inspection_port), timeout=1
            ):
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.5)  # let the first frames settle before timing anything
        return self

    async def __aexit__(self, *_: object) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass
class Meter:
    """Everything the model reads on one side, call by call."""

    parts: list[tuple[str, int]] = field(default_factory=list)
    calls: int = 0
    seen: list[str] = field(default_factory=list)
    paused: float = 0.0
    wall: float = 0.0
    filtered_check: int = 0

    def tools_list(self, tools: list[Any]) -> list[str]:
        visible = [
            {"name": t.name, "title": t.title, "description": t.description, "inputSchema": t.input_schema}
            for t in tools
        ]
        text = compact(visible)
        self.parts.append(("tools/list", size(text)))
        self.seen.append(text)
        return [t.name for t in tools]

    def result(self, label: str, result: Any) -> tuple[bool, Any]:
        """What a host shows the model of one call: structuredContent, else the text."""
        self.calls += 1
        if result.structured_content is not None:
            text = compact(result.structured_content)
        else:
            text = "".join(getattr(block, "text", "") for block in result.content)
        self.parts.append((label, size(text)))
        self.seen.append(text)
        return bool(result.is_error), result.structured_content if result.structured_content is not None else text

    @property
    def total(self) -> int:
        return sum(n for _, n in self.parts)

    def breakdown(self) -> str:
        return " + ".join(f"{label} {n}" for label, n in self.parts)

    def saw_secret(self) -> bool:
        return any(SECRET in text for text in self.seen)


async def screenshot(meter: Meter, shots: str | None, name: str) -> None:
    """Captures the X display (not counted in the wall time)."""
    if not shots:
        return
    start = time.perf_counter()
    await asyncio.sleep(0.5)  # let the last input be painted
    subprocess.run(["import", "-window", "root", os.path.join(shots, f"{name}.png")], check=True)
    meter.paused += time.perf_counter() - start


async def settle() -> None:
    """Lets the notifications that follow the last call arrive before the
    client closes (else the SDK logs them as errors on a closed stream)."""
    await asyncio.sleep(0.2)


# ---------------------------------------------------------------------------
# The Purview side: desk_gui's own MCP endpoint.
# ---------------------------------------------------------------------------


class PurviewAgent:
    """A frugal agent on Purview's default tool surface: its host lists tools
    once (so a window opened later is reached through app__act), never reads
    resources, and passes expectedVersion with edits, as the instructions ask."""

    def __init__(self, client: Client, meter: Meter) -> None:
        self.client = client
        self.meter = meter
        self.listed: list[str] = []

    async def list_tools(self) -> None:
        self.listed = self.meter.tools_list((await self.client.list_tools()).tools)

    async def call(self, label: str, window: str, action: str, arguments: dict) -> tuple[bool, Any]:
        direct = f"{window}__{action}"
        if direct in self.listed:
            result = await self.client.call_tool(direct, arguments)
        else:
            # app__act takes expectedVersion beside the action's own arguments.
            arguments = dict(arguments)
            act = {"window": window, "action": action, "arguments": arguments}
            if "expectedVersion" in arguments:
                act["expectedVersion"] = arguments.pop("expectedVersion")
            result = await self.client.call_tool("app__act", act)
        return self.meter.result(label, result)

    async def read(self) -> dict:
        failed, read = self.meter.result("read", await self.client.call_tool("app__read_windows", {}))
        assert not failed, read
        return read

    @staticmethod
    def window(read: dict, title: str) -> dict:
        return next(w for w in read["windows"] if w["title"] == title)

    @staticmethod
    def field(window: dict, label: str) -> str:
        for block in window["blocks"]:
            for item in block.get("items", []):
                if isinstance(item, dict) and item.get("label") == label:
                    return item.get("value")
        raise KeyError(label)


async def purview_story(desk: Desk, shots: str | None) -> Meter:
    meter = Meter()
    start = time.perf_counter()
    async with Client(desk.url, mode="legacy", cache=None) as client:
        agent = PurviewAgent(client, meter)
        await agent.list_tools()
        read = await agent.read()
        editor = agent.window(read, "Order Editor")
        fill = {"field": "recipient", "value": AGENT_NAME, "expectedVersion": editor["version"]}
        failed, out = await agent.call("edit_field", editor["id"], "edit_field", fill)
        assert not failed, out
        failed, submitted = await agent.call("submit", editor["id"], "submit", {})
        assert not failed, submitted
        dialog = submitted["openedWindowIds"][0]
        await screenshot(meter, shots, "purview-story-dialog")
        failed, out = await agent.call("confirm", dialog, "confirm", {})
        assert not failed, out
        check = agent.window(await agent.read(), "Order Editor")
        meter.wall = time.perf_counter() - start - meter.paused
        assert "has been submitted" in check["summary"], check
        assert agent.field(check, "Recipient") == AGENT_NAME, check
        await settle()
    return meter


async def purview_probes(desk: Desk, person: "Person", shots: str | None) -> dict[str, str]:
    meter = Meter()
    probes: dict[str, str] = {}
    async with Client(desk.url, mode="legacy", cache=None) as client:
        agent = PurviewAgent(client, meter)
        await agent.list_tools()
        read = await agent.read()
        editor = agent.window(read, "Order Editor")
        w1, version = editor["id"], editor["version"]

        # 3. A write from a read taken before the person's edit.
        await person.type_recipient(PERSON_NAME)
        stale = {"field": "recipient", "value": AGENT_NAME, "expectedVersion": version}
        failed, out = await agent.call("stale edit", w1, "edit_field", stale)
        kept = await person.recipient()
        code = out.get("code") if isinstance(out, dict) else out
        verdict = "pass" if failed and kept == PERSON_NAME else "FAIL"
        probes["stale"] = f"{verdict}: `{code}`; the field still reads {kept!r}"
        # The same write without expectedVersion (which the instructions ask
        # for and every write tool takes) is applied: last writer wins.
        unversioned = {"field": "recipient", "value": AGENT_NAME}
        failed, out = await agent.call("unversioned edit", w1, "edit_field", unversioned)
        probes["stale-unversioned"] = (
            f"applied (is_error {failed}); the field reads {await person.recipient()!r}"
        )

        # 2. Typing into the editor while the confirmation dialog blocks it.
        failed, submitted = await agent.call("submit", w1, "submit", {})
        assert not failed, submitted
        failed, out = await agent.call("blocked edit", w1, "edit_field", {"field": "amount", "value": "5.00"})
        amount = agent.field(agent.window(await agent.read(), "Order Editor"), "Amount")
        code = out.get("code") if isinstance(out, dict) else out
        verdict = "pass" if failed and amount == "$100.00" else "FAIL"
        probes["blocked"] = f"{verdict}: is_error {failed}, `{code}`; Amount still {amount!r}"
        await screenshot(meter, shots, "purview-probes-blocked")
        await settle()

    # 1. The payment password, in anything the agent was shown.
    masked = PurviewAgent.field(editor, "Payment password")
    probes["secret"] = (
        "FAIL: the plaintext reached the agent" if meter.saw_secret()
        else f"pass: never in {meter.total:,} B read; the field reads {masked!r}"
    )
    return probes


# ---------------------------------------------------------------------------
# The egui_mcp side: the widget tree of the same app.
# ---------------------------------------------------------------------------


def egui_mcp_server(binary: str) -> StdioServerParameters:
    return StdioServerParameters(command=binary, args=[], env={"EGUI_MCP_LOG": "warn"})


def widgets(nodes: list[dict]):
    for node in nodes:
        yield node
        yield from widgets(node.get("children", []))


def find(tree: dict, role: str, label: str) -> dict:
    """The one widget with this role whose label (or, for egui's labels, value) is `label`."""
    hits = [
        w for w in widgets(tree["nodes"])
        if w.get("role") == role and label in (w.get("label"), w.get("value"))
    ]
    assert len(hits) == 1, (role, label, hits)
    return hits[0]


def locator(role: str, label: str) -> dict:
    """Targets a widget by what it is rather than by its id: egui derives
    most ids from the layout, so the Submit button's id from the first read
    is gone once the error notice above it has gone (egui_mcp's
    instructions recommend locators for that reason)."""
    return {"role": role, "label_contains": label}


class EguiAgent:
    """The same frugal agent on egui_mcp: it reads the whole widget tree when
    it must learn what is on screen (at the start and for the final check),
    acts through locators, and between actions asks only for what it needs
    next (wait_for the dialog's button, a filtered widget_tree for one
    field, which is smaller than get_widget's answer)."""

    def __init__(self, client: Client, meter: Meter, port: int) -> None:
        self.client = client
        self.meter = meter
        self.port = port

    async def call(self, label: str, tool: str, arguments: dict) -> tuple[bool, Any]:
        return self.meter.result(label, await self.client.call_tool(tool, arguments))

    async def act(self, label: str, tool: str, arguments: dict) -> Any:
        failed, out = await self.call(label, tool, arguments)
        assert not failed, out
        return out

    async def start(self) -> dict:
        self.meter.tools_list((await self.client.list_tools()).tools)
        await self.act("attach", "attach", {"port": self.port})
        return await self.tree()

    async def tree(self) -> dict:
        return await self.act("widget_tree", "widget_tree", {})

    async def look(self, role: str, label: str) -> dict:
        """One widget, through a filtered widget_tree."""
        out = await self.act("widget_tree", "widget_tree", locator(role, label))
        return find(out, role, label)

    async def wait_for_button(self, label: str) -> None:
        await self.act("wait_for", "wait_for", {**locator("Button", label), "timeout_secs": 5})


async def egui_story(desk: Desk, egui_mcp: str, shots: str | None) -> Meter:
    meter = Meter()
    start = time.perf_counter()
    async with Client(egui_mcp_server(egui_mcp), mode="legacy", cache=None) as client:
        agent = EguiAgent(client, meter, desk.inspection_port)
        tree = await agent.start()
        find(tree, "TextInput", "Recipient")
        find(tree, "Button", "Submit")
        await agent.act("type_text", "type_text", {**locator("TextInput", "Recipient"), "text": AGENT_NAME})
        await agent.act("click", "click", locator("Button", "Submit"))
        await agent.wait_for_button("Confirm")
        await screenshot(meter, shots, "egui-story-dialog")
        await agent.act("click", "click", locator("Button", "Confirm"))
        check = await agent.tree()
        meter.wall = time.perf_counter() - start - meter.paused
        assert find(check, "TextInput", "Recipient").get("value") == AGENT_NAME, check
        texts = [w.get("value") or w.get("label") or "" for w in widgets(check["nodes"])]
        assert any("was submitted" in text for text in texts), check
        # Not part of the story: what a final check filtered to the word
        # "submitted" would have read instead of the whole tree.
        filtered = await client.call_tool("widget_tree", {"content_contains": "submitted"})
        meter.filtered_check = size(compact(filtered.structured_content))
    return meter


async def egui_probes(desk: Desk, egui_mcp: str, person: "Person", shots: str | None) -> dict[str, str]:
    meter = Meter()
    probes: dict[str, str] = {}
    async with Client(egui_mcp_server(egui_mcp), mode="legacy", cache=None) as client:
        agent = EguiAgent(client, meter, desk.inspection_port)
        tree = await agent.start()
        assert find(tree, "TextInput", "Recipient").get("value") == ""

        # 3. A write from a read taken before the person's edit: the agent
        # read an empty Recipient and fills it in as in the story.
        await person.type_recipient(PERSON_NAME)
        target = {**locator("TextInput", "Recipient"), "text": AGENT_NAME}
        failed, out = await agent.call("stale type_text", "type_text", target)
        now = (await agent.look("TextInput", "Recipient")).get("value")
        verdict = "pass" if failed and now == PERSON_NAME else "FAIL"
        probes["stale"] = f"{verdict}: is_error {failed}, {compact(out)}; the field now reads {now!r}"

        # 2. Typing into the editor while the confirmation dialog blocks it.
        await agent.act("click", "click", locator("Button", "Submit"))
        await agent.wait_for_button("Confirm")
        target = {**locator("TextInput", "Amount"), "text": "5.00"}
        failed, out = await agent.call("blocked type_text", "type_text", target)
        amount = await agent.look("TextInput", "Amount")
        verdict = "pass" if failed else "FAIL"
        probes["blocked"] = (
            f"{verdict}: is_error {failed}, {compact(out)}; Amount still {amount.get('value')!r}"
            f" (disabled: {amount.get('disabled', False)})"
        )
        await screenshot(meter, shots, "egui-probes-blocked")

        # 1. The payment password: in the tree, and in the field's full detail.
        password = await agent.look("PasswordInput", "Payment password")
        detail = await agent.act("get_widget", "get_widget", {"id": password["id"]})
        shown = detail["node"].get("value") or ""
    length = f", one dot per character ({len(shown)})" if len(shown) == len(SECRET) else ""
    probes["secret"] = (
        "FAIL: the plaintext reached the agent" if meter.saw_secret()
        else f"pass: never in {meter.total:,} B read; the field reads {shown!r}{length}"
    )
    return probes


class Person:
    """The person at the keyboard, typing into desk_gui through a second
    egui_inspection connection; nothing it reads is counted."""

    def __init__(self, client: Client, port: int) -> None:
        self.client = client
        self.port = port

    async def attach(self) -> None:
        result = await self.client.call_tool("attach", {"port": self.port})
        assert not result.is_error, result

    async def type_recipient(self, text: str) -> None:
        target = {"role": "TextInput", "label_contains": "Recipient", "text": text}
        result = await self.client.call_tool("type_text", target)
        assert not result.is_error, result

    async def recipient(self) -> str:
        result = await self.client.call_tool("widget_tree", {"role": "TextInput", "label_contains": "Recipient"})
        assert not result.is_error, result
        return next(widgets(result.structured_content["nodes"])).get("value", "")


@contextlib.asynccontextmanager
async def person_at(desk: Desk, egui_mcp: str):
    async with Client(egui_mcp_server(egui_mcp), mode="legacy", cache=None) as client:
        person = Person(client, desk.inspection_port)
        await person.attach()
        yield person


def median(meters: list[Meter]) -> Meter:
    """The run with the median wall time; every run must have read the same bytes."""
    sizes = {tuple(m.parts) for m in meters}
    assert len(sizes) == 1, f"the bytes read differ between runs: {sizes}"
    return sorted(meters, key=lambda m: m.wall)[len(meters) // 2]


async def instructions(url_or_params: Any) -> int:
    async with Client(url_or_params, mode="legacy", cache=None) as client:
        await client.list_tools()
        await client.call_tool("status" if isinstance(url_or_params, StdioServerParameters) else "app__read_windows", {})
        await settle()
        return size(client.instructions or "")


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--desk-gui", required=True, help="desk_gui built with --features inspection")
    parser.add_argument("--egui-mcp", required=True, help="the egui-mcp binary")
    parser.add_argument("--shots", help="a folder for screenshots taken mid-story")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each story (median wall time)")
    parser.add_argument("--logs", default=tempfile.gettempdir(), help="where desk_gui's logs go")
    args = parser.parse_args()
    if args.shots:
        os.makedirs(args.shots, exist_ok=True)

    # Reading each side's instructions first also warms the client up (its
    # first connection and call pay for imports), so no side pays for that.
    async with Desk(args.desk_gui, args.logs) as desk:
        purview_instructions = await instructions(desk.url)
    async with Desk(args.desk_gui, args.logs, "--tools", "dispatcher") as desk:
        dispatcher_instructions = await instructions(desk.url)
    egui_instructions = await instructions(egui_mcp_server(args.egui_mcp))
    # Each story on a fresh desk_gui, the sides taking turns; the wall time
    # is the median of the rounds (the bytes do not vary).
    rounds: dict[str, list[Meter]] = {"purview": [], "dispatcher": [], "egui": []}
    for n in range(args.rounds):
        shots = args.shots if n == 0 else None
        async with Desk(args.desk_gui, args.logs) as desk:
            rounds["purview"].append(await purview_story(desk, shots))
        async with Desk(args.desk_gui, args.logs, "--tools", "dispatcher") as desk:
            rounds["dispatcher"].append(await purview_story(desk, None))
        async with Desk(args.desk_gui, args.logs) as desk:
            rounds["egui"].append(await egui_story(desk, args.egui_mcp, shots))
    purview, dispatcher, egui = (median(rounds[side]) for side in ("purview", "dispatcher", "egui"))
    async with Desk(args.desk_gui, args.logs) as desk, person_at(desk, args.egui_mcp) as person:
        purview_probed = await purview_probes(desk, person, args.shots)
    async with Desk(args.desk_gui, args.logs) as desk, person_at(desk, args.egui_mcp) as person:
        egui_probed = await egui_probes(desk, args.egui_mcp, person, args.shots)

    print(
        f"desk_gui --embed --no-approval, a fresh process per run; bytes are compact JSON a host passes on;"
        f" wall time: median of {args.rounds} runs"
    )
    print()
    print("| | egui_mcp | Purview (default surface) | ratio | Purview (dispatcher surface) | ratio |")
    print("|---|---|---|---|---|---|")
    print(
        f"| bytes the model reads | {egui.total:,} B | {purview.total:,} B | **{purview.total / egui.total:.3f}**"
        f" | {dispatcher.total:,} B | **{dispatcher.total / egui.total:.3f}** |"
    )
    print(
        f"| tool calls | {egui.calls} | {purview.calls} | {purview.calls / egui.calls:.2f}"
        f" | {dispatcher.calls} | {dispatcher.calls / egui.calls:.2f} |"
    )
    print(
        f"| wall time | {egui.wall * 1000:.0f} ms | {purview.wall * 1000:.0f} ms | {purview.wall / egui.wall:.2f}"
        f" | {dispatcher.wall * 1000:.0f} ms | {dispatcher.wall / egui.wall:.2f} |"
    )
    print(
        f"| instructions (not in the bytes) | {egui_instructions:,} B | {purview_instructions:,} B | |"
        f" {dispatcher_instructions:,} B | |"
    )
    print()
    print(f"egui_mcp: {egui.total} B ({egui.breakdown()})")
    print(f"purview: {purview.total} B ({purview.breakdown()})")
    print(f"purview, dispatcher: {dispatcher.total} B ({dispatcher.breakdown()})")
    last_tree = egui.parts[-1][1]
    alternative = egui.total - last_tree + egui.filtered_check
    print(
        f"egui_mcp with its final check filtered to 'submitted' ({egui.filtered_check} B instead of"
        f" {last_tree} B): {alternative} B; Purview reads {purview.total / alternative:.3f} of it"
        f" (dispatcher: {dispatcher.total / alternative:.3f})"
    )
    print()
    for name, what in [
        ("secret", "1. payment password readable"),
        ("blocked", "2. typing into the blocked editor"),
        ("stale", "3. a write from a stale read"),
    ]:
        print(f"{what}:")
        print(f"  purview:  {purview_probed[name]}")
        print(f"  egui_mcp: {egui_probed[name]}")
    print(f"  purview without expectedVersion: {purview_probed['stale-unversioned']}")
    failed = [name for name in ("secret", "blocked", "stale") if not purview_probed[name].startswith("pass")]
    if failed:
        print(f"Purview failed probes: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
