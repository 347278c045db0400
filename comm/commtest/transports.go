package commtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/inmem"
	"github.com/mpbench/mpbench/transport/shm"
	"github.com/mpbench/mpbench/transport/tcp"
)

// Transports lists the transports Endpoints can build: "inmem"
// (transport/inmem), "shm" (transport/shm through /dev/shm, all ranks in
// this process) and "tcp" (transport/tcp over loopback).
var Transports = []string{"inmem", "shm", "tcp"}

// EnvTransport names the environment variable that sets Transport's
// initial value.
const EnvTransport = "MPBENCH_COMMTEST_TRANSPORT"

// Transport is the transport Run connects its ranks with, one of
// Transports: "inmem" unless MPBENCH_COMMTEST_TRANSPORT says otherwise. A
// package's TestMain may set it and run its tests once per transport.
var Transport = func() string {
	if s := strings.TrimSpace(os.Getenv(EnvTransport)); s != "" {
		return s
	}
	return "inmem"
}()

// Endpoints returns n connected endpoints (endpoint i has rank i) of the
// named transport, one of Transports; it fails t on an unknown name or a
// set-up error.
func Endpoints(t testing.TB, name string, n int) []transport.Endpoint {
	t.Helper()
	switch name {
	case "inmem":
		return inmem.New(n)
	case "shm":
		eps, err := shm.NewJob(n, shm.Options{})
		if err != nil {
			t.Fatalf("commtest: shm job of %d ranks: %v", n, err)
		}
		return eps
	case "tcp":
		return tcpMesh(t, n)
	}
	t.Fatalf("commtest: transport %q: want one of %s (%s)", name, strings.Join(Transports, ", "), EnvTransport)
	return nil
}

// tcpMesh connects n ranks over loopback TCP.
func tcpMesh(t testing.TB, n int) []transport.Endpoint {
	t.Helper()
	secret := []byte(fmt.Sprintf("commtest-%d", time.Now().UnixNano()))
	lns := make([]*tcp.Listener, n)
	addrs := make([]string, n)
	for r := range n {
		ln, err := tcp.Listen(tcp.Options{Rank: r, Size: n, Secret: secret, CloseTimeout: 5 * time.Second})
		if err != nil {
			t.Fatalf("commtest: tcp rank %d: %v", r, err)
		}
		lns[r], addrs[r] = ln, ln.Addr()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	eps := make([]transport.Endpoint, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r, ln := range lns {
		wg.Go(func() {
			ep, err := ln.Connect(ctx, addrs)
			eps[r], errs[r] = ep, err
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("commtest: tcp rank %d: %v", r, err)
		}
	}
	return eps
}
