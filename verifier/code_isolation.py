"""Assert tests decided outside the sandbox: parse them, run only the calls inside, judge here.

An assert test is *isolated* when every statement is ``assert EXPR`` (or ``import math``) and EXPR is
built only from

* calls to the task's entry point whose arguments are literals (anything ``ast.literal_eval`` takes);
* literals; comparisons (``== != < <= > >= in not in``, and ``is``/``is not`` against None/True/False);
  ``not``/``and``/``or``; ``+ - * / // % **`` and unary ``- +``; constant subscripts and slices;
  list/tuple/set/dict displays of such expressions;
* the pure builtins ``abs round len sorted set frozenset tuple list min max sum float int str bool
  all any isinstance`` and ``math.isclose/isnan/isinf/isfinite``, applied here to plain data.

Only the calls go into the sandbox, where the trusted harness of :mod:`verifier.code_channel` makes
every one of them, in Python's evaluation order, after the program (so a stateful entry point sees
the calls Python would make — except that a call an ``and``/``or`` would skip still runs), and
reports each result as strict plain data. :func:`evaluate` then judges EXPR here, lazily and in
Python's order (``and``/``or`` short-circuit, chained comparisons), with the real builtins on the
rebuilt values. Expected values never enter the sandbox. A call that raised, was not plain data or
has no result fails the assert only where Python would have evaluated it.
Arithmetic is on numbers (and ``+``/``*`` on str/list/tuple) with size limits, so a returned value
cannot make this process do unbounded work.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
from dataclasses import dataclass, field

from verifier.code_channel import CallOutcome, check_hashes

_MAX_SEQUENCE = 1_000_000  # longest str/list/tuple the evaluator builds with + or *
_PLAIN = (int, float, str, bool, type(None), list, tuple, dict, set, frozenset)
_NUMBER = (int, float, bool)
_TYPES = {t.__name__: t for t in (int, float, str, bool, list, tuple, dict, set, frozenset)}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
        ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not}
_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_UNARY = {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos}
_MATH = {"isclose": math.isclose, "isnan": math.isnan, "isinf": math.isinf, "isfinite": math.isfinite}


def _sum(values: object, start: object = 0) -> object:
    items = list(values)  # type: ignore[call-overload]
    if type(start) not in _NUMBER or any(type(v) not in _NUMBER for v in items):
        raise TypeError("sum() here adds numbers only")
    return sum(items, start)  # type: ignore[arg-type]


def _hashed(build: type) -> object:
    def checked(items: object = ()) -> object:
        items = list(items)  # type: ignore[call-overload]
        check_hashes(items)
        return build(items)

    checked.__name__ = build.__name__
    return checked


_BUILTINS = {f.__name__: f for f in (abs, round, len, sorted, tuple, list, min, max, float, int, str, bool,
                                      all, any)}
_BUILTINS |= {"sum": _sum, "set": _hashed(set), "frozenset": _hashed(frozenset)}


class NotIsolated(ValueError):
    """The test is outside the isolated form; the message says which part."""


@dataclass(frozen=True)
class EntryCall:
    display: str  # "fizzbuzz(30)"
    args: str  # a tuple literal, "(30,)"
    kwargs: str  # a dict literal, "{}"


@dataclass
class IsolatedTest:
    asserts: list[ast.Assert]
    calls: list[EntryCall] = field(default_factory=list)
    index: dict[int, int] = field(default_factory=dict)  # id() of a call node -> its position in calls

    def payload(self) -> list[tuple[str, str]]:
        """What goes into the sandbox: each call's (args, kwargs) literal sources, nothing else."""
        return [(c.args, c.kwargs) for c in self.calls]


def _literal(node: ast.AST) -> tuple[bool, object]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _is_plain(value: object) -> bool:
    if type(value) in (list, tuple, set, frozenset):
        return all(_is_plain(v) for v in value)  # type: ignore[attr-defined]
    if type(value) is dict:
        return all(_is_plain(k) and _is_plain(v) for k, v in value.items())
    return type(value) in _PLAIN


class _Parser:
    def __init__(self, entry: str) -> None:
        self.entry = entry
        self.test = IsolatedTest(asserts=[])

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Import) and [(a.name, a.asname) for a in node.names] == [("math", None)]:
            return
        if not isinstance(node, ast.Assert):
            raise NotIsolated(f"line {node.lineno}: {type(node).__name__} statement")
        if node.msg is not None and not _literal(node.msg)[0]:
            raise NotIsolated(f"line {node.lineno}: the assert message is not a literal")
        self.expr(node.test)
        self.test.asserts.append(node)

    def expr(self, node: ast.expr) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == self.entry:
            return self.call(node)
        ok, value = _literal(node)
        if ok:
            if not _is_plain(value):
                raise NotIsolated(f"literal of type {type(value).__name__} (results are plain data only)")
            return None
        if isinstance(node, ast.BoolOp):
            children = node.values
        elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            children = [node.operand]
        elif isinstance(node, ast.BinOp) and type(node.op) in _BIN:
            children = [node.left, node.right]
        elif isinstance(node, ast.Compare) and all(type(op) in _CMP for op in node.ops):
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                if isinstance(op, (ast.Is, ast.IsNot)) and not any(
                    isinstance(x, ast.Constant) and (x.value is None or x.value is True or x.value is False)
                    for x in operands[i:i + 2]
                ):
                    raise NotIsolated("'is' compares with None, True or False only")
            children = operands
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            children = node.elts
        elif isinstance(node, ast.Dict) and None not in node.keys:
            children = [x for pair in zip(node.keys, node.values, strict=True) for x in pair]  # type: ignore[misc]
        elif isinstance(node, ast.Subscript) and _constant_index(node.slice):
            children = [node.value]
        elif isinstance(node, ast.Call):
            return self.builtin(node)
        else:
            raise NotIsolated(f"{ast.unparse(node)!r} is outside the isolated form")
        for child in children:
            if isinstance(child, ast.Starred):
                raise NotIsolated("starred expression")
            self.expr(child)
        return None

    def call(self, node: ast.Call) -> None:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise NotIsolated(f"{ast.unparse(node)}: starred arguments")
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if not _literal(arg)[0]:
                raise NotIsolated(f"{ast.unparse(node)}: argument {ast.unparse(arg)!r} is not a literal")
        # Every call, in Python's evaluation order (not deduplicated: a stateful entry point sees the
        # calls Python would make, except those an and/or would have skipped).
        args = ast.unparse(ast.Tuple(elts=node.args, ctx=ast.Load()))
        kwargs = ast.unparse(ast.Dict(keys=[ast.Constant(k.arg) for k in node.keywords],
                                      values=[k.value for k in node.keywords]))
        self.test.index[id(node)] = len(self.test.calls)
        self.test.calls.append(EntryCall(display=ast.unparse(node), args=args, kwargs=kwargs))

    def builtin(self, node: ast.Call) -> None:
        func = node.func
        is_math = (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                   and func.value.id == "math" and func.attr in _MATH)
        if not is_math and not (isinstance(func, ast.Name) and (func.id in _BUILTINS or func.id == "isinstance")):
            raise NotIsolated(f"call to {ast.unparse(func)!r} (neither the entry point nor an allowed builtin)")
        args = list(node.args)
        if isinstance(func, ast.Name) and func.id == "isinstance":
            if len(args) != 2 or node.keywords or not _type_names(args[1]):
                raise NotIsolated("isinstance takes an expression and plain type names")
            args = args[:1]
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
            raise NotIsolated(f"{ast.unparse(node)}: starred arguments")
        for arg in [*args, *(k.value for k in node.keywords)]:
            self.expr(arg)


def _constant_index(node: ast.expr) -> bool:
    if isinstance(node, ast.Slice):
        return all(p is None or _literal(p)[0] for p in (node.lower, node.upper, node.step))
    return _literal(node)[0]


def _type_names(node: ast.expr) -> list[type] | None:
    nodes = node.elts if isinstance(node, ast.Tuple) else [node]
    if all(isinstance(n, ast.Name) and n.id in _TYPES for n in nodes):
        return [_TYPES[n.id] for n in nodes]  # type: ignore[attr-defined]
    return None


@functools.lru_cache(maxsize=4096)
def parse_isolated(code: str, entry_point: str | None) -> IsolatedTest:
    """The isolated form of an assert test; raises :class:`NotIsolated` (with the reason) otherwise."""
    if not entry_point:
        raise NotIsolated("the task names no entry point")
    try:
        module = ast.parse(code)
    except SyntaxError as exc:
        raise NotIsolated(f"syntax error: {exc.msg}") from None
    parser = _Parser(entry_point)
    for statement in module.body:
        parser.statement(statement)
    if not parser.test.asserts:
        raise NotIsolated("no assert statement")
    return parser.test


class _CallFailed(Exception):
    pass


class _Evaluator:
    """Evaluates a parsed assert expression the way Python would, on plain data, with real builtins."""

    def __init__(self, test: IsolatedTest, outcomes: dict[int, CallOutcome]) -> None:
        self.test, self.outcomes = test, outcomes
        self.seen: dict[str, object] = {}  # display -> value, for the explanation

    def run(self, node: ast.expr) -> object:
        if isinstance(node, ast.Call) and id(node) in self.test.index:
            call = self.test.calls[self.test.index[id(node)]]
            outcome = self.outcomes.get(self.test.index[id(node)])
            if outcome is None:
                raise _CallFailed(f"no result for {call.display}: the program exited before the test finished")
            if outcome.error is not None:
                raise _CallFailed(f"{call.display} failed: {outcome.error}")
            self.seen[call.display] = outcome.value
            return outcome.value
        ok, value = _literal(node)
        if ok:
            return value
        if isinstance(node, ast.BoolOp):
            result: object = None
            for child in node.values:
                result = self.run(child)
                if bool(result) is isinstance(node.op, ast.Or):
                    return result
            return result
        if isinstance(node, ast.UnaryOp):
            operand = self.run(node.operand)
            if not isinstance(node.op, ast.Not) and type(operand) not in _NUMBER:
                raise TypeError(f"bad operand type for unary {type(node.op).__name__}")
            return _UNARY[type(node.op)](operand)
        if isinstance(node, ast.BinOp):
            return _arith(type(node.op), self.run(node.left), self.run(node.right))
        if isinstance(node, ast.Compare):
            left = self.run(node.left)
            for op, comparator in zip(node.ops, node.comparators, strict=True):
                right = self.run(comparator)
                if not _CMP[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = [self.run(e) for e in node.elts]
            return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
        if isinstance(node, ast.Dict):
            return {self.run(k): self.run(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
        if isinstance(node, ast.Subscript):
            target = self.run(node.value)
            if isinstance(node.slice, ast.Slice):
                parts = [None if p is None else ast.literal_eval(p)
                         for p in (node.slice.lower, node.slice.upper, node.slice.step)]
                return target[slice(*parts)]  # type: ignore[index]
            return target[ast.literal_eval(node.slice)]  # type: ignore[index]
        if isinstance(node, ast.Call):
            return self.builtin(node)
        raise TypeError(f"unexpected node {type(node).__name__}")  # the parser lets none through

    def builtin(self, node: ast.Call) -> object:
        if isinstance(node.func, ast.Attribute):
            func = _MATH[node.func.attr]
        elif node.func.id == "isinstance":  # type: ignore[attr-defined]
            return isinstance(self.run(node.args[0]), tuple(_type_names(node.args[1]) or ()))
        else:
            func = _BUILTINS[node.func.id]  # type: ignore[attr-defined]
        args = [self.run(a) for a in node.args]
        kwargs = {k.arg: self.run(k.value) for k in node.keywords}
        return func(*args, **kwargs)  # type: ignore[operator]


def _arith(op: type[ast.operator], a: object, b: object) -> object:
    if type(a) in _NUMBER and type(b) in _NUMBER:
        if op is ast.Pow and type(a) is int and type(b) is int and abs(a) > 1 and a.bit_length() * abs(b) > 1 << 20:
            raise OverflowError("power too large to evaluate")
        return _BIN[op](a, b)
    sequences = (str, list, tuple)
    if op is ast.Add and type(a) is type(b) and type(a) in sequences:
        if len(a) + len(b) > _MAX_SEQUENCE:  # type: ignore[arg-type]
            raise OverflowError("sequence too long")
        return a + b  # type: ignore[operator]
    if op is ast.Mult and {type(a), type(b)} & set(sequences) and int in (type(a), type(b)):
        seq, n = (a, b) if type(b) is int else (b, a)
        if len(seq) * max(n, 0) > _MAX_SEQUENCE:  # type: ignore[arg-type, operator]
            raise OverflowError("sequence too long")
        return seq * n  # type: ignore[operator]
    raise TypeError(f"unsupported operands for {op.__name__}: {type(a).__name__}, {type(b).__name__}")


def evaluate(test: IsolatedTest, outcomes: dict[int, CallOutcome]) -> tuple[bool, str]:
    """Whether every assert of ``test`` holds on the calls' outcomes, and why not."""
    for assert_ in test.asserts:
        evaluator = _Evaluator(test, outcomes)
        source = ast.unparse(assert_.test)
        try:
            holds = bool(evaluator.run(assert_.test))
        except _CallFailed as exc:
            return False, str(exc)
        except Exception as exc:  # what the same expression would raise in Python: the assert fails
            return False, f"assert {_short(source)} raised {type(exc).__name__}: {_short(str(exc))}"
        if not holds:
            got = ", ".join(f"{d} returned {_short(v)}" for d, v in evaluator.seen.items())
            return False, f"AssertionError: {_short(source)}" + (f" ({got})" if got else "")
    return True, "passed"


def _short(value: object, limit: int = 120) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
