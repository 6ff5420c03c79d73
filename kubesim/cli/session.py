"""The command line's factory (kubectl's cmdutil.Factory): the request's namespace, and the way
to the API server — an in-process session on one cluster of the state directory (``--state``,
else ``$KUBESIM_STATE``, else ``./state``).

A state holds a kubeconfig (``kubesim.kubectl.clientcmd``) naming its clusters; the current
context (or ``--context``, ``--cluster``) picks the cluster a command talks to and its default
namespace. The default cluster's store is the state directory itself, as it always was; another
cluster ``NAME`` (``kubesim cluster init --name NAME``) lives in ``clusters/NAME/``.
"""

from __future__ import annotations

import contextlib
import os


def state_dir(args, env) -> str:
    return getattr(args, "state", None) or env.vars.get("KUBESIM_STATE") or os.path.join(env.cwd or os.getcwd(), "state")


def _implicit_state(args, env) -> bool:
    """The state comes from neither --state nor $KUBESIM_STATE (the ``./state`` default)."""
    return not (getattr(args, "state", None) or env.vars.get("KUBESIM_STATE") or getattr(args, "kubeconfig", None)
                or env.vars.get("KUBECONFIG"))


def kubeconfig_precedence(args, env) -> list[str]:
    """The files ``$KUBECONFIG`` lists, where it names the kubeconfig: without --kubeconfig,
    --state or $KUBESIM_STATE (which name a state and so its kubeconfig)."""
    if getattr(args, "kubeconfig", None) or getattr(args, "state", None) or env.vars.get("KUBESIM_STATE"):
        return []
    from kubesim.kubectl.clientcmd import precedence

    return precedence(env.vars.get("KUBECONFIG") or "")


class Factory:
    """What kubesim.kubectl.client.Factory promises, for one command line."""

    def __init__(self, args, env):
        self.args, self.env = args, env
        self.namespace_flag = getattr(args, "namespace", None)
        self._target = None
        self._crds: list[dict] | None = None
        # kubectl's RESTMapper asks discovery for what it does not know: a name or kind that is
        # not built in is looked up among the state's CustomResourceDefinitions (read once,
        # only then); an open session serves its own store's instead
        from kubesim.api.kinds import REGISTRY

        REGISTRY.attach_custom(self._stored_crds)

    def _stored_crds(self) -> list[dict]:
        if self._crds is None:
            import copy
            import sqlite3

            from kubesim.api.kinds import REGISTRY
            from kubesim.controlplane.session import has_cluster
            from kubesim.errors import KubesimError

            self._crds = []
            try:
                if has_cluster(self.session_options().directory):
                    with self.read() as client:
                        self._crds = copy.deepcopy(client.list(REGISTRY.by_gvk[("apiextensions.k8s.io/v1",
                                                                                "CustomResourceDefinition")]))
            except KubesimError:  # an unreadable or forbidden state has no custom kinds
                self._crds = []
            except sqlite3.OperationalError:  # a database a failed first command left empty
                self._crds = []
            finally:
                REGISTRY.attach_custom(self._stored_crds)
        return self._crds

    @property
    def explicit_namespace(self) -> bool:
        return bool(self.namespace_flag)

    def namespace(self) -> str:
        return self.namespace_flag or self.target().namespace

    def request_timeout(self) -> float:
        from kubesim.kubectl.cmd.util import request_timeout

        return request_timeout(getattr(self.args, "request_timeout", None))

    def state_dir(self) -> str:
        kubeconfig = getattr(self.args, "kubeconfig", None)
        if kubeconfig and not getattr(self.args, "state", None):
            return os.path.dirname(os.path.abspath(kubeconfig))
        if self.kubeconfig_precedence():
            return os.path.dirname(os.path.abspath(self.kubeconfig_path()))
        return state_dir(self.args, self.env)

    def kubeconfig_precedence(self) -> list[str]:
        """$KUBECONFIG's files, when they are the kubeconfig (see ``kubeconfig_precedence``)."""
        return kubeconfig_precedence(self.args, self.env)

    def kubeconfig_path(self) -> str:
        """The file kubectl names in its messages and writes new entries to (GetDefaultFilename)."""
        from kubesim.kubectl.clientcmd import default_filename, path_in

        if getattr(self.args, "kubeconfig", None):
            return self.args.kubeconfig
        files = self.kubeconfig_precedence()
        if files:
            return default_filename(files)
        return path_in(self.state_dir())

    def kubeconfig(self):
        """The kubeconfig as clientcmd loads it; a state that has none yet has kubeadm's default
        one (a file elsewhere that does not exist is an empty config, as for kubectl)."""
        from kubesim.controlplane.session import has_cluster
        from kubesim.kubectl import clientcmd

        files = self.kubeconfig_precedence()
        if files:
            return clientcmd.load_merged(files)
        path = self.kubeconfig_path()
        config = clientcmd.load(path)
        if config is None:
            d = os.path.dirname(os.path.abspath(path))
            own = not getattr(self.args, "kubeconfig", None)
            if own or (os.path.basename(path) == clientcmd.FILE_NAME and has_cluster(d)):
                return clientcmd.default_config()
            return clientcmd.Config()
        return config

    def target(self):
        """The cluster and namespace the current context (and --context, --cluster) name."""
        if self._target is None:
            from kubesim.kubectl import clientcmd

            config = self.kubeconfig()
            self._target = clientcmd.resolve(config, getattr(self.args, "context", None),
                                             getattr(self.args, "cluster", None))
        return self._target

    def cluster_dir(self) -> str:
        """The store of the command's cluster; kubectl's connection error when it has none."""
        from kubesim.controlplane.session import cluster_directory, has_cluster
        from kubesim.kubectl import clientcmd

        t = self.target()
        root = self.state_dir()
        if t.cluster is None or os.sep in t.cluster or t.cluster in (".", ".."):
            raise clientcmd.connection_refused(t.server)
        directory = cluster_directory(root, t.cluster, clientcmd.DEFAULT_CLUSTER)
        # only the default cluster of a state named by --state, $KUBESIM_STATE or ./state is made
        # on first use; a --kubeconfig elsewhere names clusters kubesim may not hold
        made_on_use = directory == root and not (getattr(self.args, "kubeconfig", None)
                                                 and not getattr(self.args, "state", None)) \
            and not self.kubeconfig_precedence()
        if not made_on_use and not has_cluster(directory):
            raise clientcmd.connection_refused(t.server)
        return directory

    def cluster_exists(self) -> bool:
        """Whether the command's cluster has a state already (completion reads only those)."""
        from kubesim.controlplane.session import has_cluster

        return has_cluster(self.cluster_dir())

    def session_options(self):
        return self.session_options_for(self.cluster_dir())

    def session_options_for(self, directory: str):
        from kubesim.controlplane.session import Options

        return Options(directory=directory, env=self.env.vars,
                       verbosity=getattr(self.args, "verbosity", 0) or 0, log_stream=self.env.stderr,
                       impersonate=self.impersonate(), field_manager=self.field_manager())

    def field_manager(self) -> str:
        """The manager the command's writes are recorded under: its --field-manager, else
        kubectl's default for the verb (``kubectl-<verb>``; client-side apply's
        ``kubectl-client-side-apply``, server-side apply's ``kubectl``)."""
        given = getattr(self.args, "field_manager", None)
        if given:
            return given
        verb = getattr(self.args, "verb", None) or ""
        if verb == "apply":
            return "kubectl" if getattr(self.args, "server_side", False) else "kubectl-client-side-apply"
        if verb in ("scale", "cordon", "uncordon", "drain"):
            # their clients send none (the scale client, drain's cordon helper): the apiserver
            # names the write after the user agent
            return "kubectl"
        return f"kubectl-{verb}" if verb else "kubectl"

    def impersonate(self) -> tuple | None:
        """(user, groups, uid) from ``--as``, ``--as-group``, ``--as-uid``; None without them.
        Groups or a uid without a user are refused as clientcmd's validation refuses them."""
        user = getattr(self.args, "as_user", None) or ""
        groups = [g for g in getattr(self.args, "as_group", None) or ()]
        uid = getattr(self.args, "as_uid", None) or ""
        if not user:
            if groups or uid:
                from kubesim.errors import client_error
                from kubesim.kubectl.clientcmd import DEFAULT_USER

                ctx = self.kubeconfig().contexts.get(self.target().context or "") or {}
                raise client_error(f"requesting uid, groups or user-extra for {ctx.get('user') or DEFAULT_USER} "
                                   "without impersonating a user")
            return None
        return (user, tuple(groups), uid)

    def connect(self, settle_first: bool = True, commit: bool = True, read_only: bool = False):
        """The session on the cluster's state; ``read_only`` for commands that only read (a
        snapshot when nothing is due, so they never wait behind a writer)."""
        from kubesim.controlplane.session import has_cluster, session

        self.request_timeout()  # a bad value fails before any request, as kubectl's client config does
        opts = self.session_options()
        if _implicit_state(self.args, self.env) and not has_cluster(opts.directory):
            self.env.stderr.write(f"kubesim: no cluster in {opts.directory} yet: creating a new one there "
                                  "(--state DIR or $KUBESIM_STATE choose the state)\n")
        return _printing_warnings(session(opts, settle_first=settle_first, commit=commit, read_only=read_only),
                                  self.env)

    def read(self):
        """A client on the cluster's state as last committed, read-only (shell completion)."""
        from kubesim.controlplane.session import read_session

        return read_session(self.session_options())


@contextlib.contextmanager
def _printing_warnings(sess, env):
    """kubectl's warning handler: what the API server's responses warned about and the command did
    not print itself (apply, patch do), ``Warning: ...`` on stderr when the requests are done."""
    with sess as client:
        try:
            yield client
        finally:
            for w in client.warnings():
                env.stderr.write(f"Warning: {w}\n")
