package bench

import (
	"fmt"
	"strings"
	"testing"
)

func TestNamesFollowIMBOrder(t *testing.T) {
	names := Names()
	if got := strings.Join(names[:10], " "); got != "PingPong PingPongSpecificSource PingPongAnySource PingPing "+
		"PingPingSpecificSource PingPingAnySource Sendrecv Exchange Uniband Biband" {
		t.Errorf("Names() starts %q, want IMB's run order", got)
	}
	if got := fmt.Sprint(DefaultNames()[:4]); got != "[PingPong PingPing Sendrecv Exchange]" {
		t.Errorf("DefaultNames() = %s", got)
	}
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"PingPong", "pingpong", "PINGPONG"} {
		s, ok := Lookup(name)
		if !ok || s.Name != "PingPong" || s.ScaleTime != 0.5 || !s.Pair || s.Class != SingleTransfer {
			t.Errorf("Lookup(%q) = %v, %v", name, s, ok)
		}
	}
	if _, ok := Lookup("Multi-PingPong"); ok {
		t.Error("Lookup(Multi-PingPong): the Multi- prefix is output only")
	}
	for name, want := range map[string]float64{"PingPong": 1, "PingPing": 1, "Sendrecv": 2, "Exchange": 4} {
		if s, _ := Lookup(name); s.ScaleBW != want {
			t.Errorf("%s ScaleBW %v, want %v", name, s.ScaleBW, want)
		}
	}
}

func TestRegisterPanics(t *testing.T) {
	for _, s := range []Spec{
		{Name: "pingPONG", Kernel: sendRecv}, // duplicate, other case
		{Name: "", Kernel: sendRecv},
		{Name: "NoKernel"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q): want a panic", s.Name)
				}
			}()
			Register(s)
		}()
	}
}
