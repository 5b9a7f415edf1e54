"""The rooms' one-way imports, read from the sources with ast (imports inside functions count):
the rules core imports nothing outside itself, the drivers neither the simulator nor the board
logic, the board logic neither the simulator nor the host tools, and no two files import each other, however far round."""

import ast
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPS = ("boot.py", "firmware", "host_tools", "tests")

# (importer's package, packages it must not import, why)
FORBIDDEN = [
    ("firmware.rules", None, "the rules core is pure: it imports only itself"),
    ("firmware.drivers", ("firmware.sim", "firmware.board"),
     "the drivers run on the board, which has no simulator, and below the board logic: the "
     "feature loader and the zone count they share live in firmware/__init__.py"),
    ("firmware.board", ("firmware.sim", "host_tools"),
     "the board logic is deployed: no simulator, no host tools"),
]


def module_name(path, root=ROOT):
    rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
    return rel[:-len(".__init__")] if rel.endswith(".__init__") else rel


def modules(root=ROOT):
    """{dotted name: path} of every Python file of the project."""
    found = {}
    for top in TOPS:
        path = os.path.join(root, top)
        if top.endswith(".py"):
            found[module_name(path, root)] = path
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for f in files:
                if f.endswith(".py"):
                    found[module_name(os.path.join(folder, f), root)] = os.path.join(folder, f)
    return found


def imported(source, name, is_package, known):
    """The project modules that ``source`` (module ``name``) imports, anywhere in it: the most
    specific module of ``known`` each import names (``from a import b`` is module a.b when there
    is one, else a); modules outside the project (the standard library, micropython) are left out."""
    package = name if is_package else name.rpartition(".")[0]

    def resolve(dotted):
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            targets = [base + "." + a.name if base + "." + a.name in known else base
                       for a in node.names]
        else:
            continue
        for t in targets:
            m = resolve(t)
            if m is not None and m != name:
                out.add(m)
    return out


def graph(root=ROOT):
    """{module: set of project modules it imports}."""
    known = modules(root)
    out = {}
    for name, path in known.items():
        with open(path, encoding="utf-8") as f:
            out[name] = imported(f.read(), name, path.endswith("__init__.py"), known)
    return out


def within(name, package):
    return name == package or name.startswith(package + ".")


def violations(edges):
    """Lines naming each import that crosses a room's wall the wrong way."""
    bad = []
    for src in sorted(edges):
        for dst in sorted(edges[src]):
            for room, walls, why in FORBIDDEN:
                if not within(src, room):
                    continue
                if walls is None and not within(dst, room) or \
                        walls is not None and any(within(dst, w) for w in walls):
                    bad.append("%s imports %s (%s)" % (src, dst, why))
    return bad


def cycles(edges):
    """The import cycles: each a sorted list of the modules that reach each other (Tarjan's
    strongly connected components, iteratively), every component of more than one module."""
    index, low, on, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in edges:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


@pytest.fixture(scope="module")
def edges():
    return graph()


def test_no_room_imports_across_its_wall(edges):
    assert violations(edges) == []


def test_no_import_cycle_between_files(edges):
    found = cycles(edges)
    assert not found, "\n".join(
        " <-> ".join(c) + ": " + "; ".join("%s imports %s" % (a, ", ".join(sorted(edges[a] & set(c))))
                                           for a in c) for c in found)


@pytest.mark.parametrize("name, source, expect", [
    ("firmware.rules.x", "import json\nfrom firmware.rules import position\n", {"firmware.rules.position"}),
    ("firmware.rules.x", "def f():\n    from firmware.board import session\n", {"firmware.board.session"}),
    ("firmware.rules.x", "from firmware.rules.position import Position\n", {"firmware.rules.position"}),
    ("firmware.rules.x", "from . import position\nfrom .movegen import Turn\n",
     {"firmware.rules.position", "firmware.rules.movegen"}),
    ("firmware.rules", "from .position import Position\n", {"firmware.rules.position"}),
    ("firmware.drivers.x", "import firmware.sim.world as w\n", {"firmware.sim.world"}),
    ("firmware.board.x", "from firmware import sim\n", {"firmware.sim"}),
    ("firmware.board.x", "class A:\n    def f(self):\n        import host_tools.records.export\n",
     {"host_tools.records.export"}),
])
def test_imports_are_found_wherever_they_are_written(name, source, expect):
    known = {"firmware", "firmware.rules", "firmware.rules.position", "firmware.rules.movegen",
             "firmware.board", "firmware.board.session", "firmware.sim", "firmware.sim.world",
             "host_tools", "host_tools.records.export", name}
    assert imported(source, name, name == "firmware.rules", known) == expect


@pytest.mark.parametrize("edges, bad", [
    ({"firmware.rules.a": {"firmware.board.b"}}, True),
    ({"firmware.rules.a": {"firmware.rules.b"}}, False),
    ({"firmware.drivers.a": {"firmware.sim.world"}}, True),
    ({"firmware.drivers.a": {"firmware.drivers.b", "firmware.rules.c"}}, False),
    ({"firmware.drivers.a": {"firmware.board"}}, True),
    ({"firmware.drivers.a": {"firmware.board.zonemap"}}, True),
    ({"firmware.drivers.a": {"firmware"}}, False),
    ({"firmware.board.a": {"firmware.sim"}}, True),
    ({"firmware.board.a": {"host_tools.records.export"}}, True),
    ({"firmware.board.a": {"firmware.drivers.storage", "firmware.rules.game"}}, False),
    ({"firmware.sim.a": {"firmware.drivers.hardware"}}, False),
])
def test_the_walls(edges, bad):
    assert bool(violations(edges)) is bad


@pytest.mark.parametrize("edges, expect", [
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [["a", "b"], ["c", "d"]]),
])
def test_cycles_are_found(edges, expect):
    assert cycles(edges) == expect


# -- one vocabulary: the house words are imported from their homes (docs/glossary.md) -------------

SIDES_LITERAL = re.compile(r"""\(\s*["']White["'],\s*["']Black["']\s*\)""")
VARIANTS_LITERAL = re.compile(r"""\(\s*["']short["'],\s*["']long["'],\s*["']persian["'],\s*["']jacquet["']""")
# the firmware writes the sides' names where a module of names would cost the board's RAM
SIDES_WRITTEN_HERE = {"firmware/board/record.py", "firmware/board/session.py", "firmware/rules/lines.py"}


def kind_comparisons(source):
    """The record kinds (firmware.board.record.KINDS) a source compares as literal strings."""
    from firmware.board import record
    found = re.findall(r"""(?:\.get\(["']k["']\)|\[["']k["']\]|\bk)\s*(?:==|!=)\s*["']([a-z_]+)["']""", source)
    return [k for k in found if k in record.KINDS]


def sources(*tops):
    for path in sorted(modules().values()):
        rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
        if rel.split("/")[0] in tops:
            with open(path, encoding="utf-8") as f:
                yield rel, f.read()


@pytest.mark.parametrize("source, kinds", [
    ('if ev.get("k") == "turn":', ["turn"]),
    ("elif k == 'end' and x:", ["end"]),
    ('if e["k"] != "game":', ["game"]),
    ('if k == "bar":', []),                          # a zone, not a record kind
    ('if ev.get("k") == rec.TURN:', []),
])
def test_kind_comparisons_are_found(source, kinds):
    assert kind_comparisons(source) == kinds


def test_the_host_tools_compare_record_kinds_by_their_names():
    bad = ["%s: %s" % (rel, ", ".join(k)) for rel, text in sources("host_tools")
           for k in [kind_comparisons(text)] if k]
    assert not bad, "compare with firmware.board.record's names (rec.TURN, ...):\n" + "\n".join(bad)


def test_the_sides_and_the_variants_have_one_home():
    from firmware.board import record
    from firmware.rules import variants
    assert record.SIDES == ("White", "Black")
    assert tuple(variants.VARIANTS) == ("short", "long", "persian", "jacquet", "matador", "backgammon")
    bad = []
    for rel, text in sources("host_tools", "firmware", "boot.py"):
        if SIDES_LITERAL.search(text) and rel not in SIDES_WRITTEN_HERE:
            bad.append("%s writes the sides: import firmware.board.record.SIDES" % rel)
        if VARIANTS_LITERAL.search(text):
            bad.append("%s lists the variants: tuple(firmware.rules.variants.VARIANTS)" % rel)
    assert not bad, "\n".join(bad)
