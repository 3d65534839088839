"""The tile page of ``shelfie-solve serve`` (``/tile``, docs/serve.md) in a real browser: Debian's
Chromium driven by Playwright at phone size (390 x 844), against a real server on a free port.

A small 2-player position entered by taps only: book B at r5c4, r5c5 and r4c5 and a cat C at
r5c6 on the living room (T3: usable with 2 players), seat 1's shelf holding two books at the
bottom of column 1 (r6c1, r5c1), personal card 1, the goals T-CG1 and T-CG2 (the defaults). The
advice is then exactly ``tile advise --format json`` of the position the URL holds, and one tap on
the best move's Apply gives the position the rules give by hand (T10-T14): the picked cells
empty, the tiles stacked in the chosen column from its lowest empty cell in the pick's order, seat
2 to move. Every visible button and link is at least 44 x 44 px and nothing is wider than the screen.

Screenshots go to ``$SHELFIE_SERVE_SCREENSHOTS`` (docs/serve/ when regenerating the docs), else to
the test's temporary folder. Skipped only where /usr/bin/chromium is absent.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from click.testing import CliRunner

from browser_support import PHONE  # noqa: E402 (skips the module without Chromium)

from shelfie_solver.cli import main  # noqa: E402

from serve_support import Served  # noqa: E402



def check_layout(page: Any) -> None:
    """Nothing wider than the phone and every visible button, link and select >= 44 px."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    small = page.evaluate("""() => [...document.querySelectorAll('button, a, select')]
        .filter(b => b.offsetParent !== null)
        .map(b => [b.getAttribute('aria-label') || b.textContent, b.getBoundingClientRect()])
        .filter(([, r]) => r.width < 44 || r.height < 44 || r.right > 390 || r.left < 0)
        .map(([name, r]) => `${name}: ${r.width}x${r.height} at ${r.left}`)""")
    assert small == []


def shoot(page: Any, folder: Path, name: str, at: str | None = None) -> None:
    """Check the layout, then a 390 x 844 screenshot (scrolled to ``at``, a selector, if given)."""
    check_layout(page)
    if at is not None:
        page.locator(at).scroll_into_view_if_needed()
        page.evaluate("s => document.querySelector(s).scrollIntoView({block: 'start'})", at)
    page.screenshot(path=str(folder / f"{name}.png"))


def url_position(page: Any) -> dict[str, Any]:
    """The position the page's URL holds (after '#', docs/serve.md)."""
    fragment = urlsplit(page.url).fragment
    return json.loads(unquote(parse_qs(fragment, keep_blank_values=True)["position"][0]))


def tap_board(page: Any, cell: str, letter: str) -> None:
    page.click(f"#palette button[data-type='{letter}']")
    page.click(f"#board button[data-cell='{cell}']")


def card_words(served: Served, name: str) -> str:
    """A personal card's words as GET /api/tile/info gives them (T20)."""
    import urllib.request

    with urllib.request.urlopen(served.url + "api/tile/info") as answer:
        info = json.loads(answer.read())
    return next(c["words"] for c in info["cards"] if c["name"] == name)


def in_view(page: Any, selector: str) -> bool:
    """``selector``'s box lies wholly on the 390 x 844 screen as it is scrolled now."""
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]


def cut_selects(page: Any) -> list[str]:
    """The selects whose chosen text is wider than the box shows (its text measured in the
    select's own font, the box less its padding and the arrow, about 24 px)."""
    return page.evaluate("""() => {
        const ctx = document.createElement('canvas').getContext('2d');
        return [...document.querySelectorAll('select')].filter((s) => {
            const style = getComputedStyle(s);
            ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const text = s.options[s.selectedIndex].text;
            const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
            return ctx.measureText(text).width > room;
        }).map((s) => `${s.id}: ${s.options[s.selectedIndex].text}`);
    }""")


def test_a_position_by_taps_then_the_best_move_in_one_tap(browser: Any, shots: Path, tmp_path: Path):
    served = Served(str(tmp_path / "game.json"), "--port", "0")  # no dice game yet: the tile page needs none
    try:
        page = browser.new_page(viewport=PHONE, device_scale_factor=1)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(served.url)  # the dice page links to the tile page
        page.click("#to-tile")
        page.wait_for_selector("#board button[data-cell='r5c5']")
        # 2 players (T3): 29 usable cells, 8 of the 9 columns shown at once (9 x 44 px > 390 px)
        assert page.locator("#board button").count() == 28  # r5c9 is in the hidden 9th column
        page.click("#board-view button[data-view='1']")
        assert page.locator("#board button").count() == 28  # now r5c1 is hidden
        page.click("#board-view button[data-view='0']")
        # 4 players (T3): 45 cells; column 9 holds r5c9 and r6c9 (layout.toml), so 43 shown
        page.click("#setup button[data-value='4']")
        assert page.locator("#board button").count() == 43 and page.locator("#shelves .shelf").count() == 4
        page.click("#setup button[data-value='2']")
        assert page.locator("#board button").count() == 28 and page.locator("#shelves .shelf").count() == 2
        shoot(page, shots, "tile-1-setup")
        for cell, letter in (("r5c4", "B"), ("r5c5", "B"), ("r4c5", "B"), ("r5c6", "C")):
            tap_board(page, cell, letter)
        page.click("#palette button[data-type='B']")
        page.click("#shelves button[data-seat='1'][data-cell='r6c1']")
        page.click("#shelves button[data-seat='1'][data-cell='r5c1']")
        page.select_option("#personal", "1")
        assert in_view(page, "#advise")  # sticky: reachable without scrolling (the page is long)
        assert page.evaluate("document.documentElement.scrollHeight") > PHONE["height"]
        assert cut_selects(page) == []  # every select shows its whole chosen text
        assert page.locator("#personal-words").inner_text() == f"Card 1: {card_words(served, '1')}"  # whole, wrapped
        shoot(page, shots, "tile-1-entry", "#palette")
        before = url_position(page)
        assert before["board"][4][3:6] == "BBC" and before["board"][3][4] == "B"
        assert before["shelf"][0]["rows"][5][0] == "B" and before["shelf"][0]["rows"][4][0] == "B"
        assert before["personal"] == "1" and before["players"] == 2 and before["turn"] == 1
        page.click("#advise")
        page.wait_for_selector("#best")
        page.wait_for_function("() => document.getElementById('advice').getBoundingClientRect().top < 200")
        assert in_view(page, "#best")  # the advice scrolled into view, not left below the button
        shoot(page, shots, "tile-2-advice", "#advice")
        twin = tmp_path / "position.json"  # the same position through the command line
        twin.write_text(json.dumps(before))
        result = CliRunner().invoke(main, ["tile", "advise", str(twin), "--format", "json"])
        assert result.exit_code == 0, result.output
        cli = json.loads(result.stdout)
        best = cli["moves"][0]
        shown = page.locator("#advice li.move").first.get_attribute("data-move")
        assert shown == "+".join(best["cells"]) + f"@{best['column']}"
        assert page.locator("#advice li.move").count() == min(6, cli["legal_moves"])
        page.locator("#advice li.move button.apply").first.click()  # one tap applies the best move
        page.wait_for_function("() => document.getElementById('turn').textContent.includes('seat 2 to move')")
        after = url_position(page)
        # by hand (T10-T14): the picked cells are empty, the tiles go up the column in pick order
        board = [list(row) for row in before["board"]]
        picked = []
        for name in best["cells"]:
            r, c = int(name[1]) - 1, int(name[3]) - 1
            picked.append(board[r][c])
            board[r][c] = "."
        assert "".join(picked) == best["order"]
        rows = [list(row) for row in before["shelf"][0]["rows"]]
        col = best["column"] - 1
        level = max(r for r in range(6) if rows[r][col] == ".")
        for letter in picked:
            rows[level][col] = letter
            level -= 1
        assert after["board"] == ["".join(row) for row in board]
        assert after["shelf"][0]["rows"] == ["".join(row) for row in rows]
        assert after["shelf"][1] == before["shelf"][1] and after["turn"] == 2 and after["personal"] == ""
        assert "Seat 1 took" in page.locator("#message").inner_text()
        shoot(page, shots, "tile-3-applied")
        page.click("#to-dice")
        page.wait_for_selector("#newgame h2")  # back on the dice page: its New game screen, no 404 logged
        assert errors == []
    finally:
        served.stop()


def test_serve_tile_keeps_the_position_in_its_file(browser: Any, tmp_path: Path):
    """``serve GAME --tile FILE.json``: the page opens on the file's position (the example), Advise
    writes it back whole, the best move applied and seat 2's card picked, Advise writes the new
    position; a write made meanwhile elsewhere is not overwritten: the page reloads the file (409)."""
    import tomllib

    example = tomllib.loads((Path(__file__).resolve().parent.parent / "examples/tile/position.toml").read_text())
    kept = tmp_path / "position.json"
    kept.write_text(json.dumps(example))
    served = Served(str(tmp_path / "game.json"), "--port", "0", "--tile", str(kept))
    try:
        assert "keeps its position in" in served.more(3)[2]
        page = browser.new_page(viewport=PHONE, device_scale_factor=1)
        page.goto(served.url + "tile")
        page.wait_for_selector("#board button[data-cell='r7c4']")
        assert page.locator("#board button[data-cell='r7c4']").inner_text() == "C"  # the file's ---CCC--- row 7
        assert "position.json" in page.locator("#message").inner_text()
        start = time.monotonic()
        page.click("#advise")  # the file written, then the 91 moves ranked and shown
        page.wait_for_selector("#best")
        seconds = time.monotonic() - start
        assert seconds < 5, seconds  # docs/performance.md: the measured figure
        assert json.loads(kept.read_text()) == {**example, "personal": "1"}
        best = page.locator("#advice li.move").first.get_attribute("data-move")
        page.locator("#advice li.move button.apply").first.click()
        page.wait_for_function("() => document.getElementById('turn').textContent.includes('seat 2 to move')")
        page.select_option("#personal", "2")
        page.click("#advise")
        page.wait_for_selector("#best")
        written = json.loads(kept.read_text())
        assert written["turn"] == 2 and written["personal"] == "2" and written != example
        assert written == url_position(page)
        assert best is not None
        kept.write_text(json.dumps(example))  # another page (or an editor) writes the file meanwhile
        page.select_option("#personal", "3")
        page.click("#advise")
        page.wait_for_function("() => document.getElementById('message').textContent.includes('reloaded')")
        assert json.loads(kept.read_text()) == example  # not overwritten
        assert url_position(page)["turn"] == 1  # the page shows the file's position again
        check_layout(page)
    finally:
        served.stop()


def test_serve_tile_alone_offers_no_dice_game(browser: Any, tmp_path: Path):
    """``serve --tile FILE.json`` without GAME: the URL printed is the tile page, / goes to it,
    and the tile page has no **Dice game** link (there is no dice game to go to)."""
    kept = tmp_path / "position.json"
    served = Served("--tile", str(kept), "--port", "0")
    try:
        assert served.url.endswith("/tile")
        page = browser.new_page(viewport=PHONE, device_scale_factor=1)
        page.goto(served.url.removesuffix("tile"))
        page.wait_for_selector("#board button")
        assert urlsplit(page.url).path == "/tile"
        assert page.locator("#to-dice").count() == 0
        assert "position.json" in page.locator("#message").inner_text()
        check_layout(page)
    finally:
        served.stop()
    assert not kept.exists()


# --- Undo: the position before the last Apply, several steps deep (docs/serve.md "Undo") ----------


def example_position() -> dict[str, Any]:
    """examples/tile/position.toml read with ``tomllib`` (not the project's reader)."""
    import tomllib

    return tomllib.loads((Path(__file__).resolve().parent.parent / "examples/tile/position.toml").read_text())


def cli_advice(folder: Path, position: dict[str, Any]) -> dict[str, Any]:
    """``tile advise POSITION --format json`` of ``position`` written as a JSON position file."""
    twin = folder / "twin.json"
    twin.write_text(json.dumps(position))
    result = CliRunner().invoke(main, ["tile", "advise", str(twin), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def assert_advice_is(page: Any, cli: dict[str, Any]) -> None:
    """The moves shown (best first, six) and the count are those of ``cli``, tile advise's JSON."""
    shown = [page.locator("#advice li.move").nth(i).get_attribute("data-move")
             for i in range(page.locator("#advice li.move").count())]
    assert shown == ["+".join(m["cells"]) + f"@{m['column']}" for m in cli["moves"][:6]]
    assert page.locator("#advice h2").inner_text().startswith(f"{cli['legal_moves']} legal moves")


def idle(page: Any, words: str) -> None:
    """Wait until the page is not busy, shows its advice and says ``words``."""
    page.wait_for_function("""w => !document.body.hasAttribute('aria-busy') && document.getElementById('best')
        && document.getElementById('message').textContent.includes(w)""", arg=words)


def apply_best(page: Any, seat: int) -> None:
    """Advise, then one tap on the best move's Apply; seat ``seat`` is to move after it."""
    page.click("#advise")  # busy from the tap (set in its handler): wait for this advice, not a shown one
    page.wait_for_function("() => !document.body.hasAttribute('aria-busy') && document.getElementById('best')")
    page.locator("#advice li.move button.apply").first.click()
    page.wait_for_function("s => document.getElementById('turn').textContent.includes(`seat ${s} to move`)", arg=seat)


def assert_nothing_to_undo(page: Any) -> None:
    undo = page.locator("#undo")
    assert undo.is_disabled() and "nothing to undo" in (undo.get_attribute("title") or "")


def test_undo_takes_back_applied_moves_two_deep(browser: Any, shots: Path, tmp_path: Path):
    """The example in the URL; the best move applied, seat 2's card picked and its best move
    applied; a reload keeps Undo; Undo twice: seat 2's position (with its card), then the
    example itself, whose advice is tile advise's of the example again; then nothing to undo."""
    from urllib.parse import quote

    original = example_position()
    served = Served(str(tmp_path / "game.json"), "--port", "0")
    try:
        page = browser.new_page(viewport=PHONE, device_scale_factor=1)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(served.url + "tile#position=" + quote(json.dumps(original)) + "&cards=1,")
        page.wait_for_selector("#board button[data-cell='r7c4']")
        assert url_position(page) == original
        assert_nothing_to_undo(page)
        apply_best(page, 2)
        assert not page.locator("#undo").is_disabled()
        shoot(page, shots, "tile-4-undo")
        page.select_option("#personal", "2")
        second = url_position(page)
        assert second["turn"] == 2 and second["personal"] == "2" and second["board"] != original["board"]
        apply_best(page, 1)
        page.reload()  # the URL keeps the position, this history entry's state the positions before
        page.wait_for_selector("#board button")
        assert url_position(page)["turn"] == 1 and not page.locator("#undo").is_disabled()
        page.click("#undo")
        idle(page, "1 more to undo")
        assert url_position(page) == second and page.locator("#personal").input_value() == "2"
        assert_advice_is(page, cli_advice(tmp_path, second))
        page.click("#undo")
        idle(page, "nothing more to undo")
        assert url_position(page) == original
        assert_advice_is(page, cli_advice(tmp_path, original))
        assert_nothing_to_undo(page)
        shoot(page, shots, "tile-5-undone")
        assert errors == []
    finally:
        served.stop()


def test_undo_writes_the_file_on_its_revision(browser: Any, tmp_path: Path):
    """``serve --tile FILE.json``: Undo writes the position before the last Apply to the file,
    checked against the revision as Advise's write; a file written meanwhile elsewhere is not
    overwritten (409): the page reloads it and has nothing to undo."""
    original = example_position()
    kept = tmp_path / "position.json"
    kept.write_text(json.dumps(original))
    served = Served(str(tmp_path / "game.json"), "--port", "0", "--tile", str(kept))
    try:
        page = browser.new_page(viewport=PHONE, device_scale_factor=1)
        page.goto(served.url + "tile")
        page.wait_for_selector("#board button[data-cell='r7c4']")
        assert_nothing_to_undo(page)
        apply_best(page, 2)
        page.select_option("#personal", "2")
        page.click("#advise")  # the position after the move written to the file
        page.wait_for_selector("#best")
        assert json.loads(kept.read_text())["turn"] == 2
        page.click("#undo")
        idle(page, "nothing more to undo")
        assert json.loads(kept.read_text()) == original == url_position(page)
        assert_advice_is(page, cli_advice(tmp_path, original))
        assert_nothing_to_undo(page)
        check_layout(page)
        # a stale Undo: another phone writes the file between this page's Apply and its Undo
        apply_best(page, 2)
        elsewhere = {**original, "personal": "3"}
        kept.write_text(json.dumps(elsewhere))
        page.click("#undo")
        page.wait_for_function("() => document.getElementById('message').textContent.includes('nothing was undone')")
        assert json.loads(kept.read_text()) == elsewhere  # not overwritten
        assert url_position(page) == elsewhere
        assert_nothing_to_undo(page)
        check_layout(page)
    finally:
        served.stop()
