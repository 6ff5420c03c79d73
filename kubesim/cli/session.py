"""The command line's factory (kubectl's cmdutil.Factory): the request's namespace, and the way
to the API server — an in-process session on the state directory (``--state``, else
``$KUBESIM_STATE``, else ``./state``)."""

from __future__ import annotations

import os


def state_dir(args, env) -> str:
    return getattr(args, "state", None) or env.vars.get("KUBESIM_STATE") or os.path.join(env.cwd or os.getcwd(), "state")


class Factory:
    """What kubesim.kubectl.client.Factory promises, for one command line."""

    def __init__(self, args, env):
        self.args, self.env = args, env
        self.namespace_flag = getattr(args, "namespace", None)

    @property
    def explicit_namespace(self) -> bool:
        return bool(self.namespace_flag)

    def namespace(self) -> str:
        return self.namespace_flag or "default"

    def request_timeout(self) -> float:
        from kubesim.kubectl.cmd.util import request_timeout

        return request_timeout(getattr(self.args, "request_timeout", None))

    def session_options(self):
        from kubesim.controlplane.session import Options

        return Options(directory=state_dir(self.args, self.env), env=self.env.vars,
                       verbosity=getattr(self.args, "verbosity", 0) or 0, log_stream=self.env.stderr)

    def connect(self, settle_first: bool = True, commit: bool = True, read_only: bool = False):
        """The session on the state; ``read_only`` for commands that only read (a snapshot
        when nothing is due, so they never wait behind a writer)."""
        from kubesim.controlplane.session import session

        self.request_timeout()  # a bad value fails before any request, as kubectl's client config does
        return session(self.session_options(), settle_first=settle_first, commit=commit, read_only=read_only)
