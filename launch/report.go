package launch

import (
	"bytes"
	"errors"
	"io"
	"strings"
)

// reportPrefix starts the line a rank writes on its stderr to report why it
// fails (ReportError).
const reportPrefix = "mpbench-rank-error: "

// ReportError writes err, the reason this rank of a job started by Run is
// about to exit with a non-zero status, to w (the rank's stderr) as one
// line. The launcher keeps that line out of the job's stderr and puts the
// message into the *RankError of the first failing rank instead: a failure
// that every rank sees (bad input, a -check defect, an interrupt) is
// printed once, by the launcher, naming one rank, and the consequences in
// other ranks (lost connections) are not printed at all. When err is (or
// wraps) a *WorkerError, its rank and host are left out, since the
// launcher names them: "launch: rank 1: EOF" is reported as "launch: EOF".
// Newlines in the message are replaced by "; ".
func ReportError(w io.Writer, err error) {
	msg := err.Error()
	var we *WorkerError
	if errors.As(err, &we) {
		msg = we.opPrefix() + we.Err.Error()
	}
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
