// Package textline prepares lines of captured or pasted benchmark output for
// the IMB and OSU readers: it splits text into numbered lines, removes what
// terminals, launchers and issue trackers add around the text a benchmark
// printed, and classifies lines that are not benchmark output (errors,
// warnings, abort messages).
//
// It owns no format knowledge of IMB or OSU tables; see result/imb and
// result/osu for those.
package textline

import (
	"bytes"
	"strings"
)

// Lines splits data into lines and cleans each with Clean. Line n of the
// file (1-based, as in editors and in result.Problem) is Lines(data)[n-1].
// LF, CRLF and lone CR (old Mac) line ends are accepted.
func Lines(data []byte) []string {
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') >= 0 {
		// Only CR line ends: treat each CR as a line end.
		data = bytes.ReplaceAll(data, []byte{'\r'}, []byte{'\n'})
	}
	s := string(data)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	out := strings.Split(s, "\n")
	for i, l := range out {
		out[i] = Clean(l)
	}
	return out
}

// Clean returns the text a benchmark printed on line s, without:
//   - a trailing CR (CRLF files, Windows imb-mpi1.exe) or a literal "^M"
//     left by a pasted terminal capture;
//   - an Open MPI "mpirun --tag-output" prefix "[job,rank]<stdout>:" and the
//     "--timestamp-output" date before it ("Mon Oct 15 15:04:29 2018[1,0]<stdout>:");
//   - an Intel MPI "-prepend-rank" prefix "[N] " when the rest is benchmark
//     text (starts with '#' or a digit);
//   - a markdown backslash escaping '#' ("\# OSU MPI ...").
//
// Leading and trailing blanks are kept (tables are right-aligned).
func Clean(s string) string {
	s = strings.TrimSuffix(s, "\r")
	s = strings.TrimSuffix(s, "^M")
	s = stripTagOutput(s)
	s = stripPrependRank(s)
	if i := strings.Index(s, `\#`); i >= 0 && strings.TrimSpace(s[:i]) == "" {
		s = s[:i] + s[i+1:]
	}
	return s
}

// stripTagOutput removes "<date>[job,rank]<stdout>:" (also <stderr>,
// <stddiag>) from the start of s.
func stripTagOutput(s string) string {
	i := strings.Index(s, "]<std")
	if i < 0 {
		return s
	}
	end := strings.Index(s[i:], ">:")
	if end < 0 {
		return s
	}
	open := strings.LastIndexByte(s[:i], '[')
	if open < 0 || !isTag(s[open+1:i]) {
		return s
	}
	return s[i+end+2:]
}

// isTag reports whether t is "job,rank" (digits, comma, digits).
func isTag(t string) bool {
	c := strings.IndexByte(t, ',')
	return c > 0 && allDigits(t[:c]) && allDigits(t[c+1:])
}

// stripPrependRank removes a leading "[N] " when what follows looks like
// benchmark text rather than a launcher message ("[0] MPI startup(): ...").
func stripPrependRank(s string) string {
	if len(s) < 4 || s[0] != '[' {
		return s
	}
	c := strings.IndexByte(s, ']')
	if c < 2 || !allDigits(s[1:c]) || c+1 >= len(s) || s[c+1] != ' ' {
		return s
	}
	rest := strings.TrimLeft(s[c+1:], " ")
	if rest != "" && (rest[0] == '#' || (rest[0] >= '0' && rest[0] <= '9')) {
		return s[c+2:]
	}
	return s
}

func allDigits(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}
