"""PodInfo / NodeInfo resource accounting against a reference: the straightforward exact
``Fraction`` computation (resourcehelper.PodRequests summed exactly, converted once with
MilliValue / Value) that the scheduler used before it summed on ints. Randomized over pod shapes:
init containers, sidecars, overhead, pod-level resources, status resources after resizes,
extended / hugepages / ephemeral-storage resources and odd quantities."""

from __future__ import annotations

import copy
import random
from fractions import Fraction

import pytest

from kubesim.api import quantity as Q
from kubesim.scheduler.framework import types as N
from kubesim.scheduler.framework.pod_resources import is_scalar_resource_name
from kubesim.scheduler.framework.snapshot import Snapshot
from kubesim.scheduler.plugins.noderesources.fit import pod_info_resource_request
from kubesim.scheduler.plugins.noderesources.resource_allocation import (
    pod_info_resource_request_list)

# -- the reference ----------------------------------------------------------------------------
_POD_LEVEL = ("cpu", "memory")
_DEFAULTS = {"cpu": Fraction(100, 1000), "memory": Fraction(200 * 1024 * 1024)}
_NAMES = ("cpu", "memory", "ephemeral-storage", "example.com/gpu", "hugepages-2Mi", "pods")


def ref_quantity(v) -> Fraction:
    return v if isinstance(v, Fraction) else Q.parse_quantity(v)


def ref_milli(q: Fraction) -> int:
    return Q.milli_value(q)


def ref_value(q: Fraction) -> int:
    return Q.value(q)


def ref_conv(name: str, q: Fraction) -> int:
    return ref_milli(q) if name == "cpu" else ref_value(q)


def _supported(k: str) -> bool:
    return k in _POD_LEVEL or k.startswith("hugepages-")


def _fr(rl) -> dict:
    return {k: ref_quantity(v) for k, v in rl.items()} if rl else {}


def _add(dst: dict, src: dict) -> None:
    for k, v in src.items():
        dst[k] = dst.get(k, 0) + v


def _max(dst: dict, src: dict) -> None:
    for k, v in src.items():
        if k not in dst or v > dst[k]:
            dst[k] = v


def _with_defaults(reqs: dict, nm: dict) -> dict:
    out = dict(reqs)
    for k, v in nm.items():
        if k not in reqs:
            out[k] = out.get(k, 0) + v
    return out


def _aggregate(spec: dict, pick, nm) -> dict:
    result: dict = {}
    for c in spec.get("containers") or ():
        r = pick(c)
        _add(result, _with_defaults(r, nm) if nm else r)
    restartable: dict = {}
    init_max: dict = {}
    for c in spec.get("initContainers") or ():
        r = pick(c)
        if nm:
            r = _with_defaults(r, nm)
        if c.get("restartPolicy") == "Always":
            _add(result, r)
            _add(restartable, r)
            use = restartable
        else:
            use = dict(r)
            _add(use, restartable)
        _max(init_max, use)
    _max(result, init_max)
    return result


def ref_pod_requests(pod: dict, nm=None, use_status=False) -> dict:
    spec = pod.get("spec") or {}

    def spec_reqs(c):
        return _fr((c.get("resources") or {}).get("requests"))

    reqs = _aggregate(spec, spec_reqs, nm)
    status = pod.get("status") or {}
    if use_status and (status.get("containerStatuses") or status.get("initContainerStatuses")):
        idx: dict = {}
        for cs in status.get("initContainerStatuses") or ():
            idx.setdefault(cs.get("name", ""), cs)
        for cs in status.get("containerStatuses") or ():
            idx[cs.get("name", "")] = cs
        infeasible = False
        for c in status.get("conditions") or ():
            if c.get("type") == "PodResizePending":
                infeasible = c.get("reason") == "Infeasible"
                break

        def allocated(c):
            cs = idx.get(c.get("name", ""))
            if cs is not None and cs.get("allocatedResources") is not None:
                return _fr(cs["allocatedResources"])
            return {} if infeasible else spec_reqs(c)

        def actuated(c):
            cs = idx.get(c.get("name", ""))
            if cs is not None:
                r = (cs.get("resources") or {}).get("requests")
                if r is not None:
                    return _fr(r)
                if cs.get("allocatedResources") is not None:
                    return _fr(cs["allocatedResources"])
            return {} if infeasible else spec_reqs(c)

        alloc = _aggregate(spec, allocated, nm)
        act = _aggregate(spec, actuated, nm)
        merged = {} if infeasible else dict(reqs)
        _max(merged, act)
        _max(merged, alloc)
        reqs = merged
    pod_level = ((spec.get("resources") or {}).get("requests")) or {}
    if any(_supported(k) for k in pod_level):
        for k, v in pod_level.items():
            if _supported(k):
                reqs[k] = ref_quantity(v)
    overhead = spec.get("overhead")
    if overhead:
        _add(reqs, _fr(overhead))
    return reqs


def ref_pod_level_set(pod: dict) -> bool:
    reqs = (((pod.get("spec") or {}).get("resources")) or {}).get("requests") or {}
    return any(_supported(k) for k in reqs)


def ref_resource(rl: dict) -> tuple:
    """Resource.from_list / add_list: (milli_cpu, memory, ephemeral, pods, scalar items)."""
    cpu = mem = eph = pods = 0
    scalar: dict = {}
    for k, v in rl.items():
        q = ref_quantity(v)
        if k == "cpu":
            cpu += ref_milli(q)
        elif k == "memory":
            mem += ref_value(q)
        elif k == "pods":
            pods += ref_value(q)
        elif k == "ephemeral-storage":
            eph += ref_value(q)
        elif is_scalar_resource_name(k):
            scalar[k] = scalar.get(k, 0) + ref_value(q)
    return cpu, mem, eph, pods, list(scalar.items())


def ref_set_max(rl: dict) -> tuple:
    """Resource().set_max_list (computePodResourceRequest)."""
    cpu = mem = eph = 0
    scalar: dict = {}
    for k, v in rl.items():
        q = ref_quantity(v)
        if k == "memory":
            mem = max(mem, ref_value(q))
        elif k == "cpu":
            cpu = max(cpu, ref_milli(q))
        elif k == "ephemeral-storage":
            eph = max(eph, ref_value(q))
        elif is_scalar_resource_name(k):
            scalar[k] = max(scalar.get(k, 0), ref_value(q))
    return cpu, mem, eph, 0, list(scalar.items())


def ref_pod_info(pod: dict) -> dict:
    reqs = ref_pod_requests(pod, use_status=True)
    pls = ref_pod_level_set(pod)
    nm = dict(_DEFAULTS) if not pls else {k: v for k, v in _DEFAULTS.items() if k not in reqs}
    non0 = ref_pod_requests(pod, nm, use_status=True) if nm else reqs
    plain_nm = ref_pod_requests(pod, dict(_DEFAULTS), use_status=True)
    return {
        "requests": ref_resource(reqs),
        "non0": (ref_milli(non0["cpu"]) if "cpu" in non0 else 0,
                 ref_value(non0["memory"]) if "memory" in non0 else 0),
        "fit": ref_set_max(ref_pod_requests(pod)),
        "scoring_requested": [ref_conv(n, reqs[n]) if n in reqs else 0 for n in _NAMES],
        "scoring_non0": [ref_conv(n, plain_nm[n]) if n in plain_nm else 0 for n in _NAMES],
    }


def res_tuple(r: N.Resource) -> tuple:
    return r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number, list(r.scalar.items())


def new_pod_info(pod: dict) -> dict:
    pi = N.PodInfo(pod)
    return {
        "requests": res_tuple(pi.requests),
        "non0": (pi.non0_cpu, pi.non0_mem),
        "fit": res_tuple(pod_info_resource_request(pi)),
        "scoring_requested": pod_info_resource_request_list(pi, _NAMES, use_requested=True),
        "scoring_non0": pod_info_resource_request_list(pi, _NAMES, use_requested=False),
    }


def outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as e:  # noqa: BLE001 - the same error either way
        return "error", f"{type(e).__name__}: {e}"


# -- random pods ------------------------------------------------------------------------------
QUANTITIES = ["0", "1", "2", "0.5", "1.5", "100m", "250m", "1500m", "1e3", "1E3", "1e-3", "2k",
              "100Mi", "500Mi", "1.5Gi", "1Gi", "1Ki", "0.0001", "1n", "1u", "3.3m", "0.1",
              "+1", "01", "1.500k", "12345678901234567890", "9223372036854775807",
              "9223372036854775.807", "8Ei", "1e18", "1e100", 2, 0, 1500, 0.5, 1.25,
              Fraction(1, 3), Fraction(7, 2)]
ODD_QUANTITIES = ["abc", "1.2.3", "", "1Xi", True, None]
RESOURCES = ["cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "hugepages-1Gi",
             "example.com/gpu", "nvidia.com/gpu", "pods", "kubernetes.io/batch",
             "attachable-volumes-csi-x", "requests.example.com/x", "storage"]


def rand_list(rng: random.Random, odd: bool) -> dict:
    names = rng.sample(RESOURCES[:3] * 3 + RESOURCES, rng.randint(0, 4))
    out = {}
    for n in names:
        pool = QUANTITIES + (ODD_QUANTITIES if odd and rng.random() < 0.05 else [])
        out[n] = rng.choice(pool[:22] if rng.random() < 0.7 else pool)
    return out


def rand_container(rng: random.Random, name: str, odd: bool, init: bool) -> dict:
    c: dict = {"name": name, "image": "nginx"}
    x = rng.random()
    if x < 0.7:
        c["resources"] = {"requests": rand_list(rng, odd)}
        if rng.random() < 0.2:
            c["resources"]["limits"] = rand_list(rng, odd)
    elif x < 0.8:
        c["resources"] = {}
    elif x < 0.85:
        c["resources"] = {"requests": None}
    if init and rng.random() < 0.4:
        c["restartPolicy"] = "Always"
    if rng.random() < 0.2:
        c["ports"] = [{"containerPort": 80, "hostPort": rng.choice([0, 80, 8080]),
                       **({"protocol": "UDP"} if rng.random() < 0.3 else {}),
                       **({"hostIP": "10.0.0.1"} if rng.random() < 0.3 else {})}]
    return c


def rand_status_entry(rng: random.Random, c: dict) -> dict:
    cs: dict = {"name": c["name"], "ready": True}
    spec_r = (c.get("resources") or {}).get("requests")
    x = rng.random()
    if x < 0.35 and spec_r is not None:
        cs["allocatedResources"] = copy.deepcopy(spec_r)
        keep = {k: v for k, v in spec_r.items() if k in ("cpu", "memory", "ephemeral-storage")}
        cs["resources"] = {"requests": keep}
    elif x < 0.5:
        cs["allocatedResources"] = rand_list(rng, False)
    elif x < 0.6:
        cs["resources"] = {"requests": rand_list(rng, False)}
    elif x < 0.7:
        cs["resources"] = {"limits": {"cpu": "1"}}
    return cs


def rand_pod(rng: random.Random, odd: bool = False) -> dict:
    spec: dict = {"containers": [rand_container(rng, f"c{i}", odd, False)
                                 for i in range(rng.choice([0, 1, 1, 1, 2, 3]))]}
    if rng.random() < 0.4:
        spec["initContainers"] = [rand_container(rng, f"i{i}", odd, True)
                                  for i in range(rng.randint(0, 3))]
    if rng.random() < 0.15:
        spec["overhead"] = rand_list(rng, odd)
    if rng.random() < 0.15:
        spec["resources"] = {"requests": rand_list(rng, odd)} if rng.random() < 0.8 else {
            "limits": {"cpu": "2"}}
    if rng.random() < 0.1:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname"}]}}
    status: dict = {"phase": "Running"}
    if rng.random() < 0.5:
        status["containerStatuses"] = [rand_status_entry(rng, c) for c in spec["containers"]
                                       if rng.random() < 0.9]
        inits = spec.get("initContainers") or []
        if inits and rng.random() < 0.5:
            status["initContainerStatuses"] = [rand_status_entry(rng, c) for c in inits]
        if rng.random() < 0.15:
            status["conditions"] = [{"type": "PodResizePending",
                                     "reason": rng.choice(["Infeasible", "Deferred"])}]
    return {"metadata": {"name": "p", "namespace": "default"}, "spec": spec, "status": status}


# -- the tests --------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_pod_info_requests_match_the_exact_fraction_computation(seed):
    rng = random.Random(seed)
    for _ in range(300):
        pod = rand_pod(rng, odd=True)
        want = outcome(ref_pod_info, pod)
        got = outcome(new_pod_info, copy.deepcopy(pod))
        if want[0] == "error":
            assert got[0] == "error", pod
        else:
            assert got == want, pod


def test_common_pods_hit_the_int_path_and_still_match():
    rng = random.Random(99)
    for _ in range(300):
        spec_r = {"cpu": rng.choice(["100m", "1", "250m", "2"]),
                  "memory": rng.choice(["500Mi", "1Gi", "128974848", "1.5Gi"])}
        pod = {"metadata": {"name": "p"}, "spec": {"containers": [
            {"name": "c", "resources": {"requests": spec_r}}]},
               "status": {"phase": "Running", "containerStatuses": [
                   {"name": "c", "allocatedResources": dict(spec_r),
                    "resources": {"requests": dict(spec_r)}}]}}
        assert new_pod_info(pod) == ref_pod_info(pod)


def test_host_ports_and_affinity_flags_are_unchanged():
    rng = random.Random(5)
    for _ in range(500):
        pod = rand_pod(rng)
        try:
            pi = N.PodInfo(pod)
        except Exception:  # noqa: BLE001 - quantities that do not parse
            continue
        assert list(pi.host_ports) == N.host_ports(pod)
        anti = (pod["spec"].get("affinity") or {}).get("podAntiAffinity") or {}
        assert pi.has_required_anti_affinity == bool(
            anti.get("requiredDuringSchedulingIgnoredDuringExecution"))


@pytest.mark.parametrize("seed", range(3))
def test_node_info_totals_match_the_reference(seed):
    rng = random.Random(seed)
    for _ in range(60):
        alloc = rand_list(rng, False)
        alloc.setdefault("pods", "110")
        node = {"metadata": {"name": "n"}, "status": {"allocatable": alloc}}
        want_alloc = outcome(ref_resource, alloc)
        got = outcome(lambda: res_tuple(N.NodeInfo(node).allocatable))
        assert got == want_alloc
        if got[0] == "error":
            continue
        ni = N.NodeInfo(node)
        pods = []
        for i in range(rng.randint(0, 6)):
            pod = rand_pod(rng)
            pod["metadata"]["uid"] = f"u{i}"
            if outcome(ref_pod_info, pod)[0] == "ok":
                pods.append(pod)
        pis = [N.PodInfo(p) for p in pods]
        for pi in pis:
            ni.add_pod(pi)
        cpu = mem = eph = 0
        scalar: dict = {}
        ncpu = nmem = 0
        for p in pods:
            r = ref_pod_info(p)
            c, m, e, _, sc = r["requests"]
            cpu, mem, eph = cpu + c, mem + m, eph + e
            for k, v in sc:
                scalar[k] = scalar.get(k, 0) + v
            ncpu, nmem = ncpu + r["non0"][0], nmem + r["non0"][1]
        assert res_tuple(ni.requested) == (cpu, mem, eph, 0, list(scalar.items()))
        assert (ni.non_zero_requested.milli_cpu, ni.non_zero_requested.memory) == (ncpu, nmem)
        if pis:
            victim = rng.choice(pis)
            ni.remove_pod(victim.key)
            r = ref_pod_info(victim.pod)
            assert ni.requested.milli_cpu == cpu - r["requests"][0]
            assert ni.non_zero_requested.memory == nmem - r["non0"][1]


def test_shared_requests_are_not_disturbed_by_node_accounting():
    pod = {"metadata": {"name": "a", "uid": "a"}, "spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "100m", "memory": "1Gi"}}}]}}
    a = N.PodInfo(pod)
    b = N.PodInfo(dict(pod, metadata={"name": "b", "uid": "b"}))
    ni = N.NodeInfo({"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "1"}}})
    ni.add_pod(a)
    ni.add_pod(b)
    ni.remove_pod("a")
    assert (a.requests.milli_cpu, b.requests.milli_cpu, ni.requested.milli_cpu) == (100, 100, 100)
    assert N.NodeInfo().used_ports == {} and ni.clone().memo == {}


def node_state(ni: N.NodeInfo) -> tuple:
    return ([p.key for p in ni.pods], [p.key for p in ni.pods_with_affinity],
            [p.key for p in ni.pods_with_required_anti_affinity], res_tuple(ni.requested),
            res_tuple(ni.non_zero_requested), res_tuple(ni.allocatable),
            {ip: sorted(v) for ip, v in ni.used_ports.items()}, ni.generation)


@pytest.mark.parametrize("seed", range(3))
def test_snapshot_build_fills_nodes_as_add_pod_does(seed):
    rng = random.Random(seed)
    nodes = [{"metadata": {"name": f"n{i}", "labels": {
        "topology.kubernetes.io/zone": f"z{i % 3}"} if rng.random() < 0.7 else {}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "example.com/gpu": "2"}}}
        for i in range(8)]
    pods = []
    for i in range(60):
        pod = rand_pod(rng)
        pod["metadata"]["uid"] = f"u{i}"
        if outcome(N.PodInfo, pod)[0] != "ok":
            continue
        pod["spec"]["nodeName"] = rng.choice([f"n{j}" for j in range(9)] + [""])
        if rng.random() < 0.1:
            pod["status"]["phase"] = rng.choice(["Succeeded", "Failed"])
        if rng.random() < 0.2:
            pod["spec"]["affinity"] = {"podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "z"}]}}
        pods.append(pod)
    for inputs in (pods, [N.PodInfo(p) for p in pods]):
        snap = Snapshot.build(nodes, inputs)
        for ni in snap.list():
            want = N.NodeInfo(ni.node)
            for p in pods:
                if (p["spec"]["nodeName"] == ni.name
                        and p["status"].get("phase") not in ("Succeeded", "Failed")):
                    want.add_pod(N.PodInfo(p))
            assert node_state(ni) == node_state(want)
