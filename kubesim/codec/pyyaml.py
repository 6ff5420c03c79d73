"""PyYAML, imported without its start-up cost kubesim never uses.

``yaml.reader`` compiles, at import, a pattern of every non-printable code point for its
pure-Python Reader (about 5 ms, a few percent of applying one pod). kubesim parses with
libyaml's ``CSafeLoader`` when it is there and dumps with its own emitter settings, so the
pattern is compiled only if the pure-Python reader is ever used.
"""

from __future__ import annotations

import sys


class _Deferred:
    """A compiled pattern, compiled when first used."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, *args) -> None:
        self._args = args
        self._compiled = None

    def __getattr__(self, name: str):
        if self._compiled is None:
            self._compiled = _COMPILE[0](*self._args)
        return getattr(self._compiled, name)


_COMPILE: list = []


def import_yaml():
    """``import yaml``, its reader's non-printable pattern deferred."""
    yaml = sys.modules.get("yaml")
    if yaml is not None:
        return yaml
    import re

    compile_ = re.compile
    _COMPILE[:] = [compile_]

    def deferring(pattern, flags=0):
        if isinstance(pattern, str) and "\U0010ffff" in pattern:  # (reader.py's NON_PRINTABLE)
            return _Deferred(pattern, flags)
        return compile_(pattern, flags)

    re.compile = deferring
    try:
        import yaml
    finally:
        re.compile = compile_
    return yaml
