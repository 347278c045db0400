package cli

import (
	"reflect"
	"strings"
	"testing"
)

// TestMpbenchConfigsFromCollsTable: tune measures coll's algorithms of a
// collective as coll's table lists them, a segmented one once per segment
// size; a collective coll does not know is an error, not an empty list.
func TestMpbenchConfigsFromCollsTable(t *testing.T) {
	cs, err := mpbenchRuntime{}.configs("bcast", 4, []int{1024, 4096})
	var got []string
	for _, c := range cs {
		got = append(got, c.String())
	}
	want := []string{"linear", "binomial", "pipeline:seg=1024", "pipeline:seg=4096", "scatter_allgather"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("bcast: %v, %v; want %v", got, err, want)
	}
	if cs, err := (mpbenchRuntime{}).configs("scan", 4, nil); err == nil || !strings.Contains(err.Error(), `"scan"`) {
		t.Errorf("scan: %v, %v; want an error naming it", cs, err)
	}
}
