"""The docs stay true: the shipped copies of the rules match the project's source of truth."""

from __future__ import annotations

import pytest

from conftest import ROOT


@pytest.mark.parametrize("shared, shipped", [("RULES.md", "rules.md"), ("TILE-RULES.md", "tile-rules.md")])
def test_docs_rules_is_the_shared_rules_file(shared, shipped):
    """docs/rules.md (D1-D20) and docs/tile-rules.md (T1-T26) are verbatim copies of
    ../shared/RULES.md and ../shared/TILE-RULES.md, so users of a clone can read the rules every
    output cites; refresh with `cp ../shared/RULES.md docs/rules.md` (likewise TILE-RULES.md)."""
    source = ROOT.parent / "shared" / shared
    if not source.is_file():
        pytest.skip(f"shared/{shared} is not beside this checkout")
    assert (ROOT / "docs" / shipped).read_text(encoding="utf-8") == source.read_text(encoding="utf-8")
