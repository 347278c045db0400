package cli

import (
	"fmt"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/transport"
)

// peerReportTag is the reserved tag (its own context: no benchmark
// message can match it) of the start-up exchange of the transports'
// reports.
const peerReportTag = comm.MinReservedTag

// peerLine is one transport's report (transport.PeerReport) summed up on
// rank 0: a line of the header and an entry of the metadata.
type peerLine struct {
	// Header and Key are the report's; Text is the line, never "".
	Header, Key, Text string
}

// gatherPeerReports gathers on rank 0 every rank's facts of each
// registered transport report about endpoint ep (transport.Reports), and
// returns there the lines they sum up to, in the order of the reports;
// other ranks return nil. Every rank of a job on mpbench's runtime calls it
// once, before the benchmarks: for each report each sends Size bytes to
// rank 0 (zeros when it does not use that transport).
func gatherPeerReports(c comm.Comm, ep transport.Endpoint) ([]peerLine, error) {
	var lines []peerLine
	for _, rep := range transport.Reports() {
		facts, err := gatherFacts(c, rep.FactsOf(ep))
		if err != nil {
			return nil, fmt.Errorf("gathering the %q line: %w", rep.Header, err)
		}
		if c.Rank() != 0 {
			continue
		}
		if text := rep.Describe(facts); text != "" {
			lines = append(lines, peerLine{Header: rep.Header, Key: rep.Key, Text: text})
		}
	}
	return lines, nil
}

// gatherFacts sends this rank's facts (one byte per rank; nil: zeros) to
// rank 0, which returns every rank's, facts[rank][peer]; other ranks
// return nil.
func gatherFacts(c comm.Comm, mine []byte) ([][]byte, error) {
	n := c.Size()
	row := make([]byte, n)
	copy(row, mine)
	if c.Rank() != 0 {
		if err := c.Send(row, 0, peerReportTag); err != nil {
			return nil, fmt.Errorf("sending its facts to rank 0: %w", err)
		}
		return nil, nil
	}
	facts := make([][]byte, n)
	facts[0] = row
	for r := 1; r < n; r++ {
		facts[r] = make([]byte, n)
		if _, err := c.Recv(facts[r], r, peerReportTag); err != nil {
			return nil, fmt.Errorf("receiving rank %d's facts: %w", r, err)
		}
	}
	return facts, nil
}

// headerLines are lines as the IMB text header prints them.
func headerLines(lines []peerLine) []imb.InfoLine {
	var out []imb.InfoLine
	for _, l := range lines {
		out = append(out, imb.InfoLine{Name: l.Header, Value: l.Text})
	}
	return out
}

// verifyLine is the header line (and JSON meta key frame_checksums) of a
// run whose frames carry checksums (transport.EnvVerify): a debug mode
// whose times are not comparable with a normal run's, so its outputs say
// so. None otherwise.
func verifyLine() []peerLine {
	if !transport.VerifyFromEnv() {
		return nil
	}
	return []peerLine{{Header: "Frame checksums", Key: "frame_checksums",
		Text: "CRC-32C on every frame (" + transport.EnvVerify + "=1), a debug mode: times are not comparable with a run without it"}}
}
