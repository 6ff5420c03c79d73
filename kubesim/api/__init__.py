"""The API types' pure rules, split by API group as upstream's pkg/apis/<group>: each group's
defaults (``SetObjectDefaults_*``), validation and helpers (core/, apps/, policy/, scheduling/,
storage/, node/, meta/), and what every layer shares: the kind registry (``kinds``),
quantities, label and field selectors, Go's text formats, names, patches and apply's merge, pod
requests. Stateless: nothing here reads or writes a cluster."""
