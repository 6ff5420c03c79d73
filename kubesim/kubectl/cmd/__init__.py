"""One module per verb, as staging/src/k8s.io/kubectl/pkg/cmd/<verb>: ``add_flags(parser)``
declares the verb's flags and ``run(f, args, env) -> exit code`` runs it with the factory ``f``
(namespace, ``f.connect()`` for a client) and the environment ``env`` (stdin, stdout, stderr,
environment variables, tty). The CLI's one verb table (``kubesim.cli.verbs``) names them."""
