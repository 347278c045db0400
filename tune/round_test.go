package tune

import (
	"strings"
	"testing"
)

// TestRound checks a round's order (the default first and halfway),
// which configuration each job forces, and the labels; and that Alone
// splits a job of several collectives into one job each.
func TestRound(t *testing.T) {
	k := func(id int) Config { return Config{Algorithm: "knomial", ID: id} }
	ch := Config{Algorithm: "chain", ID: 2}
	jobs := Round([]string{"bcast", "reduce", "barrier"}, map[string][]Config{
		"bcast":  {k(1), k(2), k(3), k(4)},
		"reduce": {ch},
	})
	var labels []string
	for _, j := range jobs {
		labels = append(labels, j.Label)
	}
	want := "default | bcast=knomial,reduce=chain | bcast=knomial | default | bcast=knomial | bcast=knomial"
	if got := strings.Join(labels, " | "); got != want {
		t.Errorf("labels %q\nwant   %q", got, want)
	}
	if len(jobs) != 6 || jobs[0].Configs != nil || strings.Join(jobs[0].Colls, ",") != "bcast,reduce,barrier" || jobs[3].Label != "default" {
		t.Fatalf("default jobs: %+v", jobs)
	}
	for i, id := range map[int]int{1: 1, 2: 2, 4: 3, 5: 4} {
		if c := jobs[i].Configs["bcast"]; c != k(id) {
			t.Errorf("job %d forces bcast %+v, want knomial %d", i, c, id)
		}
	}
	if c, ok := jobs[1].Configs["reduce"]; !ok || c != ch || len(jobs[1].Colls) != 2 || len(jobs[2].Colls) != 1 {
		t.Errorf("job 1: %+v, job 2: %+v; want reduce=chain only in job 1", jobs[1], jobs[2])
	}
	alone := jobs[1].Alone()
	if len(alone) != 2 || alone[0].Label != "bcast=knomial (alone)" || alone[1].Configs["reduce"] != ch || len(alone[1].Configs) != 1 || alone[1].Colls[0] != "reduce" {
		t.Errorf("Alone: %+v", alone)
	}
	if only := Round([]string{"barrier"}, nil); len(only) != 1 || only[0].Label != "default" {
		t.Errorf("no configurations: %+v, want the default job alone", only)
	}
}
