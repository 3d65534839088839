"""The layout shown in docs/architecture.md holds: every module is on the map, no import cycle
(counting the imports inside functions, which keep start-up fast but still tie modules together),
no private name imported from another module, and the layers (cli above the dice game and the tile
game, both above the game-agnostic core; the two games independent; the web page between the
cli and the games). ``lint-imports`` checks the
layers too, from the contract in pyproject.toml; this test keeps the check in the suite."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "shelfie_solver"
MAP = ROOT / "docs" / "architecture.md"


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(dotted: str) -> bool:
    path = ROOT / dotted.replace(".", "/")
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _imports() -> list[tuple[str, str, str]]:
    """``(importer, imported module, name or '')`` for every ``shelfie_solver`` import, anywhere
    in a module (top level or inside a function)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = _module(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{importer}: relative import (the package uses absolute imports)"
                if node.module and node.module.split(".")[0] == "shelfie_solver":
                    for alias in node.names:
                        dotted = f"{node.module}.{alias.name}"
                        found.append((importer, dotted, "") if _is_module(dotted)
                                     else (importer, node.module, alias.name))
            elif isinstance(node, ast.Import):
                found.extend((importer, alias.name, "") for alias in node.names
                             if alias.name.split(".")[0] == "shelfie_solver")
    return found


def test_every_module_is_on_the_map() -> None:
    text = MAP.read_text(encoding="utf-8")
    listed = set(re.findall(r"`((?:[a-z0-9_]+/)*[a-z0-9_]+\.py)`", text))
    modules = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")}
    missing = sorted(m for m in modules if m not in listed)
    assert not missing, f"docs/architecture.md does not list: {missing}"
    stale = sorted(m for m in listed if m not in modules and not (ROOT / m).exists())
    assert not stale, f"docs/architecture.md lists modules that do not exist: {stale}"


def test_no_import_cycle() -> None:
    graph = nx.DiGraph()
    for importer, imported, _ in _imports():
        if imported != importer and not importer.startswith(imported + "."):  # a package's own __init__
            graph.add_edge(importer, imported)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, f"import cycles: {[' -> '.join(c) for c in cycles[:5]]}"


def test_no_private_name_imported_across_modules() -> None:
    private = [f"{importer} imports {imported}.{name}" for importer, imported, name in _imports()
               if name.startswith("_") and not name.startswith("__")]
    assert not private, private


@pytest.mark.parametrize(("lower", "higher"), [
    ("shelfie_solver.core", "shelfie_solver.dice"),
    ("shelfie_solver.core", "shelfie_solver.tile"),
    ("shelfie_solver.core", "shelfie_solver.cli"),
    ("shelfie_solver.tile", "shelfie_solver.dice"),
    ("shelfie_solver.dice", "shelfie_solver.tile"),
    ("shelfie_solver.dice", "shelfie_solver.cli"),
    ("shelfie_solver.tile", "shelfie_solver.cli"),
    ("shelfie_solver.core", "shelfie_solver.web"),
    ("shelfie_solver.dice", "shelfie_solver.web"),
    ("shelfie_solver.tile", "shelfie_solver.web"),
    ("shelfie_solver.web", "shelfie_solver.cli"),
])
def test_layers(lower: str, higher: str) -> None:
    wrong = sorted({f"{importer} -> {imported}" for importer, imported, _ in _imports()
                    if importer.startswith(lower + ".") and (imported == higher or imported.startswith(higher + "."))})
    assert not wrong, wrong


# --- the map's words kept true ------------------------------------------------------------------

NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _contracts() -> list[dict]:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def _package_docstring() -> str:
    return ast.get_docstring(ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))) or ""


@pytest.mark.parametrize("source", ["docs/architecture.md", "shelfie_solver/__init__.py"])
def test_every_document_cited_exists(source: str):
    """The rules files and other pages cited by the map and the package docstring are the
    project's own paths (docs/rules.md, docs/tile-rules.md), not names of copies elsewhere."""
    text = (ROOT / source).read_text(encoding="utf-8")
    cited = set(re.findall(r"(?<![\w./-])((?:[\w-]+/)*[\w.-]+\.md)\b", text))
    assert "docs/rules.md" in cited and "docs/tile-rules.md" in cited
    missing = sorted(c for c in cited if not (ROOT / c).is_file())
    assert not missing, f"{source} cites files that do not exist: {missing}"


def test_the_layer_count_said_is_the_contracts():
    """The map says how many layers there are, draws as many, and the first contract has as
    many; the package docstring says the same number and names every top package."""
    layers = _contracts()[0]["layers"]
    text = MAP.read_text(encoding="utf-8")
    said = re.search(r"shelfie-solve is (\w+) layers", text)
    assert said and NUMBERS[said.group(1)] == len(layers), (said and said.group(0), layers)
    drawn = re.search(r"```\n(.*?)```", text, re.S)
    assert drawn and len(drawn.group(1).strip().splitlines()) == len(layers)
    for line, layer in zip(drawn.group(1).strip().splitlines(), layers):
        packages = [name.strip().rsplit(".", 1)[-1] for name in layer.split("|")]
        assert [w.rstrip("/") for w in line.split()[:len(packages)]] == packages, (line, layer)
    doc = _package_docstring()
    count = re.search(r"in (\w+) layers", doc)
    assert count and NUMBERS[count.group(1)] == len(layers)
    for package in ("core", "dice", "tile", "web", "cli"):
        assert f":mod:`.{package}`" in doc, package


def test_the_dice_layers_drawn_are_the_contracts():
    (contract,) = [c for c in _contracts() if c.get("containers") == ["shelfie_solver.dice"]]
    text = MAP.read_text(encoding="utf-8")
    drawn = re.findall(r"```\n(.*?)```", text, re.S)[1].strip().splitlines()
    assert [line.split(" (")[0].strip() for line in drawn] == [layer.strip("()") for layer in contract["layers"]]


def test_click_is_only_in_cli():
    """The forbidden contract, by the source too (imports inside functions and TYPE_CHECKING count)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.relative_to(ROOT)}:{node.lineno}" for n in names if n.split(".")[0] == "click"]
    assert not found, found
