"""The docs stay true: the shipped copy of the rules matches the project's source of truth."""

from __future__ import annotations

import pytest

from conftest import ROOT

SHARED_RULES = ROOT.parent / "shared" / "RULES.md"


def test_docs_rules_is_the_shared_rules_file():
    """docs/rules.md is a verbatim copy of shared/RULES.md (D1-D20), so users of a clone can read
    the rules every output cites; refresh it with `cp ../shared/RULES.md docs/rules.md`."""
    if not SHARED_RULES.is_file():
        pytest.skip("shared/RULES.md is not beside this checkout")
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == SHARED_RULES.read_text(encoding="utf-8")
