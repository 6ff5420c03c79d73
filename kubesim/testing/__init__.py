"""Shared test and example helpers: an in-process CLI harness (``cli``), fluent pod and node
builders after upstream's scheduler wrappers (``wrappers``), the kubelet tests' builders and
event recorder (``kubelet``), and a tiny in-memory control plane for controller tests
(``controllers``)."""
