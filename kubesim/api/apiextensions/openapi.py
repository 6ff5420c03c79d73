"""The OpenAPI v3 schema apiextensions-apiserver publishes for a custom resource.

Upstream: k8s.io/apiextensions-apiserver pkg/controller/openapi/builder/builder.go
(``BuildOpenAPIV3``: the version's openAPIV3Schema, with the standard ``apiVersion``, ``kind``
and ``metadata`` properties every object has, named by the reversed group, the version and the
kind: ``com.example.v1.Widget``).
"""

from __future__ import annotations

import copy


def schema_name(group: str, version: str, kind: str) -> str:
    """The definition's name (builder.go: the group's labels reversed)."""
    return ".".join(reversed(group.split("."))) + f".{version}.{kind}"


def custom_resource_schema(crd: dict, version: str) -> dict:
    """The CRD's schema for ``version`` with apiVersion, kind and metadata (a ``$ref`` to
    ObjectMeta, as the shipped OpenAPI data names it)."""
    from kubesim.api import openapi
    from kubesim.api.apiextensions.helpers import schema_for_version

    schema = copy.deepcopy(schema_for_version(crd, version) or {})
    standard = openapi.schemas()["io.k8s.api.core.v1.Pod"]["properties"]
    props = schema.setdefault("properties", {})
    for name in ("apiVersion", "kind", "metadata"):
        props[name] = copy.deepcopy(standard[name])
    return schema
