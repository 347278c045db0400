package report

import (
	"github.com/mpbench/mpbench/internal/testcorpus"
	"testing"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/read"
)

// corpusRuns reads one corpus file with the format-detecting reader.
func corpusRuns(t testing.TB, name string) (string, []result.Run) {
	t.Helper()
	path := testcorpus.Path(t, name)
	runs, err := read.File(path)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return path, runs
}

// pingPongFile is IMB 2019 Update 3 PingPong on two ranks, 0 to 4 MiB.
const pingPongFile = "006-imb2019u3-pingpong.txt"

// studyModel is the study's 100 Mbit/s Ethernet preset.
func studyModel(t testing.TB) *analysis.WireModel {
	t.Helper()
	m, err := analysis.ParseWireModel(analysis.PresetEthernet100)
	if err != nil {
		t.Fatal(err)
	}
	return &m
}

// analyzedPingPong analyses the corpus PingPong file under the study's
// Ethernet model with k = 7.
func analyzedPingPong(t testing.TB) RunReport {
	t.Helper()
	path, runs := corpusRuns(t, pingPongFile)
	if len(runs) != 1 {
		t.Fatalf("%s: %d runs, want 1", pingPongFile, len(runs))
	}
	return Analyze(path, 1, 1, runs[0], Options{Wire: studyModel(t), K: 7})
}
