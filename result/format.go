package result

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Format is a result file format: how a file of it is recognised and read
// into Runs. A reader package registers its formats from init
// (RegisterFormat); package result/read detects a file's format among the
// registered ones and reads it.
//
// A format is recognised in one of two ways. A file format of its own
// (mpbench's JSON Lines and CSV) has a Signature: its first non-blank line
// says what it is, and the whole file is read by its Parse. A tool's text
// output (IMB, OSU) has a Mark instead: a line only that tool prints,
// found anywhere in a text after any launcher or shell noise; a text may
// hold several tools' runs one after another (a job log), and each tool's
// part is read by its own format's Parse.
type Format struct {
	// Name is the format's short name, lower case: "imb", "osu", "jsonl",
	// "csv".
	Name string
	// Title is how messages name the format to users: "IMB text output",
	// "mpbench JSON Lines" (FormatTitles lists them all).
	Title string
	// Signature reports whether first, a file's first non-blank line
	// (trimmed of white space, without its line end), starts a file of
	// this format. Nil for a tool's text output.
	Signature func(first []byte) bool
	// Mark reports whether line (trimmed of white space, not empty, no
	// line end) is one only this format's tool prints. Nil for a format
	// with a Signature.
	Mark func(line string) bool
	// Order decides between formats that both claim a line or a file:
	// the lower Order is asked first (then the name). OSU asks before
	// IMB, since an OSU title may contain words that IMB's banner holds.
	Order int
	// Parse reads data and returns its runs, as the format's reader
	// does: the whole file for a Signature format; for a Mark format the
	// file's text with the lines of other tools' parts blanked, so that
	// line numbers stay the file's. name names the input in errors,
	// problems and Row.File.
	Parse func(data []byte, name string) ([]Run, error)
	// NotFormat is the error Parse wraps when data holds no run of the
	// format after all (e.g. a marker line quoted in other text); nil
	// when Parse has none.
	NotFormat error
}

var (
	formatsMu sync.RWMutex
	formats   []Format
)

// RegisterFormat makes f known to format detection; reader packages call
// it from init. It panics (a programmer error) on an empty or duplicate
// name, a nil Parse, or a format with both or neither of Signature and
// Mark.
func RegisterFormat(f Format) {
	switch {
	case f.Name == "" || f.Name != strings.ToLower(f.Name):
		panic(fmt.Sprintf("result: RegisterFormat of a format named %q: want a lower-case name", f.Name))
	case f.Title == "":
		panic("result: RegisterFormat of " + f.Name + " without a Title")
	case f.Parse == nil:
		panic("result: RegisterFormat of " + f.Name + " without Parse")
	case (f.Signature == nil) == (f.Mark == nil):
		panic("result: RegisterFormat of " + f.Name + ": want exactly one of Signature and Mark")
	}
	formatsMu.Lock()
	defer formatsMu.Unlock()
	for _, g := range formats {
		if g.Name == f.Name {
			panic("result: RegisterFormat called twice for " + f.Name)
		}
	}
	formats = append(formats, f)
	slices.SortStableFunc(formats, func(a, b Format) int {
		if a.Order != b.Order {
			return cmp.Compare(a.Order, b.Order)
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// FormatTitles lists the registered formats' titles for messages, in
// detection order: "IMB text output, OSU text output, mpbench JSON Lines
// or mpbench CSV" (OSU's title before IMB's when Order says so).
func FormatTitles() string {
	var titles []string
	for _, f := range Formats() {
		titles = append(titles, f.Title)
	}
	if n := len(titles); n > 1 {
		return strings.Join(titles[:n-1], ", ") + " or " + titles[n-1]
	}
	return strings.Join(titles, "")
}

// Formats returns the registered formats in the order detection asks
// them: by Order, then by name.
func Formats() []Format {
	formatsMu.RLock()
	defer formatsMu.RUnlock()
	return slices.Clone(formats)
}

// LookupFormat returns the registered format called name.
func LookupFormat(name string) (Format, bool) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}
