"""Shared fixtures of upstream's noderesources scoring tables (capacities in whole cores and
bytes, as upstream's tests write them: "cpu": "4000" is 4000 cores)."""

from kubesim.testing.wrappers import make_node, make_pod

EXTENDED = "abc.com/xyz"
DEFAULT_RESOURCES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
EXTENDED_RESOURCE_SET = DEFAULT_RESOURCES + [{"name": EXTENDED, "weight": 1}]


def node(name, cpu=None, memory=None, **extra):
    caps = {}
    if cpu is not None:
        caps["cpu"] = cpu
    if memory is not None:
        caps["memory"] = memory
    caps.update({EXTENDED if k == "ext" else k: v for k, v in extra.items()})
    w = make_node(name)
    if caps:
        w.capacity(caps)
    return w.obj()


def pod(*reqs, node_name=None):
    """Each req is a dict (one container per dict); "ext" stands for the extended resource."""
    w = make_pod("p")
    for r in reqs:
        w.req({EXTENDED if k == "ext" else k: v for k, v in r.items()})
    if node_name:
        w.node(node_name)
    return w.obj()


def fit_args(strategy, resources, shape=None):
    s = {"type": strategy, "resources": resources}
    if shape is not None:
        s["requestedToCapacityRatio"] = {"shape": shape}
    return {"scoringStrategy": s}
