package all

import (
	"testing"

	"github.com/mpbench/mpbench/transport"
)

// TestProgressModelMatchesEndpoints: every registered transport declares in
// Properties.Progress who delivers its frames, and its endpoints agree: a
// PolledByWaiter transport's endpoints implement transport.Progresser (the
// waiting rank drives them), the other models' do not (comm would otherwise
// poll an endpoint whose frames arrive on another goroutine, or never poll
// one that waits to be polled).
func TestProgressModelMatchesEndpoints(t *testing.T) {
	drivers := transport.Drivers()
	if len(drivers) < 3 {
		t.Fatalf("%d transports registered, want at least inmem, shm and tcp", len(drivers))
	}
	for _, d := range drivers {
		p := d.Properties()
		t.Run(p.Name, func(t *testing.T) {
			if p.Progress == 0 {
				t.Fatalf("Properties.Progress is unset")
			}
			eps, err := d.NewJob(2)
			if err != nil {
				t.Fatalf("NewJob(2): %v", err)
			}
			defer func() {
				for _, ep := range eps {
					ep.Close()
				}
			}()
			for rank, ep := range eps {
				_, polled := ep.(transport.Progresser)
				if want := p.Progress == transport.PolledByWaiter; polled != want {
					t.Errorf("rank %d: Progress model %s, endpoint implements Progresser = %v", rank, p.Progress, polled)
				}
			}
		})
	}
}
