"""PyYAML, imported without its start-up cost kubesim never uses.

``yaml.reader`` compiles, at import, a pattern of every non-printable code point for its
pure-Python Reader (about 5 ms, a few percent of applying one pod). kubesim parses with
libyaml's ``CSafeLoader`` when it is there and dumps with its own emitter settings, so the
pattern is compiled only if the pure-Python reader is ever used.
"""

from __future__ import annotations

import sys
import threading


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
    """``import yaml``, its reader's non-printable pattern deferred. Thread-safe: ``kubesim
    serve`` decodes request bodies on its threads, and ``re.compile`` is swapped only while
    the first of them imports (the others wait for it, as ``import`` itself would make them)."""
    if _YAML:
        return _YAML[0]
    with _LOCK:
        if not _YAML:
            _YAML.append(_import())
    return _YAML[0]


_YAML: list = []
_LOCK = threading.Lock()


def _import():
    if "yaml" in sys.modules:  # (imported by someone else: an import waits for it to finish)
        import yaml

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
