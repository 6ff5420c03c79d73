"""What a kind's table reads of its objects: the fields ``kubectl get`` prints from, kept by the
store beside each object (``Store.project``) so a table of thousands of them decodes a few
hundred bytes per object instead of the whole body.

Upstream keeps no such copy: its API server converts each object it lists to a ``metav1.Table``
(the TableConvertor of ``pkg/registry/core/pod/storage``, rows from
``pkg/printers/internalversion/printers.go``'s ``printPod``), from objects its watch cache holds
decoded. kubesim reads a state from disk on every command; the projection is its stand-in for
that cache, and the printer (``kubesim.printers.core.print_pod``) prints the same row from it
as from the whole object (``tests/printers/test_tables.py`` checks it on every pod of its
tables).

A spec is data: ``True`` keeps a value whole; a dict keeps those keys of an object (the others
go); a one-element list applies its element to every item of a list (``[{}]`` keeps only how
many there are). A value of another shape than the spec expects is kept as it is.
"""

from __future__ import annotations

# A container's status, as printPod reads it (READY, STATUS and RESTARTS: the state, the last
# termination's finish time, the restart count, readiness and the sidecars' started flag)
_CONTAINER_STATUS = {"name": True, "ready": True, "started": True, "restartCount": True,
                     "state": {"running": {}, "waiting": {"reason": True},
                               "terminated": {"exitCode": True, "reason": True, "signal": True}},
                     "lastState": {"terminated": {"finishedAt": True}}}

TABLE_FIELDS: dict[str, dict] = {
    "Pod": {
        # NAME and AGE, the NAMESPACE of -A, the Terminating status; labels for -L, --show-labels
        "metadata": {"name": True, "namespace": True, "creationTimestamp": True, "deletionTimestamp": True,
                     "labels": True},
        # READY counts the containers and the sidecars (restartable init containers); NODE;
        # READINESS GATES
        "spec": {"containers": [{}], "initContainers": [{"name": True, "restartPolicy": True}],
                 "nodeName": True, "readinessGates": True},
        "status": {"phase": True, "reason": True, "conditions": [{"type": True, "status": True, "reason": True}],
                   "initContainerStatuses": [_CONTAINER_STATUS], "containerStatuses": [_CONTAINER_STATUS],
                   "podIPs": True, "nominatedNodeName": True},
    },
}


def project_with(spec, value):
    """``value`` cut down to ``spec`` (see the module's docstring)."""
    if spec is True:
        return value
    if type(spec) is dict:
        if type(value) is not dict:
            return value
        return {k: project_with(s, value[k]) for k, s in spec.items() if k in value}
    if type(value) is not list:
        return value
    inner = spec[0]
    return [project_with(inner, v) for v in value]


def compile_spec(spec):
    """``project_with(spec, ·)`` as a function made once for ``spec`` (None: ``True``, the value
    itself): the commit of a thousand pods projects each, and walking the spec again for every
    pod, a call per key, took half as long as encoding the pod's whole body."""
    if spec is True:
        return None
    if type(spec) is dict:
        whole = tuple(k for k, s in spec.items() if s is True)
        if len(whole) == len(spec):  # (keys kept whole: one comprehension)
            def cut_dict(value):
                if type(value) is not dict:
                    return value
                return {k: value[k] for k in whole if k in value}
            return cut_dict
        parts = tuple((k, compile_spec(s)) for k, s in spec.items())

        def cut_parts(value):
            if type(value) is not dict:
                return value
            out = {}
            for k, cut in parts:
                if k in value:
                    out[k] = value[k] if cut is None else cut(value[k])
            return out
        return cut_parts
    inner = compile_spec(spec[0])

    def cut_items(value):
        if type(value) is not list:
            return value
        if inner is None:
            return list(value)
        return [inner(v) for v in value]
    return cut_items


def projector(kind: str):
    """The function that cuts a ``kind`` object down to what its table reads (None: the kind
    has no projection)."""
    spec = TABLE_FIELDS.get(kind)
    if spec is None:
        return None
    cut = compile_spec(spec)
    return (lambda obj: obj) if cut is None else cut


def version(kind: str) -> str:
    """A digest of ``kind``'s spec: projections kept by a kubesim with another spec are made
    again (``Store.project``)."""
    import zlib

    return f"{zlib.crc32(repr(TABLE_FIELDS[kind]).encode()):08x}"
