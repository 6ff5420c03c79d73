// Command etcd is a tiny wrapper around upstream etcd's etcdmain package
// (go.etcd.io/etcd/server/v3, from the Go module cache).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
