"""A minimal MCP GUI Bridge Protocol v0.1.0 server, written by hand with the
official Python MCP SDK's low-level server API (PyPI `mcp==2.3.0`) over stdio.

It exists so a conformance checker can be pointed at a server that Purview
did not generate. The "application" is one note editor:

    w1  "Note Editor"     fields Title / Access code (sensitive), a notice
                          while the title is empty;
                          actions set_title, set_code, delete
    wN  "Confirm delete"  window-level modal owned by w1, opened by delete;
                          actions confirm (clears the note), cancel
    app__reset            app-level action (listed while no app-level modal)

    python gui_bridge_server.py [--defect NAME]

`--defect` plants exactly one spec violation or application defect (see
DEFECTS) so a checker can be shown to catch it; without it the server is
meant to be conformant.
stdout carries protocol frames only; logs go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import logging
import sys
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

WINDOWS_URI = "app://windows"
MASK = "••••••"
DEFECTS = {
    "list-blocked": "tools/list keeps listing w1's tools while its confirm modal is open",
    "version-noop": "set_title with an unchanged title still bumps w1's version",
    "leak-secret": "the Access code field shows the plaintext code",
    "no-list-changed": "notifications/tools/list_changed is never sent",
    "jsonrpc-error": "validation failures come back as JSON-RPC error -32602, not a tool error",
    "reuse-id": "the confirm modal is always w2, even after an earlier w2 closed",
    "notify-early": "resources/updated is sent before the change is applied",
    # Defects of the application rather than of the protocol:
    "echo-code": "set_code's answer repeats the access code (however short) in its message",
    "failing-confirm": "confirm always fails inside the application (action_failed)",
    "approval-confirm": "confirm needs the person's approval, asked of the client by elicitation",
}
INSTRUCTIONS = (
    "This server follows the MCP GUI Bridge Protocol v0.1.0. Read the single resource "
    "app://windows for every window's content; operableWindowIds says which windows you may "
    "operate. Operations are all window-level tools named {winId}__{action}, and tools/list "
    "holds only the operations of operable windows. The user may operate concurrently, so "
    "pass expectedVersion (the window's version) with write operations and re-read on "
    "stale_state. Re-read app://windows after resources/updated or tools/list_changed."
)

log = logging.getLogger("gui_bridge_server")

# Shared tool annotations: (readOnly, destructive, idempotent, openWorld).
EDIT = (False, False, True, False)  # re-sending the same value changes nothing more
OPEN = (False, True, False, False)  # delete: opens a new modal every time
CONFIRM = (False, True, False, False)
CLOSE = (False, False, False, False)


@dataclass
class Action:
    title: str
    description: str
    params: dict[str, dict[str, Any]]  # argument name -> JSON Schema
    required: list[str]
    hints: tuple[bool, bool, bool, bool]


ACTIONS: dict[str, dict[str, Action]] = {
    "editor": {
        "set_title": Action(
            "Set title", "Change the note's title.",
            {"title": {"type": "string", "minLength": 1, "description": "The new title; not empty"}},
            ["title"], EDIT,
        ),
        "set_code": Action(
            "Set access code", "Store the note's access code. It is never shown back.",
            {"code": {"type": "string", "writeOnly": True, "description": "The secret code; empty clears it"}},
            ["code"], EDIT,
        ),
        "delete": Action(
            "Delete note", "Ask to delete the note; opens a confirmation dialog.", {}, [], OPEN,
        ),
    },
    "confirm": {
        "confirm": Action("Confirm delete", "Delete the note and close this dialog.", {}, [], CONFIRM),
        "cancel": Action("Cancel", "Keep the note and close this dialog.", {}, [], CLOSE),
    },
}
APP_ACTIONS = {
    # Per the brief this is marked non-destructive, although it empties the note.
    "reset": Action("Reset note", "Reset the note to a fresh, empty one.", {}, [], EDIT),
}

# §12.3 ToolResult shape. Nothing is required, so the §7.4 error object, which
# also travels in structuredContent, validates against it too.
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "message": {"type": "string"},
        "openedWindowIds": {"type": "array", "items": {"type": "string"}},
        "result": {"type": "object"},
    },
}


class ToolError(Exception):
    """A §7.4 error: becomes an isError tool result, never a JSON-RPC error."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.body = {"code": code, "message": message, **extra}


@dataclass
class Window:
    id: str
    kind: str  # key into ACTIONS
    title: str
    modal: bool = False
    owner_id: str | None = None
    version: int = 1
    rendered: str = ""  # JSON of summary+blocks at the current version


@dataclass
class App:
    defect: str | None
    windows: dict[str, Window] = field(default_factory=dict)  # insertion = opening order
    next_id: int = 1
    note_title: str = ""  # starts untitled, so the notice shows
    note_code: str = ""

    # --- rendering -----------------------------------------------------

    def content(self, w: Window) -> tuple[str, list[dict[str, Any]]]:
        if w.kind == "editor":
            code = self.note_code if self.defect == "leak-secret" else (MASK if self.note_code else "")
            blocks: list[dict[str, Any]] = [{"type": "fields", "id": "b1", "items": [
                {"label": "Title", "value": self.note_title},
                {"label": "Access code", "value": code, "sensitive": True},
            ]}]
            if not self.note_title:
                blocks.append({"type": "notice", "id": "b2", "severity": "warn", "text": "The note has no title"})
            has_code = "an access code is set" if self.note_code else "no access code"
            summary = f'Editing the note "{self.note_title}", {has_code}' if self.note_title \
                else f"Editing an untitled, empty note, {has_code}"
            return summary, blocks
        return (f'Asks whether to delete the note "{self.note_title}"',
                [{"type": "text", "id": "b1", "text": "Delete this note? This cannot be undone."}])

    def render(self, w: Window) -> str:
        return json.dumps(self.content(w), sort_keys=True, ensure_ascii=False)

    def snapshot(self) -> dict[str, Any]:
        windows = []
        for w in self.windows.values():
            summary, blocks = self.content(w)
            windows.append({"id": w.id, "title": w.title, "modal": w.modal, "ownerId": w.owner_id,
                            "version": w.version, "summary": summary, "blocks": blocks})
        return {"operableWindowIds": self.operable(), "windows": windows}

    # --- topology (§2, §10.2) ------------------------------------------

    def top(self, w: Window) -> Window:
        """Follow window-level modals owned by w down to the end of the chain."""
        while True:
            children = [c for c in self.windows.values() if c.modal and c.owner_id == w.id]
            if not children:
                return w
            w = children[-1]

    def app_modals(self) -> list[Window]:
        return [w for w in self.windows.values() if w.modal and w.owner_id is None]

    def operable(self) -> list[str]:
        if app_modals := self.app_modals():  # collapse to the newest app modal's chain
            return [self.top(app_modals[-1]).id]
        return [self.top(w).id for w in self.windows.values() if not w.modal and w.owner_id is None]

    # --- tools -----------------------------------------------------------

    def tool_names(self) -> list[str]:
        return [name for name, *_ in self.tools()]

    def tools(self) -> list[tuple[str, Action, Window | None]]:
        listed = list(self.windows) if self.defect == "list-blocked" else self.operable()
        out = [(f"{wid}__{a}", act, self.windows[wid])
               for wid in listed for a, act in ACTIONS[self.windows[wid].kind].items()]
        if not self.app_modals():
            out += [(f"app__{a}", act, None) for a, act in APP_ACTIONS.items()]
        return out

    def open_window(self, kind: str, title: str, modal: bool = False, owner: str | None = None) -> Window:
        if kind == "confirm" and self.defect == "reuse-id":
            wid = "w2"
        else:
            wid, self.next_id = f"w{self.next_id}", self.next_id + 1
        w = Window(wid, kind, title, modal, owner)
        w.rendered = self.render(w)
        self.windows[wid] = w
        return w

    # --- calls -----------------------------------------------------------

    def resolve(self, name: str) -> tuple[Window | None, Action, str]:
        """The gates of §7.2, in Purview's order; raises ToolError."""
        win_id, sep, action = name.partition("__")
        if not sep:
            raise ToolError("action_not_available", f"No tool {name!r}; names are {{winId}}__{{action}}.")
        if win_id == "app":
            if action not in APP_ACTIONS:
                raise ToolError("action_not_available", f"There is no app-level action {action!r}.")
            if modals := self.app_modals():
                top = self.top(modals[-1]).id
                raise ToolError("blocked_by_modal", f"An app-level modal is open; operate {top} first.",
                                blockedBy=top)
            return None, APP_ACTIONS[action], action
        w = self.windows.get(win_id)
        if w is None:
            raise ToolError("window_not_found", f"Window {win_id!r} is closed or never existed.")
        if action not in ACTIONS[w.kind]:
            raise ToolError("action_not_available", f"Window {win_id} has no action {action!r}.")
        if win_id not in self.operable():
            top = self.top(w).id
            raise ToolError("blocked_by_modal", f"Window {win_id} is blocked by modal {top}; operate {top} first.",
                            blockedBy=top)
        return w, ACTIONS[w.kind][action], action

    @staticmethod
    def check_args(w: Window | None, act: Action, args: dict[str, Any]) -> dict[str, Any]:
        """The expectedVersion gate (§7.1), then the action's own arguments,
        checked by hand so every bad field is reported at once (§7.3).
        Returns the arguments without expectedVersion; raises ToolError."""
        args = dict(args)
        expected = args.pop("expectedVersion", None) if w is not None else None
        if expected is not None:  # the version gate comes first, as in Purview
            if not isinstance(expected, int) or isinstance(expected, bool) or expected < 0:
                raise ToolError("validation_failed", "expectedVersion is not a version",
                                fields=[{"field": "expectedVersion", "error": "Must be a non-negative integer"}])
            if expected != w.version:
                raise ToolError("stale_state", f"Window {w.id} is at version {w.version}, not {expected}; "
                                f"re-read {WINDOWS_URI}.", currentVersion=w.version)
        errors = []
        for key in args:
            if key not in act.params:
                errors.append({"field": key, "error": "Unknown argument"})
        for key, schema in act.params.items():
            if key not in args:
                if key in act.required:
                    errors.append({"field": key, "error": "Required"})
            elif not isinstance(args[key], str):  # every parameter here is a string
                errors.append({"field": key, "error": "Must be a string"})
            elif len(args[key].strip()) < schema.get("minLength", 0):
                errors.append({"field": key, "error": "Cannot be empty"})
        if errors:
            raise ToolError("validation_failed", f"Rejected: {len(errors)} argument(s) invalid", fields=errors)
        return args

    def apply(self, w: Window | None, action: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run a validated action. Returns the §5.4 ToolResult."""
        opened: list[str] = []
        if action == "set_title":
            if self.defect == "version-noop" and args["title"] == self.note_title:
                w.version += 1  # planted: a no-op still counts as a change
            self.note_title = args["title"]
            message = "Title set"
        elif action == "set_code":
            self.note_code = args["code"]
            message = "Access code stored" if args["code"] else "Access code cleared"
            if self.defect == "echo-code" and args["code"]:
                message = f"Access code {args['code']} stored"  # planted: the secret comes back
        elif action == "confirm" and self.defect == "failing-confirm":
            raise ToolError("action_failed", "confirm failed inside the application")
        elif action == "delete":
            d = self.open_window("confirm", "Confirm delete", modal=True, owner=w.id)
            opened.append(d.id)
            message = f"A confirmation dialog opened ({d.id})"
        elif action in ("confirm", "reset"):
            self.note_title, self.note_code = "", ""
            message = "Note reset" if action == "reset" else "Note deleted"
            if w is not None:
                del self.windows[w.id]
        elif action == "cancel":
            del self.windows[w.id]
            message = "Deletion cancelled"
        else:  # unreachable: resolve() only returns listed actions
            raise ToolError("action_not_available", f"Unknown action {action!r}")
        # §7.1: a window's version moves exactly when its summary/blocks changed.
        for other in self.windows.values():
            now = self.render(other)
            if now != other.rendered:
                other.rendered, other.version = now, other.version + 1
        return {"message": message, "openedWindowIds": opened}


APPROVAL_FORM = {"type": "object", "properties": {"approve": {"type": "boolean"}}, "required": ["approve"]}


async def ask_approval(ctx) -> None:
    """Puts the confirmation to the client's user; raises approval_denied unless they say yes."""
    can_ask = ctx.session.check_client_capability(
        types.ClientCapabilities(elicitation=types.ElicitationCapability()))
    if not can_ask:
        raise ToolError("approval_denied", "Deleting needs the person's approval, and your client cannot ask "
                        "its user. Nothing was changed.", reason="no_approver")
    answer = await ctx.session.elicit_form("Delete the note? Reply with approve = true to go ahead.",
                                           APPROVAL_FORM, related_request_id=ctx.request_id)
    if answer.action != "accept" or not (answer.content or {}).get("approve"):
        raise ToolError("approval_denied", "The person declined; nothing was changed.", reason="declined")


def tool_result(body: dict[str, Any], is_error: bool) -> types.CallToolResult:
    # §12.3: structuredContent carries the decision data; content mirrors it as text.
    text = json.dumps(body, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=body, is_error=is_error)


def build_server(app: App) -> Server:
    lock = asyncio.Lock()  # §10.1: one call takes effect at a time
    # stdio means exactly one connection per process, so the subscription is a
    # flag and notifications go to the caller's session (which routes them to
    # the connection's standalone channel, not just this request).
    subscribed = False

    async def list_resources(ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(
            uri=WINDOWS_URI, name="windows", title="Application windows", mime_type="application/json",
            description="Every window, its content, and which windows are operable now.")])

    async def read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if str(params.uri) != WINDOWS_URI:
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource {params.uri}")
        text = json.dumps(app.snapshot(), ensure_ascii=False)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=WINDOWS_URI, mime_type="application/json", text=text)])

    async def subscribe(ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
        nonlocal subscribed
        if str(params.uri) != WINDOWS_URI:
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource {params.uri}")
        subscribed = True
        return types.EmptyResult()

    async def unsubscribe(ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        nonlocal subscribed
        if str(params.uri) != WINDOWS_URI:
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource {params.uri}")
        subscribed = False
        return types.EmptyResult()

    async def list_tools(ctx, params) -> types.ListToolsResult:
        tools = []
        for name, act, w in app.tools():
            props = dict(act.params)
            where = f"the \"{w.title}\" window ({w.id})" if w else "the whole application"
            if w is not None:
                props["expectedVersion"] = {"type": "integer", "minimum": 0,
                                            "description": f"The version of {w.id} your decision is based on"}
            read_only, destructive, idempotent, open_world = act.hints
            tools.append(types.Tool(
                name=name,
                title=f"{act.title} · {w.title} (window {w.id})" if w else f"{act.title} · Notes app",
                description=f"{act.description} Acts on {where}.",
                input_schema={"type": "object", "properties": props, "required": act.required,
                              "additionalProperties": False},
                output_schema=OUTPUT_SCHEMA,
                annotations=types.ToolAnnotations(read_only_hint=read_only, destructive_hint=destructive,
                                                  idempotent_hint=idempotent, open_world_hint=open_world),
            ))
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        async with lock:
            before_names, before = set(app.tool_names()), json.dumps(app.snapshot())
            try:
                w, act, action = app.resolve(params.name)
                args = app.check_args(w, act, params.arguments or {})
                if app.defect == "notify-early" and subscribed:
                    # Planted: announce the change (if it will be one, judged on a
                    # copy) before applying it; a re-read during the pause sees old state.
                    trial = copy.deepcopy(app)
                    trial.apply(w and trial.windows[w.id], action, args)
                    if json.dumps(trial.snapshot()) != before:
                        await ctx.session.send_resource_updated(WINDOWS_URI)
                        await asyncio.sleep(0.1)
                if app.defect == "approval-confirm" and action == "confirm":
                    await ask_approval(ctx)
                body = app.apply(w, action, args)
            except ToolError as e:
                log.info("%s rejected: %s", params.name, e.body["code"])
                if app.defect == "jsonrpc-error" and e.body["code"] == "validation_failed":
                    raise MCPError(types.INVALID_PARAMS, e.body["message"], data=e.body) from None
                return tool_result(e.body, is_error=True)  # nothing changed, nothing sent
            log.info("%s ok: %s", params.name, body["message"])
            # §6/§8.3: notify only now, after the change has fully taken effect.
            if subscribed and app.defect != "notify-early" and json.dumps(app.snapshot()) != before:
                await ctx.session.send_resource_updated(WINDOWS_URI)
            if app.defect != "no-list-changed" and set(app.tool_names()) != before_names:
                await ctx.session.send_tool_list_changed()
            return tool_result(body, is_error=False)

    return Server(
        "gui-bridge-python-fixture",
        version="0.1.0",
        instructions=INSTRUCTIONS,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_subscribe_resource=subscribe,  # registering it is what sets resources.subscribe
        on_unsubscribe_resource=unsubscribe,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def main(defect: str | None) -> None:
    app = App(defect)
    app.open_window("editor", "Note Editor")  # w1
    server = build_server(app)
    # tools.listChanged comes from NotificationOptions, not from a handler.
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, options)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--defect", choices=sorted(DEFECTS), help="plant one spec violation")
    defect = parser.parse_args().defect
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="gui_bridge_server: %(message)s")
    if defect:
        log.warning("planted defect %s: %s", defect, DEFECTS[defect])
    anyio.run(main, defect)
