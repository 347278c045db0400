package launch

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"syscall"
)

// reportPrefix starts the line a rank writes on its stderr to report why it
// fails (ReportError).
const reportPrefix = "mpbench-rank-error"

// codeEMFILE is the code of a report whose error is (or wraps) EMFILE: the
// rank had no file descriptor left.
const codeEMFILE = "EMFILE"

// codeRelayed is the code of a report whose error is another rank's,
// relayed to this one (an error with a Relayed method returning true,
// such as bench's *RelayedError): the launcher prefers the report of the
// rank where the failure began (exitEvent.outranks).
const codeRelayed = "RELAYED"

// relayed reports whether err (or an error it wraps) says it is another
// rank's failure relayed to this one: it has a method Relayed() bool
// that returns true.
func relayed(err error) bool {
	var r interface{ Relayed() bool }
	return errors.As(err, &r) && r.Relayed()
}

// ReportError writes err, the reason this rank of a job started by Run is
// about to exit with a non-zero status, to w (the rank's stderr) as one
// line. The launcher keeps that line out of the job's stderr and puts the
// message into the *RankError of the first failing rank instead: a failure
// that every rank sees (bad input, a -check defect, an interrupt) is
// printed once, by the launcher, naming one rank, and the consequences in
// other ranks (lost connections) are not printed at all. When err is (or
// wraps) a *WorkerError, its step, rank and host are left out, since the
// launcher's *RankError names them ("launch: rank 1: ..."): the rank's
// "launch: rank 1: reading the job table: EOF" is reported as "reading the
// job table: EOF", which the launcher shows as "launch: rank 1: reading the
// job table: EOF (exited with status 1)", with one "launch:".
// Newlines in the message are replaced by "; ". When err is (or wraps)
// syscall.EMFILE the line carries that as a code, so that the launcher's
// *RankError matches it too (errors.Is) and names the fix:
// "mpbench-rank-error[EMFILE]: tcp: ... too many open files". When err
// is another rank's failure relayed to this one (relayed), the code
// RELAYED tells the launcher to name the rank where it began.
func ReportError(w io.Writer, err error) {
	msg := err.Error()
	var we *WorkerError
	if errors.As(err, &we) {
		msg = we.Err.Error()
	}
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ; ")), " ")
	code := ""
	switch {
	case errors.Is(err, syscall.EMFILE):
		code = "[" + codeEMFILE + "]"
	case relayed(err):
		code = "[" + codeRelayed + "]"
	}
	io.WriteString(w, reportPrefix+code+": "+msg+"\n")
}

// rankReport is a rank's account of why it fails, as ReportError wrote it.
type rankReport struct {
	msg  string // the message, "" if the rank reported nothing
	code string // codeEMFILE, codeRelayed, or "" for any other error
}

// reportLine matches a ReportError line: its code and message.
var reportLine = regexp.MustCompile(`^` + reportPrefix + `(?:\[([A-Z]+)\])?: (.*)$`)

// reportedError returns the report of a ReportError line, or false for
// any other line.
func reportedError(line []byte) (rankReport, bool) {
	if !bytes.HasPrefix(line, []byte(reportPrefix)) {
		return rankReport{}, false
	}
	m := reportLine.FindSubmatch(bytes.TrimSpace(line))
	if m == nil {
		return rankReport{}, false
	}
	return rankReport{msg: string(m[2]), code: string(m[1])}, true
}
