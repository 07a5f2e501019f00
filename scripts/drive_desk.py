"""Plays the agent for the desk_gui screenshot: reads some report rows,
focuses the editor, fills in the recipient and submits, so the picture
shows the agent's frame on the editor and the confirmation dialog it opened.

    python drive_desk.py http://127.0.0.1:PORT/mcp
"""

import asyncio
import sys

from mcp import Client


async def main(url: str) -> None:
    async with Client(url, mode="legacy", cache=None) as client:
        await client.call_tool("w2__load_rows", {"offset": 0, "limit": 3})
        await client.call_tool("w1__focus", {})
        await client.call_tool("w1__edit_field", {"field": "recipient", "value": "Ada Lovelace"})
        await client.call_tool("w1__submit", {})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
