"""order_desk serving streamable HTTP on a free port, for the interop scripts."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator


@contextlib.contextmanager
def serving(binary: str, args: list[str], env: dict[str, str]) -> Iterator[str]:
    """Starts `binary --http 127.0.0.1:0 *args` and yields the MCP endpoint it prints."""
    process = subprocess.Popen(
        [binary, "--http", "127.0.0.1:0", *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **env},
    )
    try:
        url = None
        for line in process.stderr:
            if "MCP endpoint " in line:
                url = line.split("MCP endpoint ", 1)[1].strip()
                break
        assert url, "order_desk did not print its endpoint"
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
