"""Progress of a long action through the official Python MCP SDK (PyPI `mcp`
2.x), over stdio, on both protocol generations (legacy handshake, and
2026-07-28): order_desk's `w2__refresh` reloads 10,000 rows in batches and
reports how far it has got.

    python python_progress.py PATH/TO/order_desk

A call made with a progress callback (the SDK then sends a progressToken)
must see increasing progress ending at 10,000 of 10,000; a call made
without one must cause no notifications/progress at all, which a message
handler that sees every notification counts. Prints one line per
generation and exits 0, or prints the failure and exits 1.
"""

from __future__ import annotations

import asyncio
import os
import sys
import traceback

from mcp import Client, StdioServerParameters

SERVER_ENV = {"RUST_LOG": os.environ.get("RUST_LOG", "warn")}
ROWS = 10_000.0


class Seen:
    """Every notifications/progress the session received, in order."""

    def __init__(self) -> None:
        self.progress: list[float] = []

    async def __call__(self, message) -> None:
        if getattr(message, "method", None) == "notifications/progress":
            self.progress.append(float(message.params.progress))


class Callback:
    """What a call's progress callback was told."""

    def __init__(self) -> None:
        self.reports: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.reports.append((progress, total, message))

    async def until_done(self) -> None:
        # The SDK runs callbacks as tasks of their own: let them land.
        async def done() -> None:
            while not any(progress == ROWS for progress, _, _ in self.reports):
                await asyncio.sleep(0.01)

        await asyncio.wait_for(done(), 5.0)


async def run(binary: str, mode: str) -> str:
    seen = Seen()
    params = StdioServerParameters(command=binary, env=SERVER_ENV)
    async with Client(params, mode=mode, message_handler=seen, cache=None) as client:
        await client.list_tools()
        # Without a callback the SDK sends no token: no progress may come.
        result = await client.call_tool("w2__refresh", {})
        assert not result.is_error, result
        await asyncio.sleep(0.2)
        assert seen.progress == [], f"progress without asking for it: {seen.progress}"

        callback = Callback()
        result = await client.call_tool("w2__refresh", {}, progress_callback=callback)
        assert not result.is_error, result
        await callback.until_done()
        values = [progress for progress, _, _ in callback.reports]
        assert sorted(values) == values and len(set(values)) == len(values), values
        assert values[-1] == ROWS, values
        assert all(total == ROWS for _, total, _ in callback.reports), callback.reports
        assert all(message and "rows" in message for _, _, message in callback.reports), callback.reports
        # The session as a whole saw exactly these, and increasing.
        assert seen.progress == values, (seen.progress, values)

        # And once more without a callback: still nothing new.
        result = await client.call_tool("w2__refresh", {})
        assert not result.is_error, result
        await asyncio.sleep(0.2)
        assert seen.progress == values, f"progress without asking for it: {seen.progress}"
    return f"{len(values)} notifications, {values[0]:.0f} to {values[-1]:.0f} of {ROWS:.0f}"


async def main(binary: str) -> int:
    failed = 0
    for mode in ["legacy", "2026-07-28"]:
        try:
            print(f"python-sdk progress ({mode}, stdio): ok ({await run(binary, mode)}; none without a callback)")
        except Exception:
            failed += 1
            print(f"python-sdk progress ({mode}, stdio): FAILED", file=sys.stderr)
            traceback.print_exc()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
