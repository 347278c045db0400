package transport

import (
	"strings"
	"testing"
)

type fakeDriver struct{ p Properties }

func (f fakeDriver) Properties() Properties         { return f.p }
func (f fakeDriver) NewJob(int) ([]Endpoint, error) { return nil, nil }

// fakeProcessDriver is a transport the launcher could start ranks on.
type fakeProcessDriver struct{ fakeDriver }

func (fakeProcessDriver) Prepare(ProcessConfig) (Prepared, error) { return nil, nil }
func reset(t *testing.T) {
	t.Helper()
	driversMu.Lock()
	saved := drivers
	drivers = map[string]Driver{}
	driversMu.Unlock()
	t.Cleanup(func() {
		driversMu.Lock()
		drivers = saved
		driversMu.Unlock()
	})
}

func TestRegistry(t *testing.T) {
	reset(t)
	Register(fakeProcessDriver{fakeDriver{Properties{Name: "tcp", EagerBytes: 256 << 10, Reach: AnyHost}}})
	Register(fakeProcessDriver{fakeDriver{Properties{Name: "shm", EagerBytes: 64 << 10, Reach: SameHost}}})
	Register(fakeProcessDriver{fakeDriver{Properties{Name: "ib", Reach: AnyHost}}})
	Register(fakeDriver{Properties{Name: "inmem", Reach: SameProcess}})
	var names []string
	for _, d := range Drivers() {
		names = append(names, d.Properties().Name)
	}
	if got := strings.Join(names, ","); got != "ib,inmem,shm,tcp" {
		t.Errorf("Drivers: %s, want ib,inmem,shm,tcp", got)
	}
	if got := strings.Join(Launchable(), ","); got != "ib,shm,tcp" {
		t.Errorf("Launchable: %s, want ib,shm,tcp", got)
	}
	names = names[:0]
	for _, d := range ProcessDrivers() {
		names = append(names, d.Properties().Name)
	}
	if got := strings.Join(names, ","); got != "shm,ib,tcp" {
		t.Errorf("ProcessDrivers: %s, want shm,ib,tcp (same host first, then by name)", got)
	}
	if d, ok := Lookup("shm"); !ok || d.Properties().EagerBytes != 64<<10 {
		t.Errorf("Lookup(shm) = %v, %v", d, ok)
	}
	if _, ok := Lookup("udp"); ok {
		t.Error("Lookup(udp) found a driver")
	}
	for combined, want := range map[string]int{"tcp": 256 << 10, "shm+tcp": 64 << 10, "inmem": 0, "udp": 0} {
		if got := EagerBytes(combined); got != want {
			t.Errorf("EagerBytes(%q) = %d, want %d", combined, got, want)
		}
	}
}

func TestRegisterPanics(t *testing.T) {
	reset(t)
	Register(fakeDriver{Properties{Name: "tcp"}})
	for name, d := range map[string]Driver{
		"nil":       nil,
		"empty":     fakeDriver{Properties{}},
		"duplicate": fakeDriver{Properties{Name: "tcp"}},
		"plus":      fakeDriver{Properties{Name: "shm+tcp"}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%s) did not panic", name)
				}
			}()
			Register(d)
		})
	}
}
