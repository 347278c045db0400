// Package analysis turns benchmark rows into the figures of a network
// study: wire-time models of link framing, the latency left after wire
// time, Hockney (alpha-beta) fits with an eager/rendezvous break, the
// aggregate bandwidth (ABG) of simultaneous transfers and the
// switch/shared-medium classification drawn from it, anomaly flags,
// run-to-run loss tables and the communication share of applications.
//
// The package is pure: it does no I/O and works on []result.Row or on
// small input types. Units are fixed: message sizes in bytes, times in
// microseconds (usec) unless a field says seconds, bandwidth in Mbytes/sec
// with the Mbyte named in the field (MB = 10^6 bytes, MiB = 2^20 bytes),
// bit rates in Mbit/s (10^6 bits per second).
//
// The methods follow the study in the project's seed documents (a thesis
// on MPI over switched, hub and wifi Ethernet, chapter 4): latency as the
// mean difference between reported time and wire time over the smallest
// sizes (tables 4.1, 4.2, 4.4 of the seeds), ABG = m x bytes / t (tables
// 4.5-4.17), the application decomposition T(N) - C1/N and the block
// matrix-product prediction from Bcast times (section 4.3, expressions
// 4.4 and 4.5).
package analysis
