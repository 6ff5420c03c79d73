"""Helpers shared by plugins: score normalization, broken-linear shapes, taints and tolerations,
the default spreading selector.

Upstream: pkg/scheduler/framework/plugins/helper/normalize_score.go (``DefaultNormalizeScore``),
pkg/scheduler/framework/plugins/helper/shape_score.go (``BuildBrokenLinearFunction``),
pkg/scheduler/framework/plugins/helper/taint.go (``DoNotScheduleTaintsFilterFunc``),
pkg/scheduler/framework/plugins/helper/spread.go (``DefaultSelector``),
staging/src/k8s.io/api/core/v1/toleration.go (``Toleration.ToleratesTaint``) and
staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go
(``TolerationsTolerateTaint``, ``FindMatchingUntoleratedTaint``). The Gt/Lt toleration operators
(feature TaintTolerationComparisonOperators) are alpha and off in v1.35, so they tolerate nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from kubesim.api.selectors import LabelSelector, from_label_selector, selector_from_set
from kubesim.scheduler.framework.interface import NodeScore


def interned(table: dict, key):
    """``key``, or the equal key ``table`` interned before it (memo keys compared by identity:
    inputs alike get one object). The table is emptied at 4,096 keys; old keys then miss."""
    got = table.get(key)
    if got is None:
        if len(table) >= 4096:
            table.clear()
        got = table[key] = key
    return got


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> None:
    """Scale scores to [0, max_priority] by the maximum (optionally reversed), in place."""
    max_count = 0
    for s in scores:
        max_count = max(max_count, s.score)
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return
    for s in scores:
        v = max_priority * s.score // max_count
        if reverse:
            v = max_priority - v
        s.score = v


def default_normalize_list(max_priority: int, reverse: bool, raw: Sequence[int]) -> list[int]:
    """``default_normalize_score`` on plain numbers, returning a new list (same arithmetic)."""
    # (any() first: all zeros, as TaintToleration's where no node has a PreferNoSchedule
    # taint, are told without max's pass over them)
    max_count = max(0, max(raw)) if raw and any(raw) else 0
    if max_count == 0:
        return [max_priority] * len(raw) if reverse else list(raw)
    if reverse:
        return [max_priority - max_priority * v // max_count for v in raw]
    return [max_priority * v // max_count for v in raw]


def normalized(max_priority: int, reverse: bool, raw: Sequence[int]) -> list[int]:
    """``default_normalize_score`` on plain numbers (what tests and explanations call)."""
    scores = [NodeScore(str(i), v) for i, v in enumerate(raw)]
    default_normalize_score(max_priority, reverse, scores)
    return [s.score for s in scores]


def build_broken_linear_function(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """Piecewise-linear function through (utilization, score) points, flat outside them."""
    points = list(shape)

    def f(p: int) -> int:
        for i, (u, s) in enumerate(points):
            if p <= u:
                if i == 0:
                    return points[0][1]
                pu, ps = points[i - 1]
                return ps + _go_div((s - ps) * (p - pu), (u - pu))
        return points[-1][1]

    return f


def _go_div(a: int, b: int) -> int:
    """Go's integer division truncates toward zero."""
    qv = abs(a) // abs(b)
    return qv if (a >= 0) == (b >= 0) else -qv


# -- taints and tolerations --------------------------------------------------------------------
def toleration_tolerates_taint(toleration: dict, taint: dict) -> bool:
    effect = toleration.get("effect") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    key = toleration.get("key") or ""
    if key and key != (taint.get("key") or ""):
        return False
    op = toleration.get("operator") or ""
    if op in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return op == "Exists"


def tolerations_tolerate_taint(tolerations: Iterable[dict], taint: dict) -> bool:
    for t in tolerations:
        if toleration_tolerates_taint(t, taint):
            return True
    return False


def do_not_schedule_taints(taint: dict) -> bool:
    """NoSchedule and NoExecute taints are the ones Filter looks at."""
    return taint.get("effect") in ("NoSchedule", "NoExecute")


def find_matching_untolerated_taint(taints: Iterable[dict], tolerations: Sequence[dict],
                                    inclusion: Callable[[dict], bool] | None = None
                                    ) -> dict | None:
    """The first taint (passing ``inclusion``) no toleration tolerates, or None."""
    for taint in taints:
        if inclusion is not None and not inclusion(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


# -- DefaultSelector (spread.go) ----------------------------------------------------------------
def _controller_of(pod: dict) -> dict | None:
    """``metav1.GetControllerOf``: the first ownerReference with controller: true."""
    for ref in ((pod.get("metadata") or {}).get("ownerReferences") or ()):
        if ref.get("controller"):
            return ref
    return None


def _named(objs: Iterable[dict], name: str) -> dict | None:
    for o in objs:
        if (o.get("metadata") or {}).get("name") == name:
            return o
    return None


def default_selector(pod: dict, services: Iterable[dict] = (),
                     replication_controllers: Iterable[dict] = (),
                     replica_sets: Iterable[dict] = (),
                     stateful_sets: Iterable[dict] = ()) -> LabelSelector:
    """``helper.DefaultSelector``: the selectors of the pod's Services (those whose non-nil
    selector matches the pod) merged, plus its controlling ReplicationController's selector, or
    the requirements of its controlling ReplicaSet's / StatefulSet's selector. The objects are
    those of the pod's namespace. Nothing found: the empty selector."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    label_set: dict = {}
    for svc in services:
        sel = (svc.get("spec") or {}).get("selector")
        if sel is None:  # services with nil selectors match nothing, not everything
            continue
        if all(labels.get(k) == v for k, v in sel.items()):
            label_set.update(sel)
    selector = selector_from_set(label_set)
    owner = _controller_of(pod)
    if owner is None:
        return selector
    api_version, kind, name = owner.get("apiVersion") or "", owner.get("kind"), owner.get("name")
    if api_version == "v1" and kind == "ReplicationController":
        rc = _named(replication_controllers, name)
        if rc is not None:
            label_set.update((rc.get("spec") or {}).get("selector") or {})
            selector = selector_from_set(label_set)
    elif api_version == "apps/v1" and kind in ("ReplicaSet", "StatefulSet"):
        owners = replica_sets if kind == "ReplicaSet" else stateful_sets
        o = _named(owners, name)
        if o is not None:
            try:
                other = from_label_selector((o.get("spec") or {}).get("selector"))
            except ValueError:
                other = None
            if other is not None and not other.matches_nothing:
                selector = LabelSelector(list(selector.requirements) + list(other.requirements))
    return selector
