"""The person's approval through the official Python MCP SDK (PyPI `mcp`
2.x): order_desk started with --require-approval asks the client's user
before `confirm` on the confirmation dialog, or the editor's `set_details`,
runs.

- Legacy handshake (stdio): by an elicitation request; this client answers
  with an elicitation callback, first "no", then "yes".
- 2026-07-28 (stdio and streamable HTTP): the first call answers
  `input_required` with the same form and a signed `requestState`, and the
  SDK calls again with the answer. A yes applies once; a no changes nothing;
  an edit made while the person decides voids the yes; an altered, replayed
  or late state is refused and changes nothing.
- With --approvals-from in-app, a client that says yes to its own question
  is refused, on both generations.

    python python_approval.py PATH/TO/order_desk

Prints one line per run and exits 0, or prints the failures and exits 1.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback

from desk_http import serving
from mcp import Client, StdioServerParameters, types

SERVER_ENV = {"RUST_LOG": os.environ.get("RUST_LOG", "warn")}


class Person:
    """Answers each elicitation with the next of `answers`, recording what it was asked."""

    def __init__(self, answers: list[bool]) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    async def __call__(self, context, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params.message)
        approve = self.answers.pop(0)
        return types.ElicitResult(action="accept", content={"approve": approve})


async def call(client: Client, name: str, arguments: dict | None = None) -> tuple[bool, dict]:
    result = await client.call_tool(name, arguments or {})
    return bool(result.is_error), result.structured_content or {}


async def legacy(binary: str) -> None:
    person = Person([False, True])
    params = StdioServerParameters(command=binary, args=["--require-approval"], env=SERVER_ENV)
    async with Client(params, mode="legacy", elicitation_callback=person, cache=None) as client:
        # The SDK checks results against the schemas of the tools it has
        # listed, so list again whenever the tool set changed.
        await client.list_tools()
        is_error, _ = await call(client, "w1__edit_field", {"field": "recipient", "value": "Ada"})
        assert not is_error
        await client.list_tools()
        is_error, submitted = await call(client, "w1__submit")
        assert not is_error and submitted["openedWindowIds"] == ["w3"], submitted
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "approval" in tools["w3__confirm"].description, tools["w3__confirm"].description

        is_error, declined = await call(client, "w3__confirm")
        assert is_error and declined["code"] == "approval_denied", declined
        assert declined["reason"] == "declined", declined
        assert "Confirm submission" in person.asked[0], person.asked

        is_error, confirmed = await call(client, "w3__confirm")
        assert not is_error, confirmed
        assert confirmed.get("approvedBy") == "client", confirmed
        assert len(person.asked) == 2, person.asked
    print("python-sdk approval by elicitation (legacy, stdio): ok (declined, then approved)")


async def recipient(client: Client) -> str:
    contents = (await client.read_resource("app://windows")).contents
    snapshot = json.loads(contents[0].text)
    editor = next(w for w in snapshot["windows"] if w["id"] == "w1")
    form = next(b for b in editor["blocks"] if b["type"] == "fields")
    return next(i["value"] for i in form["items"] if i["label"] == "Recipient")


def details(name: str) -> dict:
    return {"recipient": name, "amount": 12.5}


async def answer(client: Client, name: str, state: str, approve: bool) -> tuple[bool, dict]:
    """The retry of `w1__set_details(name)` carrying `state` and an answer."""
    responses = {"approval": types.ElicitResult(action="accept", content={"approve": approve})}
    result = await client.session.call_tool(
        "w1__set_details",
        details(name),
        input_responses=responses,
        request_state=state,
        allow_input_required=True,
    )
    assert not isinstance(result, types.InputRequiredResult), result
    return bool(result.is_error), result.structured_content or {}


async def question(client: Client, name: str) -> str:
    """The first round of `w1__set_details(name)`: its requestState."""
    result = await client.session.call_tool("w1__set_details", details(name), allow_input_required=True)
    assert isinstance(result, types.InputRequiredResult), result
    assert "approval" in (result.input_requests or {}), result
    assert result.request_state, result
    return result.request_state


async def modern(target, label: str) -> None:
    person = Person([True, False])
    async with Client(target, mode="2026-07-28", elicitation_callback=person, cache=None) as client:
        await client.list_tools()
        # The SDK's own loop: the question, the person's yes, the retry.
        is_error, done = await call(client, "w1__set_details", details("Ada"))
        assert not is_error, done
        assert done.get("approvedBy") == "client", done
        assert "Order Editor" in person.asked[0] and 'recipient: "Ada"' in person.asked[0], person.asked
        assert await recipient(client) == "Ada"
        # A no changes nothing.
        is_error, declined = await call(client, "w1__set_details", details("Bo"))
        assert is_error and declined["code"] == "approval_denied", declined
        assert declined["reason"] == "declined", declined
        assert await recipient(client) == "Ada"

        # An edit while the person decides: the yes no longer holds.
        state = await question(client, "Cy")
        edited = await client.call_tool("w1__edit_field", {"field": "recipient", "value": "Dee"})
        assert not edited.is_error, edited
        is_error, stale = await answer(client, "Cy", state, True)
        assert is_error and stale["code"] == "stale_state", stale
        assert await recipient(client) == "Dee"

        # Altered, for other arguments, replayed: refused, nothing changed.
        state = await question(client, "Eve")
        altered = state[:-1] + ("A" if state[-1] != "A" else "B")
        is_error, refused = await answer(client, "Eve", altered, True)
        assert is_error and refused["reason"] == "invalid", refused
        is_error, refused = await answer(client, "Mallory", state, True)
        assert is_error and refused["reason"] == "invalid", refused
        assert await recipient(client) == "Dee"
        is_error, applied = await answer(client, "Eve", state, True)
        assert not is_error and applied["approvedBy"] == "client", applied
        assert await recipient(client) == "Eve"
        edited = await client.call_tool("w1__edit_field", {"field": "recipient", "value": "Fay"})
        assert not edited.is_error, edited
        is_error, replayed = await answer(client, "Eve", state, True)
        assert is_error and replayed["reason"] == "replayed", replayed
        assert await recipient(client) == "Fay"
    print(f"python-sdk approval by question and retry (2026-07-28, {label}): ok")


EXPIRING = ["--require-approval", "--approval-timeout", "1"]


async def expired(target, label: str) -> None:
    """A state sent back after the approval timeout (order_desk started with EXPIRING)."""
    async with Client(target, mode="2026-07-28", elicitation_callback=Person([]), cache=None) as client:
        state = await question(client, "Gus")
        await asyncio.sleep(1.5)
        is_error, late = await answer(client, "Gus", state, True)
        assert is_error and late["reason"] == "expired", late
        assert await recipient(client) == ""
    print(f"python-sdk approval answered too late (2026-07-28, {label}): ok (refused)")


async def in_app_only(binary: str) -> None:
    """A client that approves its own calls, where only the person at the app counts."""
    for mode in ["legacy", "2026-07-28"]:
        person = Person([True, True])
        params = StdioServerParameters(
            command=binary, args=["--require-approval", "--approvals-from", "in-app"], env=SERVER_ENV
        )
        async with Client(params, mode=mode, elicitation_callback=person, cache=None) as client:
            await client.list_tools()
            is_error, refused = await call(client, "w1__set_details", details("Ada"))
            assert is_error and refused["reason"] == "no_approver", refused
            assert person.asked == [], person.asked
            assert await recipient(client) == ""
    print("python-sdk approval with --approvals-from in-app: ok (the client's own yes is refused, both generations)")


async def over_http(binary: str, args: list[str], run) -> None:
    """Runs `run(url, label)` against order_desk serving streamable HTTP with `args`."""
    with serving(binary, args, SERVER_ENV) as url:
        await run(url, "streamable HTTP")


async def main(binary: str) -> int:
    stdio = StdioServerParameters(command=binary, args=["--require-approval"], env=SERVER_ENV)
    expiring = StdioServerParameters(command=binary, args=EXPIRING, env=SERVER_ENV)
    runs = [
        ("legacy, stdio", lambda: legacy(binary)),
        ("2026-07-28, stdio", lambda: modern(stdio, "stdio")),
        ("2026-07-28, streamable HTTP", lambda: over_http(binary, ["--require-approval"], modern)),
        ("2026-07-28, expired, stdio", lambda: expired(expiring, "stdio")),
        ("2026-07-28, expired, streamable HTTP", lambda: over_http(binary, EXPIRING, expired)),
        ("--approvals-from in-app", lambda: in_app_only(binary)),
    ]
    failed = 0
    for label, run in runs:
        try:
            await asyncio.wait_for(run(), 120)
        except Exception:  # report every run, then fail
            failed += 1
            print(f"python-sdk approval ({label}): FAILED", file=sys.stderr)
            traceback.print_exc()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
