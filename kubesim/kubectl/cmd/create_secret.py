"""kubectl create secret generic|tls|docker-registry NAME: the flags each subcommand takes, its
Complete/Validate steps, then the generator (``kubesim.kubectl.generate.secret``) and the
usual submission (``--dry-run``, ``-o``).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_secret.go (``NewCmdCreateSecret``:
a parent without a generator of its own; ``CreateSecretOptions.Validate``),
create_secret_tls.go (``Validate``: key and cert), create_secret_docker.go (``--docker-server``
defaults to Docker Hub's index), and cmdutil.DefaultSubCommandRun (an unknown subcommand).
"""

from __future__ import annotations

from kubesim.errors import StatusError, UsageError
from kubesim.kubectl.generate.flags import csv_flag, unknown_flag, usage_error


def create_secret(f, args, env) -> int:
    from kubesim.kubectl.cmd.create import _CREATE_FLAGS, reject_generator_flags
    from kubesim.kubectl.cmd.util import dry_run_strategy
    from kubesim.kubectl.generate import secret as gen
    from kubesim.kubectl.generate.printing import check_output, submit

    words = args.what[1:]
    if not words or words[0] not in gen.SUBCOMMANDS:
        reject_generator_flags(args, "create secret")  # the parent takes none of them
        if getattr(args, "dry_run", None) is not None or args.output is not None:
            raise unknown_flag("create secret", "--dry-run" if args.dry_run is not None else "--output")
        if words:
            raise usage_error("create secret", f'unknown command "{" ".join(words)}"')
        raise UsageError("a secret type is required: generic, tls or docker-registry\n"
                         "See 'kubesim create secret -h' for help and examples")
    sub = words[0]
    verb = f"create secret {sub}"
    reject_generator_flags(args, verb, tuple(dest for dest, _ in _CREATE_FLAGS[f"secret {sub}"]) + ("dry_run",))
    file_sources = csv_flag(args.from_file, verb, "--from-file")
    env_sources = csv_flag(args.from_env_file, verb, "--from-env-file")
    names = words[1:]
    if len(names) != 1:
        raise usage_error(verb, f"exactly one NAME is required, got {len(names)}")
    name = names[0]
    strategy = dry_run_strategy(args.dry_run, env)
    check_output(args.output)
    namespace = args.namespace if strategy == "client" else None
    if not name:
        raise UsageError("name must be specified")
    if sub == "generic":
        literal_sources = list(args.from_literal or [])
        if env_sources and (file_sources or literal_sources):
            raise UsageError("from-env-file cannot be combined with from-file or from-literal")
        obj = gen.generic(name, namespace, args.secret_type or "", file_sources, literal_sources, env_sources,
                          bool(args.append_hash), env.vars)
    elif sub == "tls":
        if not args.tls_key or not args.tls_cert:
            raise UsageError("key and cert must be specified")
        obj = gen.tls(name, namespace, args.tls_cert, args.tls_key, bool(args.append_hash))
    else:
        server = gen.DEFAULT_DOCKER_SERVER if args.docker_server is None else args.docker_server
        obj = gen.docker_registry(name, namespace, file_sources, args.docker_username or "",
                                  args.docker_password or "", args.docker_email or "", server,
                                  bool(args.append_hash))
    try:
        out = submit(f, args, env, lambda rng: obj, strategy, None)
    except StatusError as e:
        # create_secret*.go: fmt.Errorf("failed to create secret %v", err), without a colon
        raise UsageError(f"failed to create secret {e.message}") from None
    env.stdout.write(out)
    return 0
