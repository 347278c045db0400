package launch

import (
	"bytes"
	"io"
	"strings"
)

// reportPrefix starts the line a rank writes on its stderr to report why it
// fails (ReportError).
const reportPrefix = "mpbench-rank-error: "

// ReportError writes msg, the reason this rank of a job started by Run is
// about to exit with a non-zero status, to w (the rank's stderr) as one
// line. The launcher keeps that line out of the job's stderr and puts msg
// into the *RankError of the first failing rank instead: a failure that
// every rank sees (bad input, a -check defect, an interrupt) is printed
// once, by the launcher, naming one rank, and the consequences in other
// ranks (lost connections) are not printed at all. Newlines in msg are
// replaced by "; ".
func ReportError(w io.Writer, msg string) {
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ; ")), " ")
	io.WriteString(w, reportPrefix+msg+"\n")
}

// reportedError returns the message of a ReportError line, or false for
// any other line.
func reportedError(line []byte) (string, bool) {
	if !bytes.HasPrefix(line, []byte(reportPrefix)) {
		return "", false
	}
	return string(bytes.TrimSpace(line[len(reportPrefix):])), true
}
