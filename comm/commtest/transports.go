package commtest

import (
	"os"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/transport"
	// Every transport, which package comm is tested over; each registers
	// itself.
	_ "github.com/mpbench/mpbench/transport/all"
)

// Transports lists the registered transports Endpoints can build, by name
// (transport.Drivers): "inmem", "shm" (all ranks in this process, through
// /dev/shm) and "tcp" (over loopback).
var Transports = func() []string {
	var names []string
	for _, d := range transport.Drivers() {
		names = append(names, d.Properties().Name)
	}
	return names
}()

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
// named registered transport (transport.Driver.NewJob); it fails t on an
// unknown name or a set-up error.
func Endpoints(t testing.TB, name string, n int) []transport.Endpoint {
	t.Helper()
	d, ok := transport.Lookup(name)
	if !ok {
		t.Fatalf("commtest: transport %q: want one of %s (%s)", name, strings.Join(Transports, ", "), EnvTransport)
	}
	eps, err := d.NewJob(n)
	if err != nil {
		t.Fatalf("commtest: %s job of %d ranks: %v", name, n, err)
	}
	return eps
}
