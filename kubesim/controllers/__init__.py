"""kube-controller-manager's controllers, one module each, named as upstream's pkg/controller:
each computes, from the stored objects it is shown, what the API server should be asked to
change (``base.py``: ``sync(view) -> list[Change]``). They never write the state and never
import the scheduler, the kubelet or each other's internals; the control plane runs them."""
