"""Plays the agent for the hello_egui screenshot: adds a task, then asks to
clear the list, so the picture shows the agent's task in the table, the
agent's frame, and the dialog that blocks the list.

    python drive_hello.py http://127.0.0.1:PORT/mcp
"""

import asyncio
import sys

from mcp import Client


async def main(url: str) -> None:
    async with Client(url, mode="legacy", cache=None) as client:
        await client.call_tool("w1__add", {"task": "Call the plumber"})
        await client.call_tool("w1__finish", {"number": 1})
        await client.call_tool("w1__clear", {})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
