"""The template's node kinds.

Upstream: staging/src/k8s.io/client-go/util/jsonpath/node.go.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self


class _NoValue:
    """Go's zero ``reflect.Value``: what a ``{range}`` body sees for a null or missing item."""

    _instance: _NoValue | None = None
    go_json_null = True  # json.Marshal writes it as null (kubesim.api.gofmt.go_json)

    def __new__(cls) -> Self:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_VALUE"

    def __str__(self) -> str:
        return "<no value>"  # how go_sprint prints it


NO_VALUE = _NoValue()


@dataclass
class ListNode:
    nodes: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class TextNode:
    text: str


@dataclass(frozen=True)
class FieldNode:
    name: str


@dataclass(frozen=True)
class Param:
    """One of an array node's three slice parameters (upstream's ParamsEntry)."""

    value: int = 0
    known: bool = False
    derived: bool = False


@dataclass(frozen=True)
class ArrayNode:
    params: tuple[Param, Param, Param]


@dataclass
class FilterNode:
    left: ListNode
    right: ListNode
    operator: str


@dataclass(frozen=True)
class IntNode:
    value: int


@dataclass(frozen=True)
class FloatNode:
    value: float


@dataclass(frozen=True)
class BoolNode:
    value: bool


@dataclass(frozen=True)
class WildcardNode:
    pass


@dataclass(frozen=True)
class RecursiveNode:
    pass


@dataclass
class UnionNode:
    nodes: list[ListNode]


@dataclass(frozen=True)
class IdentifierNode:
    name: str


