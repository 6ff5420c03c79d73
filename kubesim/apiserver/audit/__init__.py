"""The API server's audit log: which requests are recorded, at which level, and the audit.k8s.io/v1
Events written for them.

Upstream: staging/src/k8s.io/apiserver/pkg/audit (request.go, context.go, evaluator.go),
pkg/audit/policy (reader.go, checker.go), pkg/apis/audit/validation, plugin/pkg/audit/log
(backend.go: one JSON Event a line) and pkg/server/options/audit.go (``--audit-policy-file``,
``--audit-log-path``). One module each here:

- ``policy``: the Policy file read, validated and evaluated against a request;
- ``event``: the Events of one request at its level, and the log they are appended to;
- ``options``: the kube-apiserver's audit flags, read from its static pod manifest, and the
  node files they name.
"""
