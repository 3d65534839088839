"""benchmarks/chance_vs_rollout.py's report names the seed its log was measured with
(docs/win-chance.md, "Against rollouts"): ``--report`` alone printed ``--seed``'s default, 5,
whatever seed made the data; now each row records the run's root seed and the report reads it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest
from conftest import load_benchmark

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    return load_benchmark('chance_vs_rollout')


def _row(players: int) -> dict:
    """A measured position as :func:`measure` returns it (hand-made: one seat to move, one other)."""
    seats = [{"seat": s, "role": role, "model": 0.5, "exact": False, "rollout": 0.25 * (s + 1), "variance": 0.1,
              "low": 0.1, "high": 0.9} for s, role in enumerate(("to move", "others"))]
    return {"players": players, "kind": "start", "round": 1, "games": 40, "cpu": 1.0, "seats": seats}


def _report(bench, log: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    monkeypatch.setattr(sys, "argv", ["chance_vs_rollout.py", "--report", "--log", str(log)])
    bench.main()
    return capsys.readouterr().out


def test_the_report_names_the_seed_the_log_was_made_with(tmp_path, monkeypatch, capsys):
    """A run with --seed 17 (its games and rollouts stubbed: the log's rows are what matter)
    records 17 in every row; ``--report`` alone then says seed 17, not the default 5."""
    bench = _bench()
    monkeypatch.setattr(bench, "positions_of", lambda players, seed, per_game, board=None: [(None, "start")] * per_game)
    monkeypatch.setattr(bench, "measure", lambda kept, kind, players, playouts, seed, win_model=None: _row(players))
    log = tmp_path / "log.jsonl"
    bench.run(argparse.Namespace(win_model=None, seed=17, log=str(log), players=(2,), positions=3, per_game=2,
                                 playouts=40))
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(rows) == 3 and all(r["seed"] == 17 for r in rows)
    text = _report(bench, log, monkeypatch, capsys)
    assert "play-outs each, seed 17;" in text and "seed 5" not in text


def test_a_log_of_several_seeds_or_none_says_so(tmp_path, monkeypatch, capsys):
    bench = _bench()
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps({**_row(2), "seed": seed}) + "\n" for seed in (9, 3, 9)))
    assert "play-outs each, seeds 3, 9;" in _report(bench, log, monkeypatch, capsys)
    log.write_text(json.dumps(_row(3)) + "\n")  # a log written before the rows carried the seed
    text = _report(bench, log, monkeypatch, capsys)
    assert "play-outs each, seed not recorded in the log;" in text and "seed 5" not in text
