"""What several test modules share lives in tests/support/ (docs/ARCHITECTURE.md, "Types and checks"): no module
under tests/ imports a test module, or any other module of tests/ outside tests/support/, so each test module can be
read, run and moved on its own."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def imported(tree: ast.Module) -> list[str]:
    """Every module an import statement anywhere in ``tree`` names (``from tests import x`` names ``tests.x``)."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # a relative import: tests/ is imported by its absolute name only
                names.append("." * node.level + (node.module or ""))
            elif node.module == "tests":
                names += [f"tests.{alias.name}" for alias in node.names]
            elif node.module:
                names.append(node.module)
    return names


def test_no_test_module_imports_another_test_module() -> None:
    wrong = []
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for name in imported(tree):
            shared = name == "tests.support" or name.startswith("tests.support.")
            if name.startswith(".") or (name.startswith("tests.") and not shared) or name == "tests":
                wrong.append(f"{path.relative_to(TESTS.parent)} imports {name}")
    assert not wrong, "move what they share into tests/support/:\n" + "\n".join(wrong)
