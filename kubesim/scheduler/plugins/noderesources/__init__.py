"""The noderesources plugins: NodeResourcesFit and NodeResourcesBalancedAllocation, with the
scoring strategies they share (upstream pkg/scheduler/framework/plugins/noderesources/)."""
