"""The control plane: the only package that knows every component. It opens a session on the
state (``session.py``), serves the client interface in-process (``client.py``), and runs the
settle loop (``settle.py``) — controllers, scheduler and kubelets in turn (``components.py``,
``scheduling.py``) until nothing more changes at the current simulated time, and at every moment
a component asked to be woken when time moves on."""
