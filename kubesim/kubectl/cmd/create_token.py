"""kubectl create token SERVICE_ACCOUNT_NAME: request a service account token.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_token.go (``TokenOptions``:
Complete, Validate — the duration in whole seconds and not negative, no empty audience, the
bound object's kind among Node, Pod, Secret and its name — then Run: POST
``serviceaccounts/NAME/token``; the token printed, with a newline only on a terminal, or the
TokenRequest with ``-o``). The server's side is ``kubesim.apiserver.serviceaccounttoken``.
"""

from __future__ import annotations

from kubesim.errors import StatusError, UsageError

BOUND_OBJECT_KINDS = {"Node": "v1", "Pod": "v1", "Secret": "v1"}


def create_token(f, args, env) -> int:
    from kubesim.kubectl.cmd.create import _CREATE_FLAGS, reject_generator_flags
    from kubesim.kubectl.cmd.util import duration_flag
    from kubesim.kubectl.generate.flags import unknown_flag, usage_error
    from kubesim.kubectl.generate.printing import check_output, render

    verb = "create token"
    reject_generator_flags(args, verb, tuple(dest for dest, _ in _CREATE_FLAGS["token"]))
    if getattr(args, "dry_run", None) is not None:
        raise unknown_flag(verb, "--dry-run")
    duration = duration_flag(args.duration, "--duration", verb) if args.duration is not None else 0.0
    names = args.what[1:]
    if len(names) != 1:
        raise usage_error(verb, f"exactly one NAME is required, got {len(names)}")
    check_output(args.output)
    name = names[0]
    kind, bound_name, bound_uid = args.bound_object_kind or "", args.bound_object_name or "", \
        args.bound_object_uid or ""
    if not name:
        raise UsageError("service account name is required")
    if duration < 0:
        raise UsageError("--duration must be greater than or equal to 0")
    if duration != int(duration):
        raise UsageError("--duration cannot be expressed in units less than seconds")
    if any(not a for a in args.audience or ()):
        raise UsageError("--audience must not be an empty string")
    if not kind:
        if bound_name:
            raise UsageError("--bound-object-name can only be set if --bound-object-kind is provided")
        if bound_uid:
            raise UsageError("--bound-object-uid can only be set if --bound-object-kind is provided")
    else:
        if kind not in BOUND_OBJECT_KINDS:
            raise UsageError(f"supported --bound-object-kind values are {', '.join(sorted(BOUND_OBJECT_KINDS))}")
        if not bound_name:
            raise UsageError("--bound-object-name is required if --bound-object-kind is provided")
    spec: dict = {"audiences": list(args.audience or [])}
    if duration > 0:
        spec["expirationSeconds"] = int(duration)
    if kind:
        spec["boundObjectRef"] = {"kind": kind, "apiVersion": BOUND_OBJECT_KINDS[kind], "name": bound_name,
                                  "uid": bound_uid}
    try:
        with f.connect() as client:
            response = client.create_token(f.namespace(), name, spec)
    except StatusError as e:
        raise UsageError(f"failed to create token: {e.message}") from None
    if args.output:
        env.stdout.write(render(response, args.output, "created", typed=False))
        return 0
    token = response["status"]["token"]
    env.stdout.write(token + "\n" if env.stdout.isatty() else token)
    return 0
