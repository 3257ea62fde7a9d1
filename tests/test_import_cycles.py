"""No two modules of pikelocal import each other at run time, directly or through others: the package's import graph
(grimp's, which import-linter builds on; imports under ``if TYPE_CHECKING:`` left out, imports inside functions
counted) has no cycle. A cycle means two modules that cannot be read, tested or moved one without the other, and
an import order that decides whether a name exists yet."""

from __future__ import annotations

import grimp


def test_no_module_of_pikelocal_imports_itself_through_another() -> None:
    graph = grimp.build_graph("pikelocal", exclude_type_checking_imports=True, cache_dir=None)
    cycles = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                cycles.add(" -> ".join((module, *back)))
    assert not cycles, "import cycles:\n" + "\n".join(sorted(cycles))
