"""The simulated kubelets, one per node, as pkg/kubelet: registration and node status, the node
Lease (nodelease), admission, the pod workers (containers started, probed, restarted, killed on
simulated time, without real containers: what a container does is derived from its command and
image, ``behaviour``), static pods and their mirror pods, volumes' mount waits, logs. Lifecycle
steps are data where they can be (golden input/output pairs in tests/kubelet/testdata). The control
plane runs them; they write through the API server's storage interface and never import the
scheduler or the controllers."""
