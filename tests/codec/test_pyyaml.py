"""kubesim.codec.pyyaml: PyYAML imported with its reader's pattern deferred, in a fresh
interpreter (one that has not imported yaml yet)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import re, sys
from kubesim.codec.pyyaml import import_yaml
compiled = []
real = re.compile
wrapper = re.compile = lambda p, f=0: compiled.append(p) or real(p, f)
yaml = import_yaml()
restored = re.compile is wrapper
re.compile = real
print(any("\\U0010ffff" in p for p in compiled if isinstance(p, str)))
print(type(yaml.reader.Reader.NON_PRINTABLE).__name__)
print(restored)
{check}
"""


@pytest.mark.parametrize("check, want", [
    pytest.param("print(yaml.load('a: 1', Loader=yaml.SafeLoader))", "{'a': 1}",
                 id="the pure-Python reader loads as before"),
    pytest.param("""
try:
    yaml.load('a: \\x07', Loader=yaml.SafeLoader)
except yaml.reader.ReaderError as e:
    print(e.reason)""", "special characters are not allowed",
                 id="and still refuses a non-printable character (the pattern compiled when used)"),
    pytest.param("""
import threading
from kubesim.codec import pyyaml
pyyaml._YAML.clear()  # (as if not imported yet: many threads ask at once)
got = []
threads = [threading.Thread(target=lambda: got.append(pyyaml.import_yaml())) for _ in range(8)]
[t.start() for t in threads]; [t.join() for t in threads]
print(len(got) == 8 and all(y is yaml and hasattr(y, "SafeLoader") for y in got))""", "True",
                 id="threads asking at once all get the whole module"),
])
def test_the_reader_pattern_is_compiled_only_when_used(check, want):
    out = subprocess.run([sys.executable, "-c", PROBE.format(check=check)], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == "False"  # not compiled at import
    assert out[1] == "_Deferred"
    assert out[2] == "True"  # re.compile is itself again
    assert out[3] == want
