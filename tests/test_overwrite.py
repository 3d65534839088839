"""No command replaces a file it did not write (core/files.py ``check_overwrite``, docs/formats.md
"Limits"): every output a command writes, the named one and those beside it (a table's header,
checkpoints, plots, cheat sheet files, cache entries), is refused in one line (exit 2, the file
byte for byte as it was) when it holds another kind of file, and replaced with ``--force``; a
file the command wrote before (its format key or magic bytes) is replaced as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.core import diskcache
from shelfie_solver.core.files import FileWriteError, check_overwrite, json_kind, magic_kind

from conftest import EXAMPLES, assert_one_line_error
from test_hostile_input import TINY_BOARD, TINY_RULES

RUNNER = CliRunner()
SMALL = str(EXAMPLES / "boards" / "small.toml")


def cli(*args: object):
    return RUNNER.invoke(main, [str(a) for a in args])


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """A saved game of ``play new`` (the file a stray --save replaced)."""
    path = tmp_path / "mygame.json"
    assert cli("play", "new", path, "--players", "Ann,Ben,me").exit_code == 0
    return path


@pytest.fixture
def tiny(tmp_path: Path) -> list[str]:
    (tmp_path / "tiny-board.toml").write_text(TINY_BOARD)
    (tmp_path / "tiny-rules.toml").write_text(TINY_RULES)
    return ["--board", str(tmp_path / "tiny-board.toml"), "--rules", str(tmp_path / "tiny-rules.toml")]


def refused(result, path: Path, before: bytes) -> None:
    assert_one_line_error(result, str(path.name), "--force")
    assert path.read_bytes() == before


# --- the helper --------------------------------------------------------------------------------


def test_check_overwrite_recognises_only_its_kinds(tmp_path: Path):
    kind = json_kind("a thing", "thing 1")
    lines = json_kind("things", "thing 1", "game")
    ours, other, empty = tmp_path / "ours.json", tmp_path / "other.json", tmp_path / "empty.json"
    ours.write_text('\ufeff {\n  "format" : "thing 1", "game": 0}')
    other.write_text('{"format": "thing 2"}')
    empty.write_text("")
    check_overwrite(ours, kind)
    check_overwrite(ours, lines)
    check_overwrite(empty, kind)  # nothing to lose
    check_overwrite(tmp_path / "missing.json", kind)
    with pytest.raises(FileWriteError, match='holds "format": "thing 2", not a thing'):
        check_overwrite(other, kind)
    with pytest.raises(FileWriteError, match="not things"):
        check_overwrite(other, lines)
    check_overwrite(other, kind, force=True)
    png = magic_kind("a PNG image", b"\x89PNG\r\n\x1a\n")
    (tmp_path / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n...")
    check_overwrite(tmp_path / "a.png", png)
    with pytest.raises(FileWriteError, match='holds "format": "thing 1", not a PNG image'):
        check_overwrite(ours, png)
    (tmp_path / "text.png").write_text("notes")
    with pytest.raises(FileWriteError, match="holds something else"):
        check_overwrite(tmp_path / "text.png", png)
    (tmp_path / "link.json").symlink_to(other)  # a link is judged by the file it leads to
    with pytest.raises(FileWriteError):
        check_overwrite(tmp_path / "link.json", kind)


# --- solve-game --------------------------------------------------------------------------------


def test_float_save_never_replaces_a_game_beside_it(game: Path):
    """The repro: `play new mygame.json`, then `solve-game --float --save mygame.npy` replaced the
    game with the table's header (exit 0); now refused, the game intact; --force replaces it."""
    before = game.read_bytes()
    npy = game.with_suffix(".npy")
    refused(cli("solve-game", "--board", SMALL, "--float", "--jobs", "1", "--save", npy), game, before)
    assert not npy.exists()
    assert cli("play", "status", game).exit_code == 0
    done = cli("solve-game", "--board", SMALL, "--float", "--jobs", "1", "--save", npy, "--force")
    assert done.exit_code == 0, done.output
    assert game.read_text().startswith('{"format": "shelfie-solve value table binary 1"')
    again = cli("solve-game", "--board", SMALL, "--float", "--jobs", "1", "--save", npy)  # its own files
    assert again.exit_code == 0, again.output


def test_float_save_never_replaces_another_npy_name(tmp_path: Path, tiny: list[str]):
    npy = tmp_path / "t.npy"
    npy.write_text("notes")
    refused(cli("solve-game", *tiny, "--float", "--jobs", "1", "--save", npy), npy, b"notes")
    assert cli("solve-game", *tiny, "--float", "--jobs", "1", "--save", npy, "--force").exit_code == 0
    assert npy.read_bytes()[:6] == b"\x93NUMPY"


def test_exact_save_never_replaces_a_game(game: Path, tiny: list[str]):
    before = game.read_bytes()
    refused(cli("solve-game", *tiny, "--save", game), game, before)
    assert cli("solve-game", *tiny, "--save", game, "--force").exit_code == 0
    assert cli("solve-game", *tiny, "--save", game).exit_code == 0  # now a value table: ours


def test_float_checkpoints_never_replace_files_of_an_unclaimed_directory(tmp_path: Path, tiny: list[str]):
    folder = tmp_path / "ck"
    folder.mkdir()
    mine = folder / "layer-000.npy"
    mine.write_text("my own array")
    result = cli("solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", folder)
    assert_one_line_error(result, "layer-000.npy", "--force")
    assert mine.read_text() == "my own array" and not (folder / "solve.json").exists()
    forced = cli("solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", folder, "--force")
    assert forced.exit_code == 0, forced.output
    assert mine.read_bytes()[:6] == b"\x93NUMPY"
    assert cli("solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", folder).exit_code == 0  # resumed


def test_float_checkpoint_array_of_another_kind_in_a_claimed_directory(tmp_path: Path, tiny: list[str]):
    folder = tmp_path / "ck"
    assert cli("solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", folder).exit_code == 0
    (folder / "layer-000.json").unlink()  # layer 0 to be solved again ...
    (folder / "layer-000.npy").write_text("not an array")  # ... over a file that is no array
    assert_one_line_error(cli("solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", folder),
                          "layer-000.npy", "--force")
    assert (folder / "layer-000.npy").read_text() == "not an array"


# --- simulate, tile simulate, review, train, cheatsheet -----------------------------------------


def test_simulate_save_never_replaces_a_kept_game(game: Path, tmp_path: Path):
    before = game.read_bytes()
    args = ["simulate", "--board", SMALL, "--players", "greedy", "--games", "1", "--seed", "1", "--jobs", "1"]
    refused(cli(*args, "--save", game), game, before)
    assert cli(*args, "--save", game, "--force").exit_code == 0
    assert cli(*args, "--save", game).exit_code == 0  # now games of simulate --save


def test_tile_simulate_save_never_replaces_a_position(tmp_path: Path):
    target = tmp_path / "pos.toml"
    target.write_bytes((EXAMPLES / "tile" / "position.toml").read_bytes())
    before = target.read_bytes()
    args = ["tile", "simulate", "--players", "greedy,greedy", "--games", "1", "--seed", "1", "--jobs", "1"]
    refused(cli(*args, "--save", target), target, before)
    assert cli(*args, "--save", target, "--force").exit_code == 0
    assert cli(*args, "--save", target).exit_code == 0


def test_review_plot_never_replaces_another_kind(tmp_path: Path, game: Path):
    games = tmp_path / "s.jsonl"
    assert cli("simulate", "--players", "win,greedy", "--games", "1", "--seed", "4", "--save", games).exit_code == 0
    plot = tmp_path / "curve.png"
    plot.write_text("my notes")
    refused(cli("review", games, "--plot", plot), plot, b"my notes")
    assert cli("review", games, "--plot", plot, "--force").exit_code == 0
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert cli("review", games, "--plot", plot).exit_code == 0  # a PNG: replaced
    svg = tmp_path / "curve.svg"
    svg.write_bytes(plot.read_bytes())  # a PNG where an SVG goes: another kind
    refused(cli("review", games, "--plot", svg), svg, plot.read_bytes())


def test_train_output_and_checkpoint_never_replace_another_kind(tmp_path: Path, game: Path, tiny: list[str]):
    before = game.read_bytes()
    args = ["train", "--seed", "4", "--games", "2", "--iterations", "1", "--players", "1", "--board", SMALL]
    refused(cli(*args, "--output", game), game, before)
    learned = tmp_path / "l.json"
    assert cli(*args, "--output", learned).exit_code == 0
    checkpoint = tmp_path / "l.json.checkpoint"
    assert checkpoint.exists()
    assert cli(*args, "--output", learned).exit_code == 0  # its own output and checkpoint: replaced
    refused(cli(*args, "--output", tmp_path / "m.json", "--checkpoint", game), game, before)
    forced = cli(*args, "--output", tmp_path / "m.json", "--checkpoint", game, "--force")
    assert forced.exit_code == 0, forced.output
    assert game.read_text().startswith('{"settings"')
    refused(cli("train", "--win-model", "--seed", "1", "--games", "2", "--board", SMALL, "--output", learned),
            learned, learned.read_bytes())  # learned parameters where a win model goes


def test_cheatsheet_never_replaces_notes_of_the_same_name(tmp_path: Path):
    notes = tmp_path / "cheatsheet.md"
    notes.write_text("my own notes")
    refused(cli("cheatsheet", "--board", SMALL, "--output", tmp_path), notes, b"my own notes")
    assert not (tmp_path / "item-odds.png").exists()
    assert cli("cheatsheet", "--board", SMALL, "--output", tmp_path, "--force").exit_code == 0
    assert notes.read_text().startswith("# Cheat sheet: ")
    assert cli("cheatsheet", "--board", SMALL, "--output", tmp_path).exit_code == 0  # a sheet: replaced
    (tmp_path / "item-odds.png").write_text("not an image")
    refused(cli("cheatsheet", "--board", SMALL, "--output", tmp_path), tmp_path / "item-odds.png", b"not an image")


def test_a_cache_entry_never_replaces_a_file_of_another_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(tmp_path))
    path = diskcache.entry_path("t", "k")
    assert path is not None
    path.write_bytes(b"someone's file")
    arrays = diskcache.load_or_build("t", "k", {"a": (3,)}, lambda: {"a": np.arange(3)})
    assert (arrays["a"] == np.arange(3)).all()  # built in memory
    assert path.read_bytes() == b"someone's file"
