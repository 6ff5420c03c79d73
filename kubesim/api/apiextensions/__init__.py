"""apiextensions.k8s.io: CustomResourceDefinitions and the custom resources they serve.

Upstream: k8s.io/apiextensions-apiserver pkg/apis/apiextensions (defaults, validation, helpers)
and pkg/apiserver/schema (structural schemas: validation, defaulting, pruning).
"""
