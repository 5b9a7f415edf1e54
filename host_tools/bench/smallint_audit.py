"""Count the integer operations of the move generator that would make a big int on the RP2040.

The RP2040's MicroPython keeps ints in 31 bits (-2**30 .. 2**30 - 1) inside the object word; a
value outside that range is an mpz object on the heap, and so is the result of every operation
that has one as an operand (about 32 bytes: a 16-byte GC block for the object, one for its
digits). The unix port keeps 63 bits, so its heap figures cannot show this. This module loads
``firmware/rules/movegen.py`` with every arithmetic and bitwise operation (``a op b``,
``a op= b``, ``-a``, ``~a``) routed through a counter, then runs the same workloads: the count
is the number of heap allocations those operations would make on the board.
"""

import ast
import operator
import os
import sys
import types
from host_tools import REPO_ROOT

LO = -(1 << 30)
HI = (1 << 30) - 1
MPZ_BYTES = 32

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.LShift: operator.lshift,
        ast.RShift: operator.rshift, ast.BitOr: operator.or_, ast.BitAnd: operator.and_,
        ast.BitXor: operator.xor, ast.Pow: operator.pow, ast.Div: operator.truediv}
_UN = {ast.USub: operator.neg, ast.Invert: operator.invert}


class Tally:
    """Operations seen, and those with a big int as an operand or result."""

    def __init__(self):
        self.ops = 0
        self.big = 0

    def reset(self):
        self.ops = 0
        self.big = 0


TALLY = Tally()


def _big(v):
    return type(v) is int and not LO <= v <= HI


def _bin(fn, a, b):
    r = fn(a, b)
    if type(r) is int:
        TALLY.ops += 1
        if _big(a) or _big(b) or _big(r):
            TALLY.big += 1
    return r


def _un(fn, a):
    r = fn(a)
    if type(r) is int:
        TALLY.ops += 1
        if _big(a) or _big(r):
            TALLY.big += 1
    return r


class _Route(ast.NodeTransformer):
    def _fn(self, table, op):
        return ast.Attribute(ast.Name("_ops", ast.Load()), table[type(op)].__name__, ast.Load())

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if type(node.op) not in _BIN:
            return node
        return ast.Call(ast.Name("_bin", ast.Load()),
                        [self._fn(_BIN, node.op), node.left, node.right], [])

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if type(node.op) not in _UN:
            return node
        return ast.Call(ast.Name("_un", ast.Load()), [self._fn(_UN, node.op), node.operand], [])

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if type(node.op) not in _BIN:
            return node
        target = node.target
        load = ast.parse(ast.unparse(target), mode="eval").body     # the same target, read
        value = ast.Call(ast.Name("_bin", ast.Load()),
                         [self._fn(_BIN, node.op), load, node.value], [])
        return ast.Assign([target], value)


def load_movegen(source=None):
    """firmware.rules.movegen (or ``source``, another version's text of it) with every integer
    operation counted into TALLY."""
    path = os.path.join(REPO_ROOT, "firmware", "rules", "movegen.py")
    if source is None:
        with open(path) as f:
            source = f.read()
    tree = ast.parse(source, path)
    tree = ast.fix_missing_locations(_Route().visit(tree))
    mod = types.ModuleType("firmware.rules.movegen_audited")
    mod.__file__ = path
    mod.__dict__.update(_bin=_bin, _un=_un, _ops=operator)
    if REPO_ROOT not in sys.path:
        sys.path.insert(0, REPO_ROOT)
    exec(compile(tree, path, "exec"), mod.__dict__)
    return mod


def count(fn):
    """(operations, big-int operations) of ``fn()``."""
    TALLY.reset()
    fn()
    return TALLY.ops, TALLY.big
