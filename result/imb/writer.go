package imb

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mpbench/mpbench/result"
)

// writerColWidth is IMB's ow_format: every column is printed right-aligned
// in 13 characters (%13s headings, %13d integers, %13.2f floats).
const writerColWidth = 13

// CompatVersion is the IMB-MPI1 version whose output layout the Writer
// reproduces (64-dash banner, "Intel(R)" without a space, trailing blanks
// as printed by IMB 2021.x). Mbytes/sec in that version uses 1 Mbyte =
// 10^6 bytes; the header's "# Mbyte" line states the definition in use.
const CompatVersion = "2021.3"

// RunInfo is what the Writer prints in the header block of an
// IMB-MPI1-format file.
type RunInfo struct {
	// Version is the mpbench version, printed on the "# mpbench version"
	// line that identifies mpbench output among IMB files.
	Version string
	// Date is the start time of the run, printed as C's ctime does
	// ("Mon Nov 20 19:56:00 2023").
	Date time.Time
	// Machine, System, Release and KernelVersion are the uname fields
	// (machine, sysname, release, version), e.g. "x86_64", "Linux".
	Machine, System, Release, KernelVersion string
	// Transport names mpbench's runtime ("shm", "tcp", "mpi (Open MPI
	// v4.1.4, ...)"), printed on its own "# Transport" line.
	Transport string
	// MPIVersion is the MPI standard version the runtime implements, as
	// IMB prints MPI_Get_version on the "# MPI Version" line ("3.1").
	MPIVersion string
	// DataType and RedDataType are the MPI datatypes of the moving and of
	// the reduction benchmarks (-data_type, -red_data_type); "" means
	// IMB's defaults MPI_BYTE and MPI_FLOAT.
	DataType, RedDataType string
	// Map, when not "", is printed on a "# Map" line: the -map grid and
	// the world ranks in the order groups take them.
	Map string
	// ThreadEnv is the value of the "# MPI Thread Environment" line: the
	// thread level an MPI library provides (MPI_Query_thread), e.g.
	// "MPI_THREAD_FUNNELED"; empty (as IMB-MPI1 prints it) on mpbench's own
	// runtime.
	ThreadEnv string
	// MByte is the number of bytes per Mbyte in the Mbytes/sec columns
	// (result.MB or result.MiB); 0 means result.MB.
	MByte float64
	// Command is the calling sequence (argv, program name first).
	Command []string
	// UserLengths is true when message lengths came from -msglen; then
	// MinBytes and MaxBytes are not printed.
	UserLengths bool
	// MinBytes and MaxBytes are the smallest and largest message sizes in
	// bytes.
	MinBytes, MaxBytes int64
	// Benchmarks lists the benchmarks to run, in order, by IMB name.
	Benchmarks []string
	// Hosts is the rank-to-host map in one line (launch.FormatRankHosts,
	// "node1: 0-1; node2: 2-3"), printed as "# Hosts" after "# Transport"
	// when not empty.
	Hosts string
	// Wireup says how the ranks found each other ("mpbench launcher",
	// "PMI-2"), printed as "# Wire-up" after "# Hosts" when not empty.
	Wireup string
	// Network describes the emulated network the run crossed (mpbench
	// testbed run: model and parameters), printed as "# Network" after
	// "# Wire-up" when not empty.
	Network string
	// Timer describes the clock the benchmarks time with (source and
	// measured resolution), printed as "# Timer" after "# Network" when
	// not empty.
	Timer string
	// Reports are lines the runtime's transports add about how the ranks
	// reach each other, e.g. "Single copy" (how ranks on one host read
	// large payloads from each other: process_vm_readv, or the rings and
	// why), printed after "# Timer" in order, each when its Value is not
	// empty.
	Reports []InfoLine
	// Multi is true under -multi 0 or 1. It does not change the list: IMB
	// 2019 and later print the names without a prefix under -multi (IMB
	// 2019 Update 6 with -multi 0 prints "# PingPong", then "# Benchmarking
	// Multi-PingPong"); only the C sources of IMB 2018 and earlier
	// (IMB_output.c) printed "# (Multi-)PingPong" there.
	Multi bool
}

// TableSpec describes one benchmark table (one "# Benchmarking" section).
type TableSpec struct {
	Benchmark string  // IMB name without the "Multi-" prefix
	Format    *Layout // column layout; nil means OutTimeBW
	Processes int     // processes per group (the whole run when Groups <= 1)
	// Groups is the number of groups running simultaneously (-multi);
	// 0 or 1 means one group. Group i holds the ranks i*Processes ..
	// (i+1)*Processes-1, as IMB's color = rank/Processes split.
	Groups int
	// Multi is result.MultiNone, result.MultiWorst (-multi 0) or
	// result.MultiEach (-multi 1, adds the leading Group column).
	Multi int
	// Ranks, when not nil, lists the world ranks of each group for the
	// "# Group" lines (under -map they are not consecutive); nil means
	// group i holds the consecutive ranks above.
	Ranks [][]int
	// Idle is the number of ranks that wait in MPI_Barrier while the table
	// is measured.
	Idle int
	// Check adds IMB's defects column (-check), unless the layout has
	// NoDefects (OutSync).
	Check bool
	// Algorithm, when not "", is printed as a "# Algorithm: ..." comment
	// line after the process lines: the collective algorithm measured
	// (mpbench's addition; IMB readers skip comment lines in a section).
	Algorithm string
}

// Writer writes benchmark results in the text format of IMB-MPI1 (see
// IMB's src_c/IMB_output.c: IMB_print_header, IMB_show_procids,
// IMB_display_times, IMB_edit_format, IMB_make_line), byte for byte as
// IMB 2021.x prints it, so that scripts reading IMB output read mpbench
// output too. Call WriteHeader once, then for each table BeginTable and
// WriteRow per row, and Close at the end of a complete run (it prints
// "# All processes entering MPI_Finalize"). Every call writes through to
// the underlying writer before it returns, so an interrupted run keeps
// every row already written. A Writer is not safe for concurrent use.
type Writer struct {
	w         io.Writer
	table     TableSpec
	inTable   bool
	lastBytes int64
	rows      int
}

// NewWriter returns a Writer printing to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w}
}

// writerPut writes s and flushes w if it buffers.
func (w *Writer) writerPut(s string) error {
	if _, err := io.WriteString(w.w, s); err != nil {
		return fmt.Errorf("imb: write: %w", err)
	}
	if f, ok := w.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return fmt.Errorf("imb: write: %w", err)
		}
	}
	return nil
}

// writerRule is IMB_make_line: "#" followed by cols*13-1 dashes.
func writerRule(cols int) string {
	return "#" + strings.Repeat("-", cols*writerColWidth-1) + "\n"
}

// writerInfoLine prints one "# Key                   : value" line (key
// padded to 22 characters as in IMB_general_info).
// InfoLine is a header line "# Name : Value" that IMB readers keep as
// metadata under Name's key (lower case, blanks as '_').
type InfoLine struct {
	Name, Value string
}

func writerInfoLine(b *strings.Builder, key, value string) {
	fmt.Fprintf(b, "# %-22s: %s\n", key, value)
}

// Banner returns the title line of mpbench's header, which names mpbench,
// its version and the IMB-MPI1 output format it follows, in the place and
// shape of IMB's "#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part" (a file
// must not claim to come from a program that did not produce it):
// "#    mpbench 0.1.0, IMB-MPI1 2021.3 format, MPI-1 part".
func Banner(version string) string {
	return fmt.Sprintf("#    mpbench %s, IMB-MPI1 %s format, MPI-1 part", version, CompatVersion)
}

// WriteHeader prints the header block: banner (see Banner), machine
// information, the calling sequence, message length range, data types and
// the list of benchmarks. "# MPI Version" is the MPI standard version, as
// IMB prints it. mpbench adds lines in IMB's "# Key : value" style after
// "# MPI Thread Environment:": "# mpbench version", "# Transport" (the
// runtime), "# Hosts", "# Wire-up", "# Network", "# Timer" and the
// transports' Reports such as "# Single copy" (when set), "# Mbyte" (bytes
// per Mbyte in Mbytes/sec) and, under -map, "# Map", which IMB readers
// skip as unknown keys.
func (w *Writer) WriteHeader(h RunInfo) error {
	var b strings.Builder
	banner := "#" + strings.Repeat("-", 64) + "\n"
	b.WriteString(banner)
	b.WriteString(Banner(h.Version) + "\n")
	b.WriteString(banner)
	writerInfoLine(&b, "Date", h.Date.Format("Mon Jan _2 15:04:05 2006"))
	writerInfoLine(&b, "Machine", h.Machine)
	writerInfoLine(&b, "System", h.System)
	writerInfoLine(&b, "Release", h.Release)
	writerInfoLine(&b, "Version", h.KernelVersion)
	writerInfoLine(&b, "MPI Version", h.MPIVersion)
	writerInfoLine(&b, "MPI Thread Environment", h.ThreadEnv)
	writerInfoLine(&b, "mpbench version", h.Version)
	writerInfoLine(&b, "Transport", h.Transport)
	if h.Hosts != "" {
		writerInfoLine(&b, "Hosts", h.Hosts)
	}
	if h.Wireup != "" {
		writerInfoLine(&b, "Wire-up", h.Wireup)
	}
	if h.Network != "" {
		writerInfoLine(&b, "Network", h.Network)
	}
	if h.Timer != "" {
		writerInfoLine(&b, "Timer", h.Timer)
	}
	for _, l := range h.Reports {
		if l.Value != "" {
			writerInfoLine(&b, l.Name, l.Value)
		}
	}
	mbyte := h.MByte
	if mbyte == 0 {
		mbyte = result.MB
	}
	writerInfoLine(&b, "Mbyte", fmt.Sprintf("%.0f bytes", mbyte))
	if h.Map != "" {
		writerInfoLine(&b, "Map", h.Map)
	}
	b.WriteString("\n\n# Calling sequence was: \n\n#")
	for _, a := range h.Command {
		b.WriteString(" " + a)
	}
	b.WriteString(" \n\n")
	if h.UserLengths {
		b.WriteString("# Message lengths were user defined\n")
	} else {
		fmt.Fprintf(&b, "# Minimum message length in bytes:   %d\n", h.MinBytes)
		fmt.Fprintf(&b, "# Maximum message length in bytes:   %d\n", h.MaxBytes)
	}
	b.WriteString("#\n")
	dt, rdt := h.DataType, h.RedDataType
	if dt == "" {
		dt = "MPI_BYTE"
	}
	if rdt == "" {
		rdt = "MPI_FLOAT"
	}
	fmt.Fprintf(&b, "# MPI_Datatype                   :   %s \n", dt)
	fmt.Fprintf(&b, "# MPI_Datatype for reductions    :   %s \n", rdt)
	b.WriteString("# MPI_Op                         :   MPI_SUM  \n")
	b.WriteString("# \n# \n\n# List of Benchmarks to run:\n\n")
	for _, name := range h.Benchmarks {
		b.WriteString("# " + name + "\n")
	}
	return w.writerPut(b.String())
}

// writerHeadings returns the column headings of t in print order.
func writerHeadings(t TableSpec) []string {
	var cols []string
	if t.Multi == result.MultiEach {
		cols = append(cols, "Group")
	}
	for _, c := range t.layout().Columns {
		cols = append(cols, c.Heading)
	}
	if t.defects() {
		cols = append(cols, ColDefects.Heading)
	}
	return cols
}

// layout is t.Format, or OutTimeBW when it is nil.
func (t TableSpec) layout() *Layout {
	if t.Format == nil {
		return OutTimeBW
	}
	return t.Format
}

// defects reports whether t prints the defects column.
func (t TableSpec) defects() bool { return t.Check && !t.layout().NoDefects }

// Headings returns the column headings IMB prints for a table, in order
// (e.g. "#bytes", "#repetitions", "t[usec]", "Mbytes/sec").
func Headings(t TableSpec) []string { return writerHeadings(t) }

// writerGroupLines is IMB_print_array for the group rank lists:
// "# Group  i: " then " %4d" per rank, 16 per line, each line ended by
// "\n# ", and a final "\n".
func writerGroupLines(b *strings.Builder, t TableSpec) {
	for g := 0; g < t.Groups; g++ {
		fmt.Fprintf(b, "# Group  %d: ", g)
		rank := func(k int) int {
			if g < len(t.Ranks) && k < len(t.Ranks[g]) {
				return t.Ranks[g][k]
			}
			return g*t.Processes + k
		}
		for i := 0; i < t.Processes; i += 16 {
			for k := i; k < t.Processes && k < i+16; k++ {
				fmt.Fprintf(b, " %4d", rank(k))
			}
			b.WriteString("\n# ")
		}
		b.WriteString("\n")
	}
}

// BeginTable prints the section header of a benchmark table: blank line,
// rule, "# Benchmarking [Multi-]Name ", the process line(s), the idle
// ranks line, rule and the column headings.
func (w *Writer) BeginTable(t TableSpec) error {
	if t.Groups < 1 {
		t.Groups = 1
	}
	cols := writerHeadings(t)
	var b strings.Builder
	b.WriteString("\n")
	b.WriteString(writerRule(len(cols)))
	if t.Groups > 1 {
		fmt.Fprintf(&b, "# Benchmarking Multi-%s \n", t.Benchmark)
		fmt.Fprintf(&b, "# ( %d groups of %d processes each running simultaneous ) \n", t.Groups, t.Processes)
		writerGroupLines(&b, t)
	} else {
		fmt.Fprintf(&b, "# Benchmarking %s \n", t.Benchmark)
		fmt.Fprintf(&b, "# #processes = %d \n", t.Processes)
	}
	switch {
	case t.Idle == 1:
		b.WriteString("# ( 1 additional process waiting in MPI_Barrier)\n")
	case t.Idle > 1:
		fmt.Fprintf(&b, "# ( %d additional processes waiting in MPI_Barrier)\n", t.Idle)
	}
	if t.Algorithm != "" {
		fmt.Fprintf(&b, "# Algorithm: %s\n", t.Algorithm)
	}
	b.WriteString(writerRule(len(cols)))
	for _, c := range cols {
		fmt.Fprintf(&b, "%*s", writerColWidth, c)
	}
	b.WriteString("\n")
	w.table, w.inTable, w.rows = t, true, 0
	return w.writerPut(b.String())
}

// WriteRow prints one row of the current table with IMB's number formats:
// %13d for Group, then each column of the layout with its Decimals (%13.0f
// for #bytes, #repetitions and Msg/sec, which prints whole numbers as
// IMB's %13d does; %13.2f for times in usec and Mbytes/sec). The t[usec]
// column is r.TMax (IMB prints the maximum over ranks). Under -multi 1 a blank line precedes the group
// rows of each message size, as IMB prints it. It is an error to call
// WriteRow before BeginTable.
func (w *Writer) WriteRow(r result.Row) error {
	if !w.inTable {
		return fmt.Errorf("imb: WriteRow for %s before BeginTable", r.Benchmark)
	}
	t := w.table
	var b strings.Builder
	if t.Multi == result.MultiEach {
		if w.rows == 0 || r.Bytes != w.lastBytes {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%*d", writerColWidth, r.Group)
	}
	cols := t.layout().Columns
	if t.defects() {
		cols = append(cols[:len(cols):len(cols)], ColDefects)
	}
	for _, c := range cols {
		fmt.Fprintf(&b, "%*.*f", writerColWidth, c.Decimals, c.Value(&r))
	}
	b.WriteString("\n")
	w.lastBytes = r.Bytes
	w.rows++
	return w.writerPut(b.String())
}

// TimeOutText is what IMB-MPI1 prints after the message size in the row
// of a size it did not measure because the benchmark ran past its time
// limit (src_c/IMB_output.c, SAMPLE_FAILED_TIME_OUT), byte for byte.
const TimeOutText = ` time-out.; Time limit (secs_per_sample * msg_sizes_list_len) is over; use "-time X" or SECS_PER_SAMPLE=X (IMB_settings.h) to increase time limit.`

// WriteTimeOut prints IMB's time-out row for message size bytes in the
// current table: the size as %13d, then TimeOutText; under -multi 1 a
// blank line, then one such row per group, each after its group number
// (IMB_output.c: IMB_display_times per group). It is an error to call it
// before BeginTable.
func (w *Writer) WriteTimeOut(bytes int64) error {
	if !w.inTable {
		return fmt.Errorf("imb: WriteTimeOut for %s before BeginTable", w.table.Benchmark)
	}
	t := w.table
	line := fmt.Sprintf("%*d%s\n", writerColWidth, bytes, TimeOutText)
	if t.Multi != result.MultiEach {
		return w.writerPut(line)
	}
	var b strings.Builder
	b.WriteString("\n")
	for g := 0; g < max(t.Groups, 1); g++ {
		fmt.Fprintf(&b, "%*d%s", writerColWidth, g, line)
	}
	return w.writerPut(b.String())
}

// TailQuantiles are the fractions of PerfKitBenchmarker's -show_tail line
// (print_tail in its IMB patch, data/intelmpi.patch): minimum, p10, p25,
// p50, p75, p90, p95, p99, p99.5, p99.9, p99.99, then the maximum.
var TailQuantiles = []float64{0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 0.995, 0.999, 0.9999, 1}

// WriteTail prints the -show_tail line after a row, as
// PerfKitBenchmarker's patched IMB-MPI1 prints it and its MpiResultParser
// reads it: "[ 1.02, 1.05, ..., 9.87 ]", each value %0.2f usec, from
// s.Tail(TailQuantiles). It needs s.Samples.
func (w *Writer) WriteTail(s *result.Spread) error {
	var b strings.Builder
	b.WriteString("[")
	for i, v := range s.Tail(TailQuantiles) {
		sep := ","
		if i == len(TailQuantiles)-1 {
			sep = " ]\n"
		}
		fmt.Fprintf(&b, " %0.2f%s", v, sep)
	}
	return w.writerPut(b.String())
}

// WriteSpreads prints, after a table and a blank line, the distribution of
// the repetition times behind each of its rows (mpbench's --percentiles):
// comment lines, so that readers of IMB tables skip them, with the row's
// #bytes (and Group under -multi 1), the world rank measured, the
// repetitions and min, p50, p90, p99, max in usec and the coefficient of
// variation. Rows without a spread are left out.
func (w *Writer) WriteSpreads(rows []result.Row) error {
	var b strings.Builder
	b.WriteString("\n# Repetition times [usec] of the rank measured (rows: the first rank; collectives: the slowest)\n#")
	cols := []string{"#bytes", "rank", "n", "min", "p50", "p90", "p99", "max", "CV"}
	if w.table.Multi == result.MultiEach {
		cols = append([]string{"Group"}, cols...)
	}
	for i, c := range cols {
		width := writerColWidth
		if i == 0 {
			width--
		}
		fmt.Fprintf(&b, "%*s", width, c)
	}
	b.WriteString("\n")
	for _, r := range rows {
		s := r.Spread
		if s == nil {
			continue
		}
		b.WriteString("#")
		width := writerColWidth - 1
		if w.table.Multi == result.MultiEach {
			fmt.Fprintf(&b, "%*d", width, r.Group)
			width = writerColWidth
		}
		fmt.Fprintf(&b, "%*d%*d%*d", width, max(r.Bytes, 0), writerColWidth, s.Rank, writerColWidth, s.N)
		for _, v := range []float64{s.Min, s.P50, s.P90, s.P99, s.Max} {
			fmt.Fprintf(&b, "%*.2f", writerColWidth, v)
		}
		fmt.Fprintf(&b, "%*.4f\n", writerColWidth, s.CV)
	}
	return w.writerPut(b.String())
}

// WriteComment prints "# " + msg as its own line, e.g. to record why a run
// stopped early. IMB readers skip such lines.
func (w *Writer) WriteComment(msg string) error {
	return w.writerPut("# " + strings.ReplaceAll(msg, "\n", " ") + "\n")
}

// WriteNote prints a comment line after a blank line ("\n# msg\n"), for
// a note that follows a table: parsers that read a table's rows up to the
// blank line IMB prints after it (PerfKitBenchmarker's MpiResultParser)
// would read a comment right after the last row as a row.
func (w *Writer) WriteNote(msg string) error {
	return w.writerPut("\n# " + strings.ReplaceAll(msg, "\n", " ") + "\n")
}

// Close ends a complete run with IMB's closing lines
// ("# All processes entering MPI_Finalize"). It does not close the
// underlying writer. Do not call it for an interrupted run: a file without
// the closing line is read as truncated.
func (w *Writer) Close() error {
	w.inTable = false
	return w.writerPut("\n\n# All processes entering MPI_Finalize\n\n")
}
