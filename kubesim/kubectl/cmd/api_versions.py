"""kubectl api-versions: the group-versions the server serves, one a line, sorted.

Upstream (kubectl v1.36, k8s.io/kubectl v0.36.3): pkg/cmd/apiresources/apiversions.go
(``unexpected arguments``, ``metav1.ExtractGroupVersions`` of discovery's groups, sorted as Go
sorts strings). kubesim's discovery is its kinds registry, as ``api-resources`` lists it.
"""

from __future__ import annotations


def add_flags(p):
    p.add_argument("args", nargs="*")


def run(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.errors import UsageError

    if args.args:
        raise UsageError(f"unexpected arguments: [{' '.join(args.args)}]\nSee 'kubesim api-versions -h' for help "
                         "and examples")
    from kubesim.api import metricsapi

    served = [*kinds.REGISTRY.all(), *kinds.REGISTRY.other_versions.values()]
    versions = sorted({k.api_version for k in served if k.served} | {metricsapi.GROUP_VERSION}, key=lambda v: v.encode())
    env.stdout.write("".join(v + "\n" for v in versions))
    return 0
