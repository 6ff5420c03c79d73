"""Per-cycle scratch space plugins share between extension points.

Upstream: staging/src/k8s.io/kube-scheduler/framework/cycle_state.go (``CycleState`` with
``Read``/``Write``/``Delete``/``Clone`` and the skip sets ``SkipFilterPlugins`` /
``SkipScorePlugins`` the runtime fills from PreFilter/PreScore ``Skip`` results).

A plugin owns its keys (conventionally ``"PreFilter" + name``) and stores an immutable value or
one with a ``clone()`` method; ``clone()`` of the state clones such values, as upstream does when
it evaluates a node with nominated pods added.
"""

from __future__ import annotations

from typing import Any


class StateNotFound(KeyError):
    """Reading a key nobody wrote (upstream's ``ErrNotFound``)."""


class CycleState:
    __slots__ = ("_storage", "skip_filter_plugins", "skip_pre_bind_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._storage: dict[str, Any] = {}
        self.skip_filter_plugins: frozenset[str] = frozenset()
        self.skip_score_plugins: frozenset[str] = frozenset()
        self.skip_pre_bind_plugins: frozenset[str] = frozenset()

    def read(self, key: str) -> Any:
        try:
            return self._storage[key]
        except KeyError:
            raise StateNotFound("not found") from None

    def get(self, key: str, default: Any = None) -> Any:
        return self._storage.get(key, default)

    def __contains__(self, key: str) -> bool:
        return key in self._storage

    def write(self, key: str, value: Any) -> None:
        self._storage[key] = value

    def delete(self, key: str) -> None:
        self._storage.pop(key, None)

    def clone(self) -> CycleState:
        out = CycleState()
        for k, v in self._storage.items():
            c = getattr(v, "clone", None)
            out._storage[k] = c() if callable(c) else v
        out.skip_filter_plugins = self.skip_filter_plugins
        out.skip_score_plugins = self.skip_score_plugins
        out.skip_pre_bind_plugins = self.skip_pre_bind_plugins
        return out
