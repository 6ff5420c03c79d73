"""discovery.k8s.io: EndpointSlices (pkg/apis/discovery)."""
