"""How results travel out of the sandbox: the trusted harness and the strict report channel.

:data:`HARNESS` runs in the sandbox after its set-up, in place of ``main.py``, which it runs itself.
Everything it uses after the program has run is bound before (so patching builtins, json or os
does not reach it); then it makes the test's calls in order and writes one record per call to fd 3::

    {"call": 0, "value": ["i", "0x1e"]}     {"call": 1, "error": "TypeError: result of type X is not plain data"}
    {"end": 2}

Values are tagged plain data, exact types only (``type(x) is ...``, so no subclass and no object
with its own ``__eq__`` gets through): ``null``/``true``/``false``, ``["i", hex]``, ``["f",
float.hex]`` (nan and inf unambiguous), ``["s", str]``, ``["l"|"t"|"S"|"F", [...]]`` (list, tuple,
set, frozenset), ``["d", [[k, v], ...]]``; the stdlib ``Counter``/``OrderedDict``/``defaultdict`` are
read through ``dict.items`` as plain dicts (no method of theirs runs). Anything else is an error
for that call. No code of the program runs during serialization of plain data.

The harness is not what makes the verdict safe — a program could rewrite it through frames or gc —
:func:`decode_channel` is: it accepts only this schema, rebuilds only plain values (with size, depth
and hash-collision limits), and rejects the whole channel on any deviation. So whatever the program
does, the most the channel can say is a plain value the program could have returned.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

MAX_DEPTH = 64  # nesting of one result, both in the harness and when rebuilding it here


@dataclass(frozen=True)
class CallOutcome:
    value: object = None
    error: str | None = None


def check_hashes(keys: list[object]) -> None:
    # Values with one hash make building a set or dict quadratic: a program could stall the verifier.
    if len(keys) > 64 and 2 * len({hash(k) for k in keys}) < len(keys):
        raise ChannelError("set or dict keys with degenerate hashes")


# Mode "calls": program, then the calls (see the module docstring). Mode "in-process": program, then the
# test in the program's globals, then the nonce — the old protocol, for tests outside the isolated form.
HARNESS = r'''
def _mv_harness(mode, entry, payload):
    import builtins, collections, os, sys, types, _json
    type_, len_, hex_, fhex, esc, irepr = type, len, hex, float.hex, _json.encode_basestring_ascii, int.__repr__
    write, exit_, encode, join, dict_get, dict_items = os.write, os._exit, str.encode, ",".join, dict.get, dict.items
    exec_, compile_, range_, name_error = exec, compile, range, NameError
    base_exc, type_error, value_error = BaseException, TypeError, ValueError
    none_t, bool_t, int_t, float_t, str_t = type(None), bool, int, float, str
    list_t, tuple_t, set_t, fset_t = list, tuple, set, frozenset
    seq_tags = {list: "l", tuple: "t", set: "S", frozenset: "F"}
    dict_types = (dict, collections.Counter, collections.OrderedDict, collections.defaultdict)
    size = 0

    def emit(text):
        data = encode(text, "ascii")
        while data:
            data = data[write(3, data):]

    def enc(x, depth):
        nonlocal size
        t = type_(x)
        if depth > 64:
            raise value_error("result nested deeper than 64 levels")
        if t is none_t:
            s = "null"
        elif t is bool_t:
            s = "true" if x else "false"
        elif t is int_t:
            s = '["i","' + hex_(x) + '"]'
        elif t is float_t:
            s = '["f","' + fhex(x) + '"]'
        elif t is str_t:
            if len_(x) > 250000:
                raise value_error("result too large")
            s = '["s",' + esc(x) + "]"
        elif t is list_t or t is tuple_t or t is set_t or t is fset_t:
            s = '["' + seq_tags[t] + '",[' + join([enc(y, depth + 1) for y in x]) + "]]"
        elif t is dict_types[0] or t is dict_types[1] or t is dict_types[2] or t is dict_types[3]:
            pairs = ["[" + enc(k, depth + 1) + "," + enc(v, depth + 1) + "]" for k, v in dict_items(x)]
            s = '["d",[' + join(pairs) + "]]"
        else:
            raise type_error("result of type " + describe_type(t) + " is not plain data")
        size += len_(s)
        if size > 250000:
            raise value_error("result too large")
        return s

    def describe_type(t):
        try:
            name = t.__name__
            return name if type_(name) is str_t else "?"
        except base_exc:
            return "?"

    def describe(exc):
        try:
            text = describe_type(type_(exc)) + ": " + str_t(exc)
            return text[:300] if type_(text) is str_t else "exception"
        except base_exc:
            return describe_type(type_(exc))

    with open("main.py", "rb") as handle:
        code = compile(handle.read(), "main.py", "exec")
    module = types.ModuleType("__main__")
    module.__file__ = "main.py"
    sys.modules["__main__"] = module
    namespace = module.__dict__
    if mode == "in-process":  # today's semantics: the test runs in the program's globals
        test, nonce = payload
        exec_(code, namespace)
        exec_(compile_(test, "<test>", "exec"), namespace)
        emit(nonce)
        return
    # The sources passed ast.literal_eval outside, so eval without builtins builds the same values
    # (fresh ones per call) without importing ast here.
    calls = [(eval(a, {"__builtins__": {}, "set": set}), eval(k, {"__builtins__": {}})) for a, k in payload]
    exec_(code, namespace)
    fn = dict_get(namespace, entry)
    for i in range_(len_(calls)):
        args, kwargs = calls[i]
        try:
            if fn is None:
                raise name_error("name " + entry + " is not defined")
            size = 0
            record = '{"call":' + irepr(i) + ',"value":' + enc(fn(*args, **kwargs), 0) + "}\n"
        except base_exc as exc:
            record = '{"call":' + irepr(i) + ',"error":' + esc(describe(exc)) + "}\n"
        emit(record)
    emit('{"end":' + irepr(len_(calls)) + "}\n")
    exit_(0)
'''


def calls_harness(entry_point: str, calls: list[tuple[str, str]]) -> str:
    """The harness that calls the entry point once per (args, kwargs) literal source pair."""
    return f"{HARNESS}\n_mv_harness('calls', {entry_point!r}, {calls!r})\n"


def in_process_harness(test_code: str, nonce: str) -> str:
    """The harness for a test outside the isolated form: program, then test, then the nonce."""
    return f"{HARNESS}\n_mv_harness('in-process', None, ({test_code!r}, {nonce!r}))\n"


_INT_RE = re.compile(r"-?0x[0-9a-f]+")
_FLOAT_RE = re.compile(r"-?(0x[01]\.[0-9a-f]+p[+-][0-9]+|inf)|nan")


class ChannelError(ValueError):
    """The report channel is not what the harness writes."""


def _reject_constant(name: str) -> object:
    raise ChannelError(f"non-JSON constant {name}")


def _rebuild(value: object, depth: int = 0) -> object:
    if depth > MAX_DEPTH:
        raise ChannelError("value nested too deeply")
    if value is None or type(value) is bool:
        return value
    if type(value) is not list or len(value) != 2 or type(value[0]) is not str:
        raise ChannelError("value is not a [tag, payload] pair")
    tag, payload = value
    if tag == "i" and type(payload) is str and _INT_RE.fullmatch(payload):
        return int(payload, 16)
    if tag == "f" and type(payload) is str and _FLOAT_RE.fullmatch(payload):
        return float.fromhex(payload)
    if tag == "s" and type(payload) is str:
        return payload
    if tag in ("l", "t", "S", "F") and type(payload) is list:
        items = [_rebuild(v, depth + 1) for v in payload]
        build = {"l": list, "t": tuple, "S": set, "F": frozenset}[tag]
        try:
            if tag in ("S", "F"):
                check_hashes(items)
            return build(items)
        except TypeError as exc:
            raise ChannelError(f"set of unhashable values: {exc}") from None
    if tag == "d" and type(payload) is list:
        if any(type(pair) is not list or len(pair) != 2 for pair in payload):
            raise ChannelError("dict item is not a [key, value] pair")
        pairs = [(_rebuild(k, depth + 1), _rebuild(v, depth + 1)) for k, v in payload]
        try:
            check_hashes([k for k, _ in pairs])
            return dict(pairs)
        except TypeError as exc:
            raise ChannelError(f"unhashable dict key: {exc}") from None
    raise ChannelError(f"unknown tag or bad payload for {tag!r}")


def decode_channel(report: str, n_calls: int, *, truncated: bool = False) -> dict[int, CallOutcome]:
    """The calls' outcomes from the report channel; raises :class:`ChannelError` on anything off."""
    if truncated:
        raise ChannelError("the report is over the size limit")
    if not report.isascii():
        raise ChannelError("the report is not ASCII")
    if report and not report.endswith("\n"):
        raise ChannelError("the report ends in a partial record")
    outcomes: dict[int, CallOutcome] = {}
    ended = False
    for number, line in enumerate(report.split("\n")[:-1], start=1):
        try:
            if ended:
                raise ChannelError("record after the end marker")
            try:
                record = json.loads(line, parse_constant=_reject_constant)
            except (ValueError, RecursionError) as exc:
                raise ChannelError(f"not JSON ({exc})") from None
            if type(record) is not dict:
                raise ChannelError("record is not an object")
            keys = set(record)
            if keys == {"end"}:
                if type(record["end"]) is not int or record["end"] != n_calls:
                    raise ChannelError("bad end marker")
                ended = True
                continue
            call = record.get("call")
            if keys not in ({"call", "value"}, {"call", "error"}) or type(call) is not int or not 0 <= call < n_calls:
                raise ChannelError("record does not match the schema")
            if call in outcomes:
                raise ChannelError(f"second record for call {call}")
            if "error" in record:
                if type(record["error"]) is not str:
                    raise ChannelError("error is not a string")
                outcomes[call] = CallOutcome(error=record["error"][:300])
            else:
                outcomes[call] = CallOutcome(value=_rebuild(record["value"]))
        except ChannelError as exc:
            raise ChannelError(f"record {number}: {exc}") from None
    return outcomes
