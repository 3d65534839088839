"""Benchmark of ``shelfie-solve serve`` (docs/serve.md, figures in docs/performance.md).

1. The page: Debian's Chromium (Playwright) at 390 x 844 on a real server on loopback; for each
   of ``--turns`` seeded rolls, the time from the tap on the sixth die to the best hold shown
   (the first advice of a turn: the roll written, its advice computed, the page drawn), and the
   server's part of it (``Server-Timing``); then Stop and the best marking by taps.
2. Each action's server time (``Server-Timing: app;dur``) through the JSON API on a second game:
   roll, reroll, stop, mark, told, undo, state, revision, review.
3. The review lines (``GET /api/review``): on a third game by taps (the roll, Stop, the best
   marking), the time from each tap that writes to the review lines of the new position drawn,
   and how many times a line was drawn as the placeholder ``…`` after the first review was in.

    python benchmarks/bench_serve.py [--turns 8] [--seed 1] [--review-only]

Bounded: loopback only, a fixed number of requests; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from click.testing import CliRunner  # noqa: E402
from serve_support import Served  # noqa: E402

from shelfie_solver.cli import main  # noqa: E402

FACES = "PGBACJ"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def new_game(path: Path) -> str:
    result = CliRunner().invoke(main, ["play", "new", str(path), "--players", "Ann,Ben", "--first", "Ann"])
    assert result.exit_code == 0, result.output
    return str(path)


def call(url: str, method: str = "GET", body: dict[str, Any] | None = None) -> tuple[dict[str, Any], float, float]:
    """(answer, server ms from Server-Timing, round trip ms)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        answer = urllib.request.urlopen(request, timeout=60)
    except urllib.error.HTTPError as refused:
        raise SystemExit(f"{method} {url} {body}: {refused.code} {refused.read().decode()}") from None
    with answer:
        payload = json.loads(answer.read())
        timing = answer.headers.get("server-timing", "app;dur=nan")
    trip = (time.perf_counter() - start) * 1000
    return payload, float(timing.split("dur=")[1]), trip


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} / {max(values):.0f}"


def next_roll(page: Any) -> bool:
    """Wait for the next turn's roll; ``False`` once the game is over (the rolls stop there)."""
    page.wait_for_function("() => /to roll|Game over/.test(document.getElementById('turn').textContent)")
    return "Game over" not in page.locator("#turn").inner_text()


def finish_turn(page: Any, tap: Any) -> None:
    """From a roll's advice, by taps: Stop (or the advised stop) and its confirmation, then the
    best marking, or the best shelf to give up on a failed result (D13) and its confirmation;
    ``tap(f)`` runs each writing tap ``f`` (the review bench times them)."""
    page.click("#stop" if page.locator("#stop").count() else "#advised")
    page.wait_for_selector("#confirm[open]")
    tap(lambda: page.click("#confirm-yes"))
    page.wait_for_function("() => !document.querySelector('#advice h2').textContent.includes('holds')")
    if page.locator("#advice .option[data-shelf]").count():  # a failed result (D13): asked once
        page.locator("#advice .option").first.click()
        page.wait_for_selector("#confirm[open]")
        tap(lambda: page.click("#confirm-yes"))
    elif page.locator("#mark-most").count():  # a decided game: one button, the marking that scores most
        tap(lambda: page.click("#mark-most"))
    else:
        tap(lambda: page.locator("#advice .option").first.click())
    page.wait_for_function("() => !document.getElementById('best')")  # the marking written: no advice till the roll


def bench_page(url: str, rolls: list[str]) -> tuple[list[float], list[float]]:
    from playwright.sync_api import sync_playwright

    page_ms: list[float] = []
    server_ms: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        timings: list[float] = []
        page.on("response", lambda r: timings.append(float(r.headers.get("server-timing", "app;dur=0").split("dur=")[1]))
                if r.url.endswith("/api/roll") else None)
        page.goto(url)
        page.wait_for_selector("#faces button")
        for roll in rolls:
            if not next_roll(page):
                break
            for code in roll[:-1]:
                page.click(f"#faces button[aria-label$='({code})']")
            start = time.perf_counter()
            page.click(f"#faces button[aria-label$='({roll[-1]})']")
            page.wait_for_selector("#best")
            page_ms.append((time.perf_counter() - start) * 1000)
            page.wait_for_timeout(50)
            server_ms.append(timings[-1])
            finish_turn(page, lambda tap: tap())
        browser.close()
    return page_ms, server_ms


#: Counts, in the page, every time a sheet's review line is drawn as the placeholder ("...": no figure).
PLACEHOLDER_WATCH = """
window.__placeholders = 0;
new MutationObserver(() => {
  if (document.body && document.body.dataset.reviewed === "1" &&
      [...document.querySelectorAll('#sheets .delta')].some(n => n.textContent.endsWith('\u2026'))) window.__placeholders += 1;
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


def bench_review(url: str, rolls: list[str]) -> tuple[list[float], int]:
    """The time from each tap that writes (the roll's last die, Stop, the best marking) to the
    sheets' review lines of the new position (``GET /api/review`` answered for the state's digest
    and drawn), and how many times a review line was drawn as the placeholder after the first
    review was in."""
    from playwright.sync_api import sync_playwright

    waits: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.add_init_script(PLACEHOLDER_WATCH)
        reviewed: dict[str, float] = {}
        page.on("response", lambda r: reviewed.setdefault(r.json()["digest"], time.perf_counter())
                if r.url.endswith("/api/review") and r.ok else None)
        page.goto(url)
        page.wait_for_selector("#faces button")
        page.wait_for_function("() => document.querySelector('#sheets .delta') === null || "
                               "!document.querySelector('#sheets .delta').textContent.endsWith('\u2026')")
        page.evaluate("() => { document.body.dataset.reviewed = '1'; }")

        def timed(tap: Any) -> None:
            start = time.perf_counter()
            with page.expect_response(lambda r: r.request.method == "POST") as answer:
                tap()
            digest = answer.value.json()["digest"]
            for _ in range(400):
                if digest in reviewed:
                    break
                page.wait_for_timeout(5)
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => r(null)))")  # drawn
            waits.append(reviewed[digest] - start)

        for roll in rolls:
            if not next_roll(page):
                break
            for code in roll[:-1]:
                page.click(f"#faces button[aria-label$='({code})']")
            timed(lambda: page.click(f"#faces button[aria-label$='({roll[-1]})']"))
            page.wait_for_selector("#best")
            finish_turn(page, timed)
            page.wait_for_timeout(600)  # the player looks up: the review of the marking comes meanwhile
        placeholders = int(page.evaluate("() => window.__placeholders"))
        browser.close()
    return waits, placeholders


def bench_api(url: str, rng: random.Random, turns: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {}

    def timed(name: str, method: str = "GET", body: dict[str, Any] | None = None) -> dict[str, Any]:
        answer, server, _ = call(url + "api/" + name, method, body)
        times.setdefault(name, []).append(server)
        return answer

    state = timed("state")
    for _ in range(turns):
        if state["status"]["turn"]["over"]:
            break
        revision = state["revision"]
        roll = "".join(rng.choice(FACES) for _ in range(6))
        state = timed("roll", "POST", {"revision": revision, "dice": roll})
        best = state["advice"]["holds"][0]
        if best["reroll"]:
            new = "".join(rng.choice(FACES) for _ in best["reroll"])
            state = timed("reroll", "POST", {"revision": state["revision"], "keep": best["keep"] or "-", "new": new})
        stop = timed("stop")["advice"]
        for again in (False, True):  # the marking, undone once and entered again
            if stop.get("markings"):
                state = timed("mark", "POST", {"revision": state["revision"], "items": stop["markings"][0]["cells"]})
            else:
                state = timed("fail", "POST", {"revision": state["revision"], "shelf": "best"})
            if not again:
                timed("review")
                timed("revision")
                state = timed("undo", "POST", {"revision": state["revision"]})
        if state["status"]["turn"]["over"]:
            break
        seat = state["status"]["turn"]["seat"] - 1
        rows = state["status"]["sheets"][seat]["marks"].split("/")
        free = [shelf["cells"][c] for shelf, row in zip(state["layout"]["shelves"], rows)
                for c, mark in enumerate(row) if mark == "."]
        state = timed("told", "POST", {"revision": state["revision"], "items": [rng.choice(free)]})
        state = timed("state")
    return times


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--review-only", action="store_true",
                        help="only part 3: the tap -> the review lines of the new position")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rolls = ["".join(rng.choice(FACES) for _ in range(6)) for _ in range(args.turns)]
    with tempfile.TemporaryDirectory() as folder:
        served = Served(new_game(Path(folder) / "review.json"), "--port", "0")
        try:
            review_ms, placeholders = bench_review(served.url, rolls)
        finally:
            served.stop()
        if not args.review_only:
            page_game, api_game = new_game(Path(folder) / "page.json"), new_game(Path(folder) / "api.json")
            served = Served(page_game, "--port", "0")
            try:
                page_ms, server_ms = bench_page(served.url, rolls)
            finally:
                served.stop()
            served = Served(api_game, "--port", "0")
            try:
                times = bench_api(served.url, rng, args.turns)
            finally:
                served.stop()
    print(f"seed {args.seed}, {args.turns} turns; median / max in ms")
    print()
    print("| measure | median / max (ms) |")
    print("|---|---|")
    if not args.review_only:
        print(f"| first advice after the last die is tapped, on the page | {summary(page_ms)} |")
        print(f"| ... of which the server (roll written + advice) | {summary(server_ms)} |")
        for name, values in times.items():
            print(f"| server time of `{name}` ({len(values)}x) | {summary(values)} |")
    print(f"| a write's tap -> the review lines of the new position ({len(review_ms)}x) | "
          f"{summary([t * 1000 for t in review_ms])} |")
    print(f"| ... meanwhile a review line drawn as the placeholder (times) | {placeholders} |")


if __name__ == "__main__":
    main_bench()
