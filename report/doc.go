// Package report turns benchmark runs into what a cluster engineer reads:
// the study's tables (wire time and latency, Hockney fits with the
// eager/rendezvous break, aggregate bandwidth and its switch/shared-medium
// classification, anomaly flags, problems met while reading), rendered as
// terminal boxes, Markdown, CSV or JSON; plots of time and bandwidth against
// message size and of ABG against the process count (gonum.org/v1/plot); and
// one self-contained HTML page holding all of them.
//
// The package does no parsing and no measuring: it takes result.Run values
// from the readers (result/imb, result/osu, result/rowfile), computes with
// package analysis and writes to an io.Writer. Units are those of package
// result: sizes in bytes, times in microseconds (usec), bandwidth in
// Mbytes/sec with the Mbyte named wherever one is printed (MB = 10^6 bytes,
// MiB = 2^20 bytes).
//
// Tables are rendered with github.com/jedib0t/go-pretty/v6, which draws the
// terminal box, Markdown and HTML forms of one table; CSV is written with
// encoding/csv so that negative numbers stay numbers.
package report
