"""``learned:FILE``: parameters written by ``train`` used as the objective (advise, play,
review) and the strategy (simulate) without copying them into the package; bad files are one
line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.game.record import game_to_dict
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.learned.model_file import DEFAULT_MODEL_PATH, ModelError, model_named
from shelfie_solver.dice.review import review
from shelfie_solver.dice.strategies import strategy_named
from shelfie_solver.dice.play.gamefile import kept_game_from_dict as table_from_dict
from shelfie_solver.dice.play.gamefile import objective_for


def _run(*args: str) -> object:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The shipped parameters copied to a file, and the same with every weight 0."""
    folder = tmp_path_factory.mktemp("params")
    data = json.loads(DEFAULT_MODEL_PATH.read_text())
    (folder / "copy.json").write_text(json.dumps(data))
    data["weights"] = {n: {p: [0] * len(w) for p, w in rows.items()} for n, rows in data["weights"].items()}
    (folder / "zero.json").write_text(json.dumps(data))
    return {"copy": str(folder / "copy.json"), "zero": str(folder / "zero.json")}


def _exact_column(output: str) -> list[str]:
    """The hold column and exact value column of advise's table."""
    rows = [line.split() for line in output.splitlines() if line[:1].isdigit()]
    return [f"{row[1]} {row[4]}" for row in rows]


def test_zero_weights_value_the_points(files: dict[str, str]) -> None:
    """With every weight 0 the future term F vanishes, so a position is worth its score (D19) and
    the objective values each hold exactly as the points objective does."""
    dice = ["advise", "--dice", "CCBJPP", "--marks", "oo.../...../x..../...../.....", "--top", "40", "--exact"]
    zero = _run(*dice, "--objective", f"learned:{files['zero']}")
    points = _run(*dice, "--objective", "points")
    assert zero.exit_code == 0 and points.exit_code == 0, zero.output  # type: ignore[attr-defined]
    assert f"objective learned:{files['zero']}" in " ".join(zero.output.split())  # type: ignore[attr-defined]  # wrapped at 80
    assert _exact_column(zero.output) == _exact_column(points.output)  # type: ignore[attr-defined]
    assert len(_exact_column(zero.output)) > 5  # type: ignore[attr-defined]


def test_a_copy_of_the_shipped_file_plays_like_learned(files: dict[str, str]) -> None:
    """The same parameters from a file give the same seeded tournament as plain learned."""
    args = ["--board", "examples/boards/small.toml", "--games", "4", "--seed", "3", "--jobs", "1",
            "--format", "json"]
    mine = _run("simulate", "--players", f"learned:{files['copy']},greedy", *args)
    shipped = _run("simulate", "--players", "learned,greedy", *args)
    assert mine.exit_code == 0, mine.output  # type: ignore[attr-defined]
    a, b = json.loads(mine.output), json.loads(shipped.output)  # type: ignore[attr-defined]
    assert json.dumps(a).replace(f"learned:{files['copy']}", "learned") == json.dumps(b)


def test_review_of_its_own_play_loses_nothing(files: dict[str, str], board: object, rules: object) -> None:
    """A seat played by the strategy learned:FILE, reviewed under the objective learned:FILE:
    every hold and marking is the objective's best (loss 0)."""
    strategy = strategy_named(f"learned:{files['zero']}")
    assert strategy.name == f"learned:{files['zero']}"
    game = play_seeded(board, rules, [strategy, strategy_named("greedy")], 2)  # type: ignore[arg-type]
    table = table_from_dict(game_to_dict(game))
    result = review(table, 0, f"learned:{files['zero']}")
    assert result.decisions and all(d.loss == 0 for d in result.decisions)
    chosen = objective_for(f"learned:{files['zero']}", table.state)  # on the last turn: the exact win chance
    assert getattr(chosen, "base", chosen).weights.sum() == 0
    assert model_named("learned") is None and model_named(f"learned:{files['copy']}") is not None


@pytest.mark.parametrize("name, message", [
    ("learned:missing.json", "cannot read missing.json"),
    ("learned:", "no parameter file named"),
    ("learned:examples", "not a regular file"),
    ("learned:examples/boards/small.toml", "not valid JSON"),
])
def test_bad_files_one_line(name: str, message: str, tmp_path: Path) -> None:
    for args in (["advise", "--dice", "CCBJPP", "--objective", name],
                 ["simulate", "--players", f"{name},greedy", "--games", "1", "--seed", "1"]):
        result = _run(*args)
        lines = result.output.strip().splitlines()  # type: ignore[attr-defined]
        assert result.exit_code == 2 and len(lines) == 1, result.output  # type: ignore[attr-defined]
        assert lines[0].startswith("Error:") and message in lines[0], lines


def test_foreign_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"format": "shelfie-solve learned 1", "weight_scale": 1}))
    with pytest.raises(ModelError, match="another feature set"):
        model_named(f"learned:{path}")
    path.write_text("{}")
    result = _run("review", "nogame.json", "--objective", f"learned:{path}")
    assert result.exit_code == 2  # type: ignore[attr-defined]


def test_train_names_the_objective(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    result = _run("train", "--seed", "1", "--games", "2", "--iterations", "1", "--players", "1", "--jobs", "1",
                  "--output", str(out))
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    assert f"learned:{out}" in result.output.splitlines()[-1]  # type: ignore[attr-defined]
    assert model_named(f"learned:{out}") is not None
