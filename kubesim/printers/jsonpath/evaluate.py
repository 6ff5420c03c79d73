"""Evaluation of a parsed template: ``{range}``/``{end}`` bookkeeping, filters, recursive
descent, and how results print (scalars as Go's ``fmt.Fprint``, maps and lists as compact
``json.Marshal``).

Upstream: staging/src/k8s.io/client-go/util/jsonpath/jsonpath.go and
staging/src/k8s.io/client-go/third_party/forked/golang/template/funcs.go (the filter comparisons:
``1.5 > 1`` is "incompatible types for comparison": float against int).
"""

from __future__ import annotations

from typing import Any

from kubesim.api.gofmt import go_json, go_sprint, go_type_name
from kubesim.printers.jsonpath.errors import ERR_BAD_COMPARISON, ERR_BAD_COMPARISON_TYPE
from kubesim.printers.jsonpath.node import (
    NO_VALUE,
    ArrayNode,
    BoolNode,
    FieldNode,
    FilterNode,
    FloatNode,
    IdentifierNode,
    IntNode,
    ListNode,
    RecursiveNode,
    TextNode,
    UnionNode,
    WildcardNode,
)

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


def normalize(value: Any) -> Any:
    """Numbers as kubectl's unstructured JSON decoder leaves them: int64 where exact, else float64."""
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if _INT64_MIN <= value <= _INT64_MAX else float(value)
    if isinstance(value, float) and value.is_integer() and _INT64_MIN <= value < 2**63:
        return int(value)
    return value


def to_text(value: Any) -> str:
    """How PrintResults writes one result: maps and lists as JSON, the rest as fmt.Fprint."""
    if isinstance(value, (dict, list)) or value is None:
        return go_json(value)
    return go_sprint(value)  # NO_VALUE prints as <no value>


class EvalError(Exception):
    """An evaluation error, with the values upstream returns alongside it.

    Upstream's exists-filter ignores the error and keeps the element when those values are not
    empty, so they matter (``[?(@.list[9])]`` keeps every element that has a ``list``).
    """

    def __init__(self, message: str, partial: list[Any]):
        super().__init__(message)
        self.message = message
        self.partial = partial


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    raise EvalError(ERR_BAD_COMPARISON_TYPE, [])


def _equal(a: Any, b: Any) -> bool:
    if _kind(a) != _kind(b):
        raise EvalError(ERR_BAD_COMPARISON, [])
    return a == b


def _less(a: Any, b: Any) -> bool:
    ka, kb = _kind(a), _kind(b)
    if ka != kb:
        raise EvalError(ERR_BAD_COMPARISON, [])
    if ka == "bool":
        raise EvalError(ERR_BAD_COMPARISON_TYPE, [])
    return a < b


def _compare(operator: str, a: Any, b: Any) -> bool:
    if operator == "<":
        return _less(a, b)
    if operator == ">":
        return not (_less(a, b) or _equal(a, b))
    if operator == "==":
        return _equal(a, b)
    if operator == "!=":
        return not _equal(a, b)
    if operator == "<=":
        return _less(a, b) or _equal(a, b)
    if operator == ">=":
        return not _less(a, b)
    raise EvalError(f"unrecognized filter operator {operator}", [])


def _children(value: Any) -> list[Any]:
    """What ``.*`` yields: map values (sorted by key), list items, or a string's bytes."""
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return list(value.encode("utf-8"))
    return []


class Evaluator:
    def __init__(self, root: ListNode, allow_missing_keys: bool):
        self.nodes = root.nodes
        self.allow_missing_keys = allow_missing_keys
        self.begin_range = 0
        self.in_range = 0
        self.end_range = 0
        self.last_end: int | None = None

    def find_results(self, data: Any, start: int = 0) -> list[list[Any]]:
        """FindResults: top-level actions from ``start``, each against ``data``; ranges recurse."""
        cur = [data]
        full: list[list[Any]] = []
        i = start
        while i < len(self.nodes):
            results = self.walk(cur, self.nodes[i])
            if 0 < self.end_range <= self.in_range:  # an {end}: this range body is done
                self.end_range -= 1
                self.last_end = i
                break
            if self.begin_range > 0:  # a {range}: run the following nodes per item
                self.begin_range -= 1
                self.in_range += 1
                if results:
                    for item in results:
                        full.extend(self.find_results(NO_VALUE if item is None else item, i + 1))
                else:
                    self.find_results(NO_VALUE, i + 1)  # only to find the matching {end}
                self.in_range -= 1
                for k in range(i + 1, len(self.nodes)):
                    if k == self.last_end:
                        i = k
                        break
                i += 1
                continue
            full.append(results)
            i += 1
        return full

    def walk(self, values: list[Any], node: Any) -> list[Any]:
        if isinstance(node, ListNode):
            return self.eval_list(values, node)
        if isinstance(node, TextNode):
            return [node.text]
        if isinstance(node, FieldNode):
            return self.eval_field(values, node)
        if isinstance(node, ArrayNode):
            return self.eval_array(values, node)
        if isinstance(node, FilterNode):
            return self.eval_filter(values, node)
        if isinstance(node, (IntNode, FloatNode, BoolNode)):
            return [node.value for _ in values]
        if isinstance(node, WildcardNode):
            return [child for value in values for child in _children(value)]
        if isinstance(node, RecursiveNode):
            return self.eval_recursive(values)
        if isinstance(node, UnionNode):
            return self.eval_union(values, node)
        if isinstance(node, IdentifierNode):
            return self.eval_identifier(values, node)
        raise EvalError(f"unexpected Node {node}", values)

    def eval_list(self, values: list[Any], node: ListNode) -> list[Any]:
        for child in node.nodes:
            values = self.walk(values, child)
        return values

    def eval_identifier(self, values: list[Any], node: IdentifierNode) -> list[Any]:
        if node.name == "range":
            self.begin_range += 1
            return values
        if node.name == "end":
            if self.in_range > 0:
                self.end_range += 1
                return []
            raise EvalError("not in range, nothing to end", [])
        raise EvalError(f"unrecognized identifier {node.name}", values)

    def eval_field(self, values: list[Any], node: FieldNode) -> list[Any]:
        if not values:
            return []
        results = [value[node.name] for value in values if isinstance(value, dict) and node.name in value]
        if not results and not self.allow_missing_keys:
            raise EvalError(f"{node.name} is not found", [])
        return results

    def eval_array(self, values: list[Any], node: ArrayNode) -> list[Any]:
        result: list[Any] = []
        for value in values:
            if value is None:
                continue
            if value is NO_VALUE:  # Go panics here (Type() of a zero reflect.Value)
                raise EvalError("reflect: call of reflect.Value.Type on zero Value", values)
            if not isinstance(value, list):
                raise EvalError(f"{go_type_name(value)} is not array or slice", values)
            first, last, step = node.params
            length = len(value)
            start = first.value if first.known else 0
            if start < 0:
                start += length
            end = last.value if last.known else length
            if end < 0 or (end == 0 and last.derived):
                end += length
            if end == start:  # an empty slice ends the whole evaluation, as upstream does
                return result
            if start >= length or start < 0:
                raise EvalError(f"array index out of bounds: index {start}, length {length}", values)
            if end > length or end < 0:
                raise EvalError(f"array index out of bounds: index {end - 1}, length {length}", values)
            if start > end:
                raise EvalError(f"starting index {start} is greater than ending index {end}", values)
            stride = 1
            if step.known:
                if step.value <= 0:
                    raise EvalError("step must be > 0", values)
                stride = step.value
            result.extend(value[start:end:stride])
        return result

    def eval_union(self, values: list[Any], node: UnionNode) -> list[Any]:
        result: list[Any] = []
        for branch in node.nodes:
            try:
                result.extend(self.eval_list(values, branch))
            except EvalError as err:
                raise EvalError(err.message, values) from None
        return result

    def eval_recursive(self, values: list[Any]) -> list[Any]:
        result: list[Any] = []
        for value in values:
            if value is None:
                continue
            children = _children(value)
            if children:
                result.append(value)
                result.extend(self.eval_recursive(children))
        return result

    def eval_filter(self, values: list[Any], node: FilterNode) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if not isinstance(value, list):
                shown = "<invalid reflect.Value>" if value is NO_VALUE else go_sprint(value)
                raise EvalError(f"{shown} is not array or slice and cannot be filtered", values)
            for item in value:
                error: EvalError | None = None
                try:
                    lefts = self.eval_list([item], node.left)
                except EvalError as err:
                    lefts, error = err.partial, err
                if node.operator == "exists":
                    if lefts:
                        results.append(item)
                    continue
                if error is not None:
                    raise EvalError(error.message, values)
                if not lefts:
                    continue
                if len(lefts) > 1:
                    raise EvalError("can only compare one element at a time", values)
                try:
                    rights = self.eval_list([item], node.right)
                except EvalError as err:
                    raise EvalError(err.message, values) from None
                if not rights:
                    continue
                if len(rights) > 1:
                    raise EvalError("can only compare one element at a time", values)
                try:
                    passed = _compare(node.operator, lefts[0], rights[0])
                except EvalError as err:
                    raise EvalError(err.message, results) from None
                if passed:
                    results.append(item)
        return results


