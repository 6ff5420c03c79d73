"""kubectl create: ``-f`` manifests, or a generator (``create deployment|namespace|priorityclass|
poddisruptionbudget NAME``, ``kubesim.kubectl.generate``).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create.go.
"""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    p.add_argument("what", nargs="*", help="deployment|namespace|priorityclass|poddisruptionbudget NAME")
    p.add_argument("-f", "--filename", action="append", help="file, directory or - for stdin")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-o", "--output", default=None,
                   help="output format: json|yaml|name|jsonpath=...|custom-columns=...")
    from kubesim.kubectl.generate import create_generator_args

    create_generator_args(p)  # create deployment|namespace|priorityclass|poddisruptionbudget


def run(f, args, env) -> int:
    from kubesim.kubectl import generate

    if args.what:
        return generate.create_generated(f, args, env)
    generate.reject_generator_flags(args)  # the generators' flags share this parser
    if not args.filename:
        raise UsageError("must specify one of -f and -k")
    from kubesim.kubectl.apply import create
    from kubesim.kubectl.cmd.apply import from_manifests

    return from_manifests(f, args, env, "create", create)
