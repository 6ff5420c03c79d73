"""kubectl's client side, as staging/src/k8s.io/kubectl: what the commands do between the flags
and the API server — apply's three-way merge, the generators, describe, drain, rollouts, the
resource builder, explain-schedule's views.

Everything here talks to the API server only through the client interface (``client.py``),
obtained from the command's factory (``f.connect()``); nothing here opens the state.
``cmd/`` holds one module per verb (its flags and its run function), as ``pkg/cmd/<verb>``.
"""
