"""The simulated cluster network: what a packet from a pod meets on a real cluster, computed
from the stored objects. One model serves ``kubesim exec`` (the network tools a container
runs) and ``kubesim explain-network`` (each hop's verdict).

- ``cluster``: the objects the data plane reads (pods, Services, EndpointSlices, Namespaces,
  NetworkPolicies, Nodes), indexed once per command;
- ``dns``: CoreDNS's ``kubernetes`` plugin (Service, headless and pod records) and the pod's
  resolv.conf as the kubelet writes it;
- ``proxy``: kube-proxy's rules (ClusterIP and NodePort → ready endpoints → targetPort);
- ``policy``: NetworkPolicy semantics as CNI plugins enforce them (ingress of the destination,
  egress of the source);
- ``path``: one connection, hop by hop, with a verdict per hop;
- ``tools``: what busybox ``nslookup``/``wget``, ``curl``, bind-utils ``dig``/``host`` print.

Pure: imports ``api`` only; the control plane hands it the objects and a ``listener`` (the
kubelet's knowledge of what a container serves).
"""
