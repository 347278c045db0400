package imb

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mpbench/mpbench/internal/testcorpus"
)

// TestScannerMatchesParse: every IMB file of the corpus written through a
// Scanner in pieces of random sizes (lines cut anywhere, as a pipe
// delivers them) reads as Parse reads it.
func TestScannerMatchesParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	files := testcorpus.Matching(t, "*-imb*.txt")
	if len(files) < 5 {
		t.Fatalf("%d IMB files in the corpus; expected the readers' corpus", len(files))
	}
	for i, data := range files {
		if bytes.IndexByte(data, '\n') < 0 {
			continue // CR-only line ends: Parse's case, not a stream's
		}
		want, wantErr := Parse(data, "f")
		s := NewScanner("f")
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(200))
			if k, err := s.Write(rest[:n]); k != n || err != nil {
				t.Fatalf("file %d: Write = %d, %v", i, k, err)
			}
			rest = rest[n:]
		}
		got, gotErr := s.End()
		// %+v: rows hold NaN (no Mbytes/sec), which DeepEqual never equals.
		if (gotErr == nil) != (wantErr == nil) || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("file %d: the Scanner read %d runs (%v), Parse %d (%v)", i, len(got), gotErr, len(want), wantErr)
		}
	}
}

// TestScannerPosition: the Scanner says which table the text is in and
// its last complete row, as the text arrives.
func TestScannerPosition(t *testing.T) {
	s := NewScanner("rank 0")
	at := func(want string) {
		t.Helper()
		if got := s.Position().String(); got != want {
			t.Errorf("position %q, want %q", got, want)
		}
	}
	at("")
	text := "# List of Benchmarks to run:\n\n# PingPong\n\n#----\n# Benchmarking PingPong \n# #processes = 2 \n#----\n" +
		"       #bytes #repetitions      t[usec]   Mbytes/sec\n"
	for _, chunk := range []string{text[:20], text[20:70], text[70:]} {
		s.Write([]byte(chunk))
	}
	at("PingPong on 2 processes, before its first row")
	s.Write([]byte("            0         1000         2.24         0.00\n         1024         1000"))
	at("PingPong on 2 processes, last row #bytes 0") // the unfinished row does not count
	s.Write([]byte("         3.10       330.32\n"))
	at("PingPong on 2 processes, last row #bytes 1024")
	s.Write([]byte("# Benchmarking Multi-Sendrecv \n# ( 2 groups of 2 processes each running simultaneous ) \n" +
		"        Group       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec\n\n" +
		"            0            8         1000         2.00         2.10         2.05         7.80\n"))
	at("Multi-Sendrecv in 2 groups of 2 processes each running simultaneous, last row #bytes 8")
	s.Write([]byte("# Benchmarking Barrier \n# #processes = 4 \n #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n         1000         5.00         5.10         5.05\n"))
	at("Barrier on 4 processes, last row #repetitions 1000")
	s.Write([]byte("\n\n# All processes entering MPI_Finalize\n\n"))
	at("Barrier on 4 processes, last row #repetitions 1000") // the last table met
}
