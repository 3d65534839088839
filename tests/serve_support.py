"""A real ``shelfie-solve serve`` in a subprocess for the tests (docs/serve.md): started on a
free port (``--port 0``), its URL read from the first line of standard output."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent


class Served:
    """A running server: ``url`` (the first line it printed), ``lines`` (what followed). Its
    output is read by two threads (a pipe read with ``select`` would miss lines already buffered)."""

    def __init__(self, game: str, *args: str, timeout: float = 30) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from shelfie_solver.cli import main; main()", "serve", game, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        self._out: queue.Queue[str | None] = queue.Queue()
        self._err: list[str | None] = []
        self._threads = [threading.Thread(target=self._pump, args=(self.process.stdout, self._out.put), daemon=True),
                         threading.Thread(target=self._pump, args=(self.process.stderr, self._err.append),
                                          daemon=True)]
        for thread in self._threads:
            thread.start()
        self.lines: list[str] = []
        self.url = self._line(timeout)

    @staticmethod
    def _pump(stream: IO[str] | None, put: Callable[[str | None], None]) -> None:
        """Every line of ``stream`` to ``put``, then ``None`` at its end."""
        assert stream is not None
        for line in stream:
            put(line)
        put(None)

    def _line(self, timeout: float) -> str:
        try:
            line = self._out.get(timeout=timeout)
        except queue.Empty:
            self.stop()
            raise AssertionError("the server printed no line in time") from None
        if line is None:
            raise AssertionError(f"the server ended: {''.join(e for e in self._err if e)}")
        return line.rstrip("\n")

    def more(self, count: int, timeout: float = 10) -> list[str]:
        """The next ``count`` lines of standard output."""
        for _ in range(count):
            self.lines.append(self._line(timeout))
        return self.lines[-count:]

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> tuple[int, float, str, str]:
        """Send ``sig``; the exit code, the seconds it took to exit, the rest of stdout and stderr."""
        start = time.monotonic()
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        seconds = time.monotonic() - start
        for thread in self._threads:
            thread.join(timeout=5)
        rest = []
        while not self._out.empty():
            line = self._out.get()
            if line is not None:
                rest.append(line)
        return self.process.returncode, seconds, "".join(rest), "".join(e for e in self._err if e)


def one_line_error(response: Any, status: int, *fragments: str) -> str:
    """A refusal: the status, a JSON object whose "error" is one line, no traceback."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    message = response.json()["error"]
    assert "\n" not in message and "Traceback" not in response.text
    for fragment in fragments:
        assert fragment.lower() in message.lower(), message
    return message
