// Converts an OpenAPI v2 (swagger) JSON document to the protobuf kube-apiserver serves at
// /openapi/v2 (application/com.github.proto-openapi.spec.v2.v1.0+protobuf), which kubectl's
// explain --output=plaintext-openapiv2 reads. With the modules in the Go module cache:
//
//	GOFLAGS=-mod=mod GOSUMDB=off GOPROXY=off go run . swagger.json swagger.pb
package main

import (
	"os"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
)

func main() {
	in, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	doc, err := openapi_v2.ParseDocument(in)
	if err != nil {
		panic(err)
	}
	out, err := proto.Marshal(doc)
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(os.Args[2], out, 0o644); err != nil {
		panic(err)
	}
}
