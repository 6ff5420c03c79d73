module swagger2pb

go 1.24

require (
	github.com/google/gnostic-models v0.7.0
	google.golang.org/protobuf v1.36.8
	go.yaml.in/yaml/v3 v3.0.4
)
