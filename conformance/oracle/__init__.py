"""The conformance oracle's runner, in parts (conformance/run.py is the entry point):

- ``scenario``: a scenario file, its steps, the Node manifests both sides start from;
- ``normalise``: what legitimately differs between the sides, made equal;
- ``real``: the real cluster (kubectl, a small HTTPS client to settle and clean up);
- ``sim``: kubesim's side, in a subprocess or in-process, driven the same way live and in replay;
- ``live``: a scenario run on both sides, compared step by step;
- ``golden``: the real side's recorded transcripts, and kubesim replayed against them.

Python 3.11, stdlib + PyYAML (+ kubesim itself for the in-process side).
"""
