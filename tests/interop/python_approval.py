"""The person's approval through the official Python MCP SDK (PyPI `mcp`
2.x, legacy handshake): order_desk started with --require-approval asks the
client's user, by elicitation, before `confirm` on the confirmation dialog
runs. This client answers with an elicitation callback: first "no", then
"yes".

    python python_approval.py PATH/TO/order_desk

Prints one line and exits 0, or prints the failure and exits 1.
"""

from __future__ import annotations

import asyncio
import os
import sys
import traceback

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


async def main(binary: str) -> int:
    person = Person([False, True])
    params = StdioServerParameters(command=binary, args=["--require-approval"], env=SERVER_ENV)
    try:
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
            assert len(person.asked) == 2, person.asked
    except Exception:
        print("python-sdk approval: FAILED", file=sys.stderr)
        traceback.print_exc()
        return 1
    print("python-sdk approval by elicitation: ok (declined, then approved)")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
