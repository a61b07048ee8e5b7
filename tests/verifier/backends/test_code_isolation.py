"""Isolated assert tests: the parser, the harness's plain-data serializer, the strict channel and the
outside evaluator (checked against Python itself), and the in-process fallback's marking."""

from __future__ import annotations

import math
import re

import pytest

from verifier.backends.code import CodeBackend
from verifier.code_channel import CallOutcome, ChannelError, calls_harness, decode_channel
from verifier.code_isolation import NotIsolated, evaluate, parse_isolated
from verifier.sandbox import Sandbox, SandboxLimits
from verifier.types import CodeTask, CodeTest, CodeVerifyRequest, Message


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    return Sandbox(SandboxLimits(timeout_s=5.0))


def _answer(program: str) -> list[Message]:
    return [Message(role="assistant", content=f"```python\n{program}\n```")]


# --------------------------------------------------------------------------- parser

ISOLATED = [
    "assert f(1) == 2",
    "assert f(-1, x=2.5) != (1, 2) and not f([1, {2: 'a'}], {3}, None)",
    "assert f('a') in ['a', 'b'] or f('b') not in {'c'}",
    "assert f(1) is None\nassert f(2) is not True",
    "import math\nassert math.isclose(f(0.1), 0.3, rel_tol=1e-9)",
    "assert abs(f(2) - 1.5) < 1e-9 and round(f(3), 2) == 1.0",
    "assert sorted(f([3, 1])) == [1, 3] and len(f('x')) == 1 and set(f(1)) == {1}",
    "assert f(1)[0] == 1 and f(1)[1:] == [2] and f('k')['a'] == 2",
    "assert isinstance(f(1), (int, float)) and -f(1) < 0 < f(1) <= 3",
    "assert [f(1), f(2)] == [1, 2] and {'a': f(1)} == {'a': 1}",
    "assert f(1) == f(1.0) == f(True)",
    "assert min(f(1), f(2)) + sum([f(3), 1]) * 2 // 1 % 7 == 3 ** 2",
    "assert f(set()) == frozenset() or f(b'x') == 1",
]

NOT_ISOLATED = {
    "x = f(1)\nassert x == 2": "Assign",
    "assert f(y) == 2": "not a literal",
    "assert g(1) == 2": "'g'",
    "assert f(1).real == 2": "outside the isolated form",
    "assert f(*[1]) == 2": "starred",
    "assert f(1) == [i for i in range(2)]": "outside the isolated form",
    "assert f(1) is 2": "'is' compares",
    "assert f(1) == b'x'": "bytes",
    "assert sorted(f(1), key=len) == []": "outside the isolated form",
    "assert f(1) == 2, f(2)": "message",
    "for i in range(3):\n    assert f(i) == i": "For",
    "import os\nassert f(1)": "Import",
    "assert f(1) == 2 if f(0) else 3": "outside the isolated form",
}


@pytest.mark.parametrize("code", ISOLATED)
def test_the_isolated_form_is_recognised(code: str) -> None:
    test = parse_isolated(code, "f")
    assert test.asserts and test.calls


@pytest.mark.parametrize(("code", "reason"), NOT_ISOLATED.items())
def test_anything_else_is_not_isolated_and_says_why(code: str, reason: str) -> None:
    with pytest.raises(NotIsolated, match=re.escape(reason)):
        parse_isolated(code, "f")


def test_the_calls_are_sent_in_order_and_the_expected_values_never() -> None:
    test = parse_isolated("assert f(1) == 'SECRET-1' and {f(2): f(3)} != 'SECRET-2'\nassert f(x=-2) == 'SECRET-3'", "f")
    assert [(c.display, c.args, c.kwargs) for c in test.calls] == [
        ("f(1)", "(1,)", "{}"), ("f(2)", "(2,)", "{}"), ("f(3)", "(3,)", "{}"), ("f(x=-2)", "()", "{'x': -2}")]
    harness = calls_harness("f", test.payload())
    assert "SECRET" not in harness
    with pytest.raises(NotIsolated, match="entry point"):
        parse_isolated("assert f(1) == 1", None)


# --------------------------------------------------------------------------- outside evaluator vs Python


def _f(*args: object, **kwargs: object) -> object:
    """A plain-data function the evaluator is checked with: deterministic, echo-like."""
    if kwargs:
        return sorted(kwargs.items())
    if len(args) == 1:
        (x,) = args
        if x == "k":
            return {"a": 2}
        if x == "nan":
            return math.nan
        if x == "boom":
            raise ValueError("boom")
        return x
    return list(args)


EXPRESSIONS = [
    "f(1) == 1", "f(1) == 2", "f(1) == 1.0 == True", "f(2) > f(1) >= 1 > 0", "1 < f(3) < 2",
    "f(0) or f(2)", "(f(0) or f(2)) == 2", "(f(1) and f(0)) == 0", "not f(0) and not f('')",
    "f('a') in 'abc'", "f('z') not in ['a', 'b']", "f(None) is None", "f(0) is not None", "f(True) is True",
    "f(1) is True", "f(1, 2) == [1, 2]", "f((1, 2)) == [1, 2]", "f((1, 2)) == (1, 2)", "f([1, 2]) == (1, 2)",
    "f({1, 2}) == {2, 1}", "f({1}) == frozenset({1})", "f('k') == {'a': 2}", "f('k')['a'] == 2",
    "f([1, 2, 3])[1:] == [2, 3]", "f([1, 2, 3])[-1] == 3", "f([1, 2, 3])[::-1] == [3, 2, 1]",
    "abs(f(0.1) + f(0.2) - 0.3) < 1e-09", "f(0.1) + f(0.2) == 0.3", "round(f(2.675), 2) == 2.67",
    "len(f('abc')) == 3", "sorted(f([3, 1, 2]), reverse=True) == [3, 2, 1]", "min(f([4, 2])) == 2",
    "max(f(1), f(5)) == 5", "sum(f([1, 2.5])) == 3.5", "set(f([1, 1, 2])) == {1, 2}", "tuple(f([1])) == (1,)",
    "list(f('ab')) == ['a', 'b']", "int(f('12')) + float(f('0.5')) == 12.5", "str(f(12)) == '12'",
    "bool(f([])) is False", "all(f([1, 2])) and not any(f([0, '']))", "isinstance(f(1), int)",
    "isinstance(f(True), int)", "isinstance(f(1.5), (str, list))", "math.isclose(f(1.0), 1.0 + 1e-12)",
    "math.isnan(f('nan'))", "f('nan') == f('nan')", "f('nan') != f('nan')", "f(-1) == -1", "-f(2) == -2",
    "f(7) // 2 == 3 and f(7) % 4 == 3 and f(2) ** 10 == 1024", "f(1) / f(0) == 1", "f('a') < f(1)",
    "f([1, 2]) == [f(1), f(2)]", "{'x': f(1)} == {'x': 1}", "(f(1), f(2)) == (1, 2)", "f('ab') * 2 == 'abab'",
    "f([1]) + [2] == [1, 2]", "f(x=1, y=2) == [('x', 1), ('y', 2)]", "f('boom') == 1", "not f('boom')",
    "f(0) and f('boom')", "f(1) or f('boom')", "f(1) == 2 or f('boom') == 1", "f(1) == 1\nassert f(2) == 3",
]


def _python(expr: str) -> bool:
    try:
        namespace = {"f": _f, "math": math}
        exec(compile(f"assert {expr}", "<expr>", "exec"), namespace)
        return True
    except Exception:
        return False


def _direct_outcomes(code: str) -> tuple[object, dict[int, CallOutcome]]:
    test = parse_isolated(code, "f")
    outcomes = {}
    for i, call in enumerate(test.calls):
        try:
            outcomes[i] = CallOutcome(value=_f(*eval(call.args), **eval(call.kwargs)))
        except Exception as exc:
            outcomes[i] = CallOutcome(error=f"{type(exc).__name__}: {exc}")
    return test, outcomes


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_the_outside_evaluator_agrees_with_python(expr: str) -> None:
    test, outcomes = _direct_outcomes(f"import math\nassert {expr}")
    passed, why = evaluate(test, outcomes)  # type: ignore[arg-type]
    assert passed == _python(expr), why


def test_a_missing_or_failed_call_fails_only_where_python_would_reach_it() -> None:
    test = parse_isolated("assert f(1) or f(2)\nassert f(3) == 3", "f")
    ok = CallOutcome(value=3)
    assert evaluate(test, {0: CallOutcome(value=1), 2: ok}) == (True, "passed")  # f(2) is never needed
    passed, why = evaluate(test, {0: CallOutcome(value=0), 2: ok})
    assert not passed and "no result for f(2)" in why
    passed, why = evaluate(test, {0: CallOutcome(value=0), 1: CallOutcome(error="KeyError: 2"), 2: ok})
    assert not passed and "f(2) failed: KeyError: 2" in why


# --------------------------------------------------------------------------- the harness's serializer

PLAIN = (
    "{'big': 2 ** 200, 'neg': -7, 'floats': (math.nan, math.inf, -math.inf, -0.0, 0.1, 5e-324), 'text': 'é\\ud800\\n\"',"
    " 'nested': [(1, [2, (3,)]), {4, 5}, frozenset({(6, 'x')})], (1, 'k'): None, 'flags': [True, False, None]}"
)
SAMPLES = {  # call argument -> what f returns for it
    0: PLAIN,
    1: "collections.Counter('aab')",
    2: "collections.defaultdict(int, {'a': 1})",
    3: "AlwaysEqual()",
    4: "IntLike(3)",
    5: "StrLike('x')",
    6: "ListLike([1])",
    7: "DictLike(a=1)",
    8: "(i for i in range(3))",
    9: "ValueError('x')",
    10: "b'bytes'",
    11: "[1, [2, IntLike(3)]]",
    12: "cyclic",
    13: "'x' * 300_000",
    14: "1 / 0",
    15: "{IntLike(1): 2}",
    16: "float('inf')",
}
PROGRAM = f"""
import collections, math
class AlwaysEqual:
    def __eq__(self, other): return True
class IntLike(int):
    def __eq__(self, other): return True
    __hash__ = int.__hash__
class StrLike(str):
    pass
class ListLike(list):
    pass
class DictLike(dict):
    pass
cyclic = []
cyclic.append(cyclic)
def f(i):
    return eval({SAMPLES!r}[i])
"""


async def test_the_serializer_keeps_plain_data_exactly_and_rejects_everything_else(sandbox: Sandbox) -> None:
    test = parse_isolated("assert " + " and ".join(f"f({i})" for i in SAMPLES), "f")
    result = await sandbox.run(PROGRAM, harness=calls_harness("f", test.payload()))
    assert result.ok, result.stderr
    outcomes = decode_channel(result.report, len(test.calls), truncated=result.report_truncated)
    plain = outcomes[0].value
    expected = eval(PLAIN, {"math": math})
    assert repr(plain) == repr(expected)  # nan, -0.0, tuple vs list, set vs frozenset, key types
    assert type(plain["nested"][0]) is tuple and type(plain["nested"][0][1]) is list  # type: ignore[index]
    assert math.copysign(1.0, plain["floats"][3]) == -1.0 and math.isnan(plain["floats"][0])  # type: ignore[index]
    assert plain["big"] == 2 ** 200 and plain["text"] == "é\ud800\n\""  # type: ignore[index]
    assert outcomes[1].value == {"a": 2, "b": 1} and type(outcomes[1].value) is dict  # stdlib Counter, as a dict
    assert outcomes[2].value == {"a": 1} and outcomes[16].value == math.inf
    errors = {i: outcomes[i].error for i in SAMPLES if outcomes[i].error}
    assert set(errors) == {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
    for i, name in {3: "AlwaysEqual", 4: "IntLike", 5: "StrLike", 6: "ListLike", 7: "DictLike", 8: "generator",
                    9: "ValueError", 10: "bytes", 11: "IntLike", 15: "IntLike"}.items():
        assert errors[i] == f"TypeError: result of type {name} is not plain data", errors[i]
    assert "nested deeper" in str(errors[12]) and "too large" in str(errors[13])
    assert errors[14].startswith("ZeroDivisionError")  # type: ignore[union-attr]


async def test_patching_builtins_json_and_os_does_not_change_what_the_harness_reports(sandbox: Sandbox) -> None:
    patches = """
import builtins, json, os, _json
builtins.type = lambda *a: int
builtins.isinstance = lambda *a: True
builtins.range = lambda *a: iter(())
builtins.len = lambda x: 0
builtins.NameError = builtins.BaseException = None
json.dumps = lambda *a, **k: 'true'
_json.encode_basestring_ascii = lambda s: '"x"'
os.write = lambda fd, data: len(data)
"""
    test = parse_isolated("assert f(1) == 2 and f('s') == 's!'", "f")
    program = patches + "def f(x):\n    return x * 2 if x == 1 else x + '!'\n"
    result = await sandbox.run(program, harness=calls_harness("f", test.payload()))
    outcomes = decode_channel(result.report, len(test.calls))
    assert evaluate(test, outcomes) == (True, "passed")
    result = await sandbox.run(patches + "class E:\n    def __eq__(s, o): return True\ndef f(x):\n    return E()\n",
                               harness=calls_harness("f", test.payload()))
    assert "TypeError: result of type E is not plain data" in str(decode_channel(result.report, 2)[0].error)


async def test_nothing_the_program_can_see_holds_the_expected_values(sandbox: Sandbox) -> None:
    test = parse_isolated("assert f(41) == 'EXPECTED-VALUE-9731'", "f")
    program = """
import os, sys
print(sys.orig_argv, sys.argv, dict(os.environ))
for path in ['/proc/self/cmdline', '/proc/self/environ', 'main.py']:
    try:
        print(open(path).read())
    except OSError as exc:
        print(path, type(exc).__name__)
def f(x):
    return str(x)
"""
    result = await sandbox.run(program, harness=calls_harness("f", test.payload()))
    assert "f(41)" in result.stdout or "(41,)" in result.stdout  # the calls are visible, that is fine
    assert "EXPECTED-VALUE" not in result.stdout + result.stderr


# --------------------------------------------------------------------------- the strict channel


@pytest.mark.parametrize(("report", "problem"), [
    ('{"call":0,"value":["i","0x1"]}', "partial record"),
    ('{"call":0,"value":["i","0x1"]}\n{"call":0,"value":["i","0x2"]}\n', "second record"),
    ('{"call":0,"value":1}\n', "tag, payload"),
    ('{"call":0,"value":["i","12"]}\n', "bad payload"),
    ('{"call":0,"value":["f","1.5"]}\n', "bad payload"),
    ('{"call":0,"value":["eq","*"]}\n', "unknown tag"),
    ('{"call":0,"value":["S",[["l",[]]]]}\n', "unhashable"),
    ('{"call":0,"value":["d",[[["l",[]],null]]]}\n', "unhashable"),
    ('{"call":0,"value":NaN}\n', "non-JSON constant"),
    ('{"call":true,"value":null}\n', "schema"),
    ('{"call":5,"value":null}\n', "schema"),
    ('{"call":0,"value":null,"passed":true}\n', "schema"),
    ('{"passed": true}\n', "schema"),
    ('PASS\n', "not JSON"),
    ('{"end":2}\n', "bad end marker"),
    ('{"end":1}\n{"call":0,"value":null}\n', "after the end marker"),
    ('{"call":0,"value":["s","\u00e9"]}\n', "not ASCII"),
    ("[" * 100_000 + "\n", "not JSON"),
    ('{"call":0,"value":' + '["l",[' * 70 + "null" + "]]" * 70 + "}\n", "nested too deeply"),
])
def test_the_channel_is_parsed_strictly(report: str, problem: str) -> None:
    with pytest.raises(ChannelError, match=problem):
        decode_channel(report, 1)


def test_a_good_channel_and_the_size_limit() -> None:
    report = '{"call":0,"value":["t",[["f","0x1.8p+0"],["s","a"],true,null]]}\n{"call":1,"error":"E: x"}\n{"end":2}\n'
    assert decode_channel(report, 2) == {0: CallOutcome(value=(1.5, "a", True, None)), 1: CallOutcome(error="E: x")}
    with pytest.raises(ChannelError, match="size limit"):
        decode_channel(report, 2, truncated=True)


def test_values_with_one_hash_cannot_stall_the_verifier() -> None:
    m = 2**61 - 1  # ints this far apart share a hash: a set of them would build in quadratic time
    items = ",".join(f'["i","{hex(1 + k * m)}"]' for k in range(5000))
    with pytest.raises(ChannelError, match="degenerate hashes"):
        decode_channel('{"call":0,"value":["S",[' + items + "]]}\n", 1)


# --------------------------------------------------------------------------- backend: in-process fallback


async def test_tests_outside_the_form_run_in_process_and_are_marked(sandbox: Sandbox) -> None:
    task = CodeTask(id="mixed", problem="double", entry_point="double", tests=[
        CodeTest(name="iso", code="assert double(2) == 4"),
        CodeTest(name="inproc", code="x = double(3)\nassert x == 6"),
    ])
    backend = CodeBackend(sandbox)
    good = await backend.verify(CodeVerifyRequest(task=task, trajectory=_answer("def double(x):\n    return 2 * x")))
    assert good.reward == 1.0 and good.meta["isolation"] == "in-process" and good.meta["tests_in_process"] == 1
    assert [c.tags for c in good.criteria] == [["isolation:isolated"], ["isolation:in-process"]]
    assert "in-process: line 1: Assign statement" in good.criteria[1].explanation
    bad = await backend.verify(CodeVerifyRequest(task=task, trajectory=_answer("def double(x):\n    return x")))
    assert bad.reward == 0.0 and "AssertionError" in bad.criteria[1].explanation
    only_isolated = task.model_copy(update={"tests": task.tests[:1]})
    result = await backend.verify(CodeVerifyRequest(task=only_isolated, trajectory=_answer("def double(x):\n    return 2 * x")))
    assert result.meta["isolation"] == "isolated" and result.meta["tests_in_process"] == 0


async def test_a_stateful_entry_point_sees_every_call_in_order(sandbox: Sandbox) -> None:
    task = CodeTask(id="ids", problem="next_id() returns 1, 2, 3, ...", entry_point="next_id", tests=[
        CodeTest(name="t0", code="assert next_id() == 1 and next_id() == 2\nassert [next_id(), next_id()] == [3, 4]"),
    ])
    program = "_n = 0\ndef next_id():\n    global _n\n    _n += 1\n    return _n"
    result = await CodeBackend(sandbox).verify(CodeVerifyRequest(task=task, trajectory=_answer(program)))
    assert result.reward == 1.0 and result.meta["isolation"] == "isolated"
